package org.hyperprof.symbols.elf;

import static org.hyperprof.symbols.elf.ElfFile.hex;

import java.util.Arrays;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * Turns an ELF file's symbol table into the image's {@link SymbolTable} of functions.
 *
 * <h2>Which table</h2>
 * The {@code SHT_SYMTAB} section ({@code .symtab}, every symbol the linker knew) when there is one;
 * otherwise the {@code SHT_DYNSYM} section ({@code .dynsym}, the exported and imported symbols that
 * a stripped binary or library keeps for the dynamic linker). The names come from the string table
 * the symbol section's {@code sh_link} names.
 *
 * <h2>Which symbols</h2>
 * Symbols of type {@code STT_FUNC} and {@code STT_GNU_IFUNC} (an indirect function: its value is the
 * resolver's code, which is what runs under that name) that are defined in a section: the section
 * index is neither {@code SHN_UNDEF} (an import) nor another reserved index ({@code SHN_ABS},
 * {@code SHN_COMMON}: no place in the image's code). {@code SHN_XINDEX} is followed to the
 * {@code SHT_SYMTAB_SHNDX} section that holds the real index. Symbols without a name are left out.
 *
 * <h2>Addresses</h2>
 * <ul>
 * <li>{@code ET_EXEC} (fixed-address programs, vmlinux, xen-syms): {@code st_value} is the absolute
 * run-time address, so the table is absolute and the mapping's load bias is 0.</li>
 * <li>{@code ET_DYN} (shared objects, position-independent executables): {@code st_value} is the
 * link-time address. The table keeps link-time addresses; the caller puts the image's load bias in
 * {@code Mapping.loadBias}: the run-time start of the image's first mapping minus
 * {@link ElfResolver#loadBase(org.hyperprof.api.symbols.ImageSource)}.</li>
 * <li>{@code ET_REL} (kernel modules {@code .ko}, object files): {@code st_value} is an offset in the
 * symbol's section, and the sections have no addresses yet. The allocated ({@code SHF_ALLOC})
 * sections are laid out one after the other in section header order from address 0, each aligned
 * to its {@code sh_addralign}; a symbol's address is its section's base plus {@code st_value}. With
 * the module's load address as the mapping's load bias, addresses inside the module resolve under
 * that layout. Symbols in sections that are not allocated are left out.</li>
 * <li>64-bit PowerPC with the ELFv1 ABI (PowerPC 970 images): a function symbol in {@code .opd}
 * names a function descriptor, not code. Its address is the descriptor's first doubleword, the
 * entry point. Descriptors in relocatable objects hold relocations instead of addresses, and
 * {@code .opd} in a debug file has no bytes; those descriptor symbols are left out.</li>
 * </ul>
 *
 * <h2>Aliases</h2>
 * Several function symbols at one address are one function. One name is kept: a {@code GLOBAL}
 * (or {@code GNU_UNIQUE}) symbol before a {@code WEAK} one before a {@code LOCAL} one; among
 * equals a symbol in code before a PowerPC function descriptor; then the first in symbol table
 * order. The result therefore does not depend on sorting.
 *
 * <h2>Sizes</h2>
 * A function's size is the kept symbol's {@code st_size}; when that is 0, the largest
 * {@code st_size} among its aliases. A function whose size is still 0 (hand-written assembly often
 * has none) extends to the next function's address or to the end of its section, whichever comes
 * first. A size-0 symbol at or past the end of its section covers no byte and is left out.
 *
 * <p>The symbols are read into primitive arrays; only the kept names become strings. Stateless.
 */
final class ElfSymbols {

    static final int STT_FUNC = 2;
    static final int STT_GNU_IFUNC = 10;
    static final int STB_LOCAL = 0;
    static final int STB_GLOBAL = 1;
    static final int STB_WEAK = 2;
    static final int STB_GNU_UNIQUE = 10;

    private ElfSymbols() {
    }

    /**
     * Reads the function symbols of an image.
     *
     * @throws SymbolFileException when the symbol table is malformed or holds no defined function
     */
    static SymbolTable read(ElfFile f, String imageName) throws SymbolFileException {
        int symtab = firstOfType(f, ElfFile.SHT_SYMTAB);
        if (symtab < 0) {
            symtab = firstOfType(f, ElfFile.SHT_DYNSYM);
        }
        if (symtab < 0) {
            if (f.shnum == 0) {
                throw f.error(f.is64 ? 40 : 32, "e_shoff", "the file has no section header table, so no symbol "
                        + "table; give an image that still has its section headers, or its separate debug file");
            }
            throw f.error(f.shoff, "section header table", "none of the " + f.shnum + " sections is a symbol "
                    + "table (neither .symtab nor .dynsym): the image is fully stripped; give the unstripped image "
                    + "or its separate debug file" + debugFileHint(f));
        }
        int entsize = f.is64 ? 24 : 16;
        String label = f.sectionLabel(symtab);
        if (f.shEntsize[symtab] != entsize) {
            throw f.error(f.shField(symtab, f.is64 ? 56 : 36), "sh_entsize", "symbol table " + label + " has "
                    + "entries of " + f.shEntsize[symtab] + " bytes, expected " + entsize + " (an "
                    + (f.is64 ? "Elf64_Sym" : "Elf32_Sym") + "); the file is corrupt");
        }
        long tableSize = f.shSize[symtab];
        if (tableSize % entsize != 0) {
            throw f.error(f.shField(symtab, f.is64 ? 32 : 20), "sh_size", "symbol table " + label + " is "
                    + hex(tableSize) + " bytes, not a whole number of " + entsize + "-byte entries; the file is corrupt");
        }
        long strtabIndex = f.shLink[symtab];
        if (strtabIndex == 0 || strtabIndex >= f.shnum || f.shType[(int) strtabIndex] != ElfFile.SHT_STRTAB) {
            throw f.error(f.shField(symtab, f.is64 ? 40 : 24), "sh_link", "symbol table " + label
                    + " names section " + strtabIndex + " as its string table, but "
                    + (strtabIndex == 0 || strtabIndex >= f.shnum
                            ? "the file has sections 1 to " + (f.shnum - 1)
                            : "that section has type " + f.shType[(int) strtabIndex] + ", not 3 (SHT_STRTAB)")
                    + "; the file is corrupt");
        }
        int strtab = (int) strtabIndex;
        // The table is read before arrays are made for its entries: a size the file lies about meets
        // the read limit, not the heap.
        f.data.prefetch(f.shOffset[symtab], tableSize);
        int count = (int) (tableSize / entsize);
        boolean relocatable = f.type == ElfFile.ET_REL;
        long[] sectionStart = sectionStarts(f, relocatable);
        long[] sectionEnd = new long[f.shnum];
        for (int s = 0; s < f.shnum; s++) {
            long end = sectionStart[s] + f.shSize[s];
            sectionEnd[s] = Long.compareUnsigned(end, sectionStart[s]) < 0 ? -1L : end;
        }
        int opd = descriptorSection(f);
        int xindex = -2; // not looked up yet

        long[] addr = new long[count];
        long[] size = new long[count];
        int[] sym = new int[count];
        int[] section = new int[count];
        byte[] rank = new byte[count];
        int n = 0;
        long base = f.shOffset[symtab];
        int infoAt = f.is64 ? 4 : 12;
        int shndxAt = f.is64 ? 6 : 14;
        int valueAt = f.is64 ? 8 : 4;
        int sizeAt = f.is64 ? 16 : 8;
        for (int i = 1; i < count; i++) {
            long e = base + (long) i * entsize;
            int info = f.u8(e + infoAt);
            int stType = info & 0xf;
            if (stType != STT_FUNC && stType != STT_GNU_IFUNC) {
                continue;
            }
            long shndx = f.u16(e + shndxAt);
            if (shndx == ElfFile.SHN_XINDEX) {
                if (xindex == -2) {
                    xindex = extendedIndexSection(f, symtab, count);
                }
                if (xindex < 0) {
                    throw f.error(e + shndxAt, "st_shndx", "symbol " + i + " of " + label + " has section index "
                            + "SHN_XINDEX, but no SHT_SYMTAB_SHNDX section belongs to " + label
                            + "; the file is corrupt");
                }
                shndx = f.u32(f.shOffset[xindex] + 4L * i);
            } else if (shndx >= ElfFile.SHN_LORESERVE) {
                continue; // SHN_ABS, SHN_COMMON and processor-specific indices: no place in a section
            }
            if (shndx == ElfFile.SHN_UNDEF) {
                continue;
            }
            if (shndx >= f.shnum) {
                throw f.error(e + shndxAt, "st_shndx", "symbol " + i + " of " + label + " is in section " + shndx
                        + ", but the file has sections 1 to " + (f.shnum - 1) + "; the file is corrupt");
            }
            if (f.u32(e) == 0) {
                continue; // nameless
            }
            int s = (int) shndx;
            long value = f.word(e + valueAt);
            long symSize = f.word(e + sizeAt);
            boolean descriptor = false;
            if (s == opd) {
                if (relocatable || f.shType[opd] != ElfFile.SHT_PROGBITS) {
                    continue;
                }
                long delta = value - f.shAddr[opd];
                long opdSize = f.shSize[opd];
                if (Long.compareUnsigned(opdSize, 8) < 0 || Long.compareUnsigned(delta, opdSize - 8) > 0) {
                    throw f.error(e + valueAt, "st_value", "function descriptor symbol " + i + " of " + label
                            + " at " + hex(value) + " is not inside " + f.sectionLabel(opd) + " ("
                            + hex(f.shAddr[opd]) + ", " + hex(opdSize) + " bytes); the file is corrupt");
                }
                value = f.u64(f.shOffset[opd] + delta);
                symSize = 0; // st_size is the descriptor's, not the code's
                s = codeSectionAt(f, value);
                if (s < 0) {
                    continue; // a descriptor pointing at no code
                }
                descriptor = true;
            } else if (relocatable) {
                if ((f.shFlags[s] & ElfFile.SHF_ALLOC) == 0) {
                    continue;
                }
                long address = sectionStart[s] + value;
                if (Long.compareUnsigned(address, value) < 0) {
                    throw f.error(e + valueAt, "st_value", "symbol " + i + " of " + label + ": offset " + hex(value)
                            + " in section " + f.sectionLabel(s) + " (laid out at " + hex(sectionStart[s])
                            + ") passes the top of the 64-bit address space; the file is corrupt");
                }
                value = address;
            }
            addr[n] = value;
            size[n] = symSize;
            sym[n] = i;
            section[n] = s;
            rank[n] = (byte) (bindRank(info >>> 4) * 2 + (descriptor ? 1 : 0));
            n++;
        }
        if (n == 0) {
            throw f.error(f.shField(symtab, 0), "section header", "symbol table " + label + " (" + count
                    + " entries) holds no defined function symbol"
                    + (f.shType[symtab] == ElfFile.SHT_DYNSYM
                            ? ": the image is stripped and exports no function; give the unstripped image or its "
                                    + "separate debug file" + debugFileHint(f)
                            : ""));
        }

        int[] order = sortedByAddress(addr, n);
        long[] starts = new long[n];
        long[] sizes = new long[n];
        int[] keptSymbol = new int[n];
        int kept = 0;
        int g = 0;
        while (g < n) {
            long a = addr[order[g]];
            int groupEnd = g + 1;
            while (groupEnd < n && addr[order[groupEnd]] == a) {
                groupEnd++;
            }
            int best = order[g];
            long largest = size[best];
            for (int j = g + 1; j < groupEnd; j++) {
                int c = order[j];
                if (rank[c] < rank[best]) {
                    best = c;
                }
                if (Long.compareUnsigned(size[c], largest) > 0) {
                    largest = size[c];
                }
            }
            long fnSize = size[best] != 0 ? size[best] : largest;
            if (fnSize == 0) {
                long bound = sectionEnd[section[best]];
                if (groupEnd < n && Long.compareUnsigned(addr[order[groupEnd]], bound) < 0) {
                    bound = addr[order[groupEnd]];
                }
                fnSize = Long.compareUnsigned(bound, a) > 0 ? bound - a : 0;
            }
            if (fnSize != 0) {
                starts[kept] = a;
                sizes[kept] = fnSize;
                keptSymbol[kept] = sym[best];
                kept++;
            }
            g = groupEnd;
        }

        // Every name is checked now (a corrupt one is an error at load, not at lookup), but made only
        // when a profile asks for it, from a copy of the string table: a large program's table holds
        // hundreds of thousands of names and a profile needs a few thousand.
        int[] nameFrom = new int[kept];
        int[] nameLength = new int[kept];
        long stringsAt = f.shOffset[strtab];
        for (int k = 0; k < kept; k++) {
            long e = base + (long) keptSymbol[k] * entsize;
            long nameIndex = f.u32(e);
            long end = f.stringEnd(strtab, nameIndex);
            if (end < 0) {
                throw f.error(e, "st_name", "the name of symbol " + keptSymbol[k] + " of " + label + " at "
                        + hex(nameIndex) + " is not a terminated string inside its string table "
                        + f.sectionLabel(strtab) + " (" + hex(f.shSize[strtab]) + " bytes); the file is corrupt");
            }
            nameFrom[k] = (int) nameIndex;
            nameLength[k] = (int) (end - stringsAt - nameIndex);
        }
        if (Long.compareUnsigned(f.shSize[strtab], org.hyperprof.input.InputLimit.MAX_ARRAY) > 0) {
            throw f.error(f.shField(strtab, f.is64 ? 32 : 20), "sh_size", "string table " + f.sectionLabel(strtab)
                    + " is " + hex(f.shSize[strtab]) + " bytes, more than one table can hold in memory");
        }
        f.data.prefetch(stringsAt, f.shSize[strtab]);
        byte[] strings = f.data.copy(stringsAt, (int) f.shSize[strtab]);
        long[] keptStarts = kept == n ? starts : Arrays.copyOf(starts, kept);
        long[] keptSizes = kept == n ? sizes : Arrays.copyOf(sizes, kept);
        return SymbolTable.adopting(imageName, keptStarts, keptSizes,
                k -> new String(strings, nameFrom[k], nameLength[k], java.nio.charset.StandardCharsets.UTF_8),
                new String[kept]);
    }

    /** Index of the first section of a type, or -1. */
    static int firstOfType(ElfFile f, int type) {
        for (int s = 1; s < f.shnum; s++) {
            if (f.shType[s] == type) {
                return s;
            }
        }
        return -1;
    }

    /**
     * Where each section's bytes start in the table's address space: {@code sh_addr} in executables
     * and shared objects; in relocatable files the layout described in the class comment.
     */
    private static long[] sectionStarts(ElfFile f, boolean relocatable) throws SymbolFileException {
        if (!relocatable) {
            return f.shAddr.clone();
        }
        long[] start = new long[f.shnum];
        long cursor = 0;
        for (int s = 1; s < f.shnum; s++) {
            if ((f.shFlags[s] & ElfFile.SHF_ALLOC) == 0) {
                continue;
            }
            long align = f.shAddralign[s];
            if (Long.compareUnsigned(align, 1) > 0) {
                if ((align & (align - 1)) != 0) {
                    throw f.error(f.shField(s, f.is64 ? 48 : 32), "sh_addralign", "section " + f.sectionLabel(s)
                            + " asks for alignment " + hex(align) + ", which is not a power of two; the file is corrupt");
                }
                long bumped = cursor + (align - 1);
                if (Long.compareUnsigned(bumped, cursor) < 0) {
                    throw layoutOverflow(f, s);
                }
                cursor = bumped & -align;
            }
            start[s] = cursor;
            long next = cursor + f.shSize[s];
            if (Long.compareUnsigned(next, cursor) < 0) {
                throw layoutOverflow(f, s);
            }
            cursor = next;
        }
        return start;
    }

    private static SymbolFileException layoutOverflow(ElfFile f, int s) {
        return f.error(f.shField(s, f.is64 ? 32 : 20), "sh_size", "laying out the allocated sections of this "
                + "relocatable file in order passes the top of the 64-bit address space at section "
                + f.sectionLabel(s) + " (sh_size " + hex(f.shSize[s]) + "); the file is corrupt");
    }

    /** The {@code .opd} section of a 64-bit PowerPC ELFv1 file, or -1. */
    private static int descriptorSection(ElfFile f) {
        // e_flags bits 0-1 give the PowerPC64 ABI version: 0 unspecified (ELFv1 toolchains), 1 ELFv1, 2 ELFv2.
        if (!f.is64 || f.machine != ElfFile.EM_PPC64 || (f.flags & 3) == 2) {
            return -1;
        }
        for (int s = 1; s < f.shnum; s++) {
            if (f.sectionNamed(s, ".opd")) {
                return s;
            }
        }
        return -1;
    }

    /** The allocated section holding {@code address}, preferring executable ones; -1 if none. */
    private static int codeSectionAt(ElfFile f, long address) {
        int found = -1;
        for (int s = 1; s < f.shnum; s++) {
            if ((f.shFlags[s] & ElfFile.SHF_ALLOC) == 0) {
                continue;
            }
            if (Long.compareUnsigned(address - f.shAddr[s], f.shSize[s]) < 0) {
                if ((f.shFlags[s] & ElfFile.SHF_EXECINSTR) != 0) {
                    return s;
                }
                if (found < 0) {
                    found = s;
                }
            }
        }
        return found;
    }

    /**
     * The {@code SHT_SYMTAB_SHNDX} section whose {@code sh_link} is {@code symtab}, checked to hold a
     * word per symbol; -1 when there is none.
     */
    private static int extendedIndexSection(ElfFile f, int symtab, int count) throws SymbolFileException {
        for (int s = 1; s < f.shnum; s++) {
            if (f.shType[s] == ElfFile.SHT_SYMTAB_SHNDX && f.shLink[s] == symtab) {
                if (Long.compareUnsigned(f.shSize[s], 4L * count) < 0) {
                    throw f.error(f.shField(s, f.is64 ? 32 : 20), "sh_size", "extended section index table "
                            + f.sectionLabel(s) + " is " + hex(f.shSize[s]) + " bytes, but " + f.sectionLabel(symtab)
                            + " has " + count + " symbols needing 4 bytes each; the file is corrupt");
                }
                return s;
            }
        }
        return -1;
    }

    private static int bindRank(int bind) {
        switch (bind) {
            case STB_GLOBAL: case STB_GNU_UNIQUE:
                return 0;
            case STB_WEAK:
                return 1;
            case STB_LOCAL:
                return 2;
            default:
                return 3;
        }
    }

    /** Symbol positions {@code 0..n-1} in ascending unsigned address order; equal addresses keep table order. */
    static int[] sortedByAddress(long[] addr, int n) {
        int[] from = new int[n];
        boolean sorted = true;
        long differing = 0;
        for (int i = 0; i < n; i++) {
            from[i] = i;
            if (i > 0) {
                differing |= addr[i] ^ addr[0];
                if (Long.compareUnsigned(addr[i - 1], addr[i]) > 0) {
                    sorted = false;
                }
            }
        }
        if (sorted) {
            return from;
        }
        // A stable radix sort of the positions, one byte of the address a pass, least significant
        // first, skipping the bytes every address shares (most of them in one image): n per pass,
        // where a comparison sort of a libc's 10,000 symbols took a third of its table's loading.
        int[] to = new int[n];
        int[] counts = new int[257];
        for (int shift = 0; shift < 64; shift += 8) {
            if (((differing >>> shift) & 0xFF) == 0) {
                continue;
            }
            java.util.Arrays.fill(counts, 0);
            for (int i = 0; i < n; i++) {
                counts[((int) (addr[i] >>> shift) & 0xFF) + 1]++;
            }
            for (int d = 0; d < 256; d++) {
                counts[d + 1] += counts[d];
            }
            for (int i = 0; i < n; i++) {
                int p = from[i];
                to[counts[(int) (addr[p] >>> shift) & 0xFF]++] = p;
            }
            int[] swap = from;
            from = to;
            to = swap;
        }
        return from;
    }

    private static String debugFileHint(ElfFile f) {
        try {
            String id = ElfNotes.buildId(f);
            if (id != null && id.length() > 2) {
                return " (by build-id: /usr/lib/debug/.build-id/" + id.substring(0, 2) + "/" + id.substring(2)
                        + ".debug)";
            }
        } catch (SymbolFileException e) {
            // The hint is optional; the caller reports the missing symbols either way.
        }
        return "";
    }
}
