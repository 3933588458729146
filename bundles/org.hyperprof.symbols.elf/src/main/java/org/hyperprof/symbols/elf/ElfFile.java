package org.hyperprof.symbols.elf;

import java.nio.charset.StandardCharsets;

import org.hyperprof.api.symbols.SymbolFileException;

/**
 * One ELF file's bytes with its identification, file header, program header table and section
 * header table decoded and checked against the file's size. Written from the System V ABI's
 * "Object Files" chapter (the {@code ELF32}/{@code ELF64} layouts and the {@code EI_CLASS} and
 * {@code EI_DATA} rules).
 *
 * <h2>What is checked when the file is opened</h2>
 * <ul>
 * <li>the magic {@code 7f 45 4c 46}, {@code EI_CLASS} (32 or 64 bit), {@code EI_DATA} (little or
 * big endian), {@code EI_VERSION} and {@code e_version} (1, the only version there is);</li>
 * <li>{@code e_type}: relocatable ({@code ET_REL}: kernel modules), executable ({@code ET_EXEC}:
 * fixed-address programs, vmlinux, xen-syms) or shared object ({@code ET_DYN}: libraries and
 * position-independent executables); a core dump or anything else is refused;</li>
 * <li>{@code e_ehsize}, {@code e_phentsize} and {@code e_shentsize} equal the sizes of this class's
 * structures; the program header table and the section header table lie inside the file;</li>
 * <li>the large-count escapes: {@code e_shnum} 0 with a section table (the count is section 0's
 * {@code sh_size}), {@code e_shstrndx} {@code SHN_XINDEX} (the index is section 0's
 * {@code sh_link}) and {@code e_phnum} {@code PN_XNUM} (the count is section 0's
 * {@code sh_info});</li>
 * <li>every section that has bytes in the file (all but {@code SHT_NULL} and {@code SHT_NOBITS})
 * lies inside the file; the section name string table is a string table and every section name is
 * a terminated string in it.</li>
 * </ul>
 * Every count, offset and size is compared with the file's length before anything is read or
 * allocated, so a lying field gives a {@link SymbolFileException} naming the offset of that field,
 * never an unchecked exception. Program header contents are not checked here: debug files made by
 * {@code objcopy --only-keep-debug} keep program headers whose segments are no longer in the file.
 *
 * <p>The header tables are decoded into primitive arrays; section and segment contents are read
 * from the file's bytes on demand.
 */
final class ElfFile extends ElfBytes {

    static final int ELFCLASS32 = 1;
    static final int ELFCLASS64 = 2;
    static final int ELFDATA2LSB = 1;
    static final int ELFDATA2MSB = 2;
    static final int EV_CURRENT = 1;

    static final int ET_NONE = 0;
    static final int ET_REL = 1;
    static final int ET_EXEC = 2;
    static final int ET_DYN = 3;
    static final int ET_CORE = 4;

    static final int EM_PPC64 = 21;

    static final int SHT_NULL = 0;
    static final int SHT_PROGBITS = 1;
    static final int SHT_SYMTAB = 2;
    static final int SHT_STRTAB = 3;
    static final int SHT_NOTE = 7;
    static final int SHT_NOBITS = 8;
    static final int SHT_DYNSYM = 11;
    static final int SHT_SYMTAB_SHNDX = 18;

    static final long SHF_ALLOC = 0x2;
    static final long SHF_EXECINSTR = 0x4;

    static final int SHN_UNDEF = 0;
    static final int SHN_LORESERVE = 0xff00;
    static final int SHN_XINDEX = 0xffff;
    static final int PN_XNUM = 0xffff;

    static final int PT_LOAD = 1;
    static final int PT_NOTE = 4;

    private static final int EI_NIDENT = 16;
    private static final int EI_CLASS = 4;
    private static final int EI_DATA = 5;
    private static final int EI_VERSION = 6;

    final String location;
    final int type;
    final int machine;
    final long flags;

    /** Number of sections (0 when the file has no section header table). */
    final int shnum;
    /** File offset of the section header table. */
    final long shoff;
    final int shentsize;
    /** Index of the section name string table, or 0 when there is none. */
    final int shstrndx;
    final long[] shName;
    final int[] shType;
    final long[] shFlags;
    final long[] shAddr;
    final long[] shOffset;
    final long[] shSize;
    final long[] shLink;
    final long[] shAddralign;
    final long[] shEntsize;

    final int phnum;
    final long phoff;
    final int phentsize;
    final long[] phType;
    final long[] phOffset;
    final long[] phVaddr;
    final long[] phFilesz;
    final long[] phAlign;

    private ElfFile(String location, ElfBytes ident, int shnum, long shoff, int shentsize, int shstrndx, int phnum,
            long phoff, int phentsize) {
        super(ident.data, ident.is64, ident.bigEndian);
        this.location = location;
        this.type = ident.u16(16);
        this.machine = ident.u16(18);
        this.flags = ident.u32(is64 ? 48 : 36);
        this.shnum = shnum;
        this.shoff = shoff;
        this.shentsize = shentsize;
        this.shstrndx = shstrndx;
        this.shName = new long[shnum];
        this.shType = new int[shnum];
        this.shFlags = new long[shnum];
        this.shAddr = new long[shnum];
        this.shOffset = new long[shnum];
        this.shSize = new long[shnum];
        this.shLink = new long[shnum];
        this.shAddralign = new long[shnum];
        this.shEntsize = new long[shnum];
        for (int i = 0; i < shnum; i++) {
            long h = shoff + (long) i * shentsize;
            shName[i] = u32(h);
            shType[i] = (int) u32(h + 4);
            shFlags[i] = word(h + 8);
            shAddr[i] = word(h + (is64 ? 16 : 12));
            shOffset[i] = word(h + (is64 ? 24 : 16));
            shSize[i] = word(h + (is64 ? 32 : 20));
            shLink[i] = u32(h + (is64 ? 40 : 24));
            shAddralign[i] = word(h + (is64 ? 48 : 32));
            shEntsize[i] = word(h + (is64 ? 56 : 36));
        }
        this.phnum = phnum;
        this.phoff = phoff;
        this.phentsize = phentsize;
        this.phType = new long[phnum];
        this.phOffset = new long[phnum];
        this.phVaddr = new long[phnum];
        this.phFilesz = new long[phnum];
        this.phAlign = new long[phnum];
        for (int i = 0; i < phnum; i++) {
            long h = phoff + (long) i * phentsize;
            phType[i] = u32(h);
            phOffset[i] = word(h + (is64 ? 8 : 4));
            phVaddr[i] = word(h + (is64 ? 16 : 8));
            phFilesz[i] = word(h + (is64 ? 32 : 16));
            phAlign[i] = word(h + (is64 ? 48 : 28));
        }
    }

    /**
     * Decodes and checks the identification, the file header and the two header tables.
     *
     * @throws SymbolFileException naming the offset of the first field that is wrong
     */
    static ElfFile parse(String location, ElfData data) throws SymbolFileException {
        long length = data.length;
        if (length == 0) {
            throw new SymbolFileException(location, 0, "at offset 0x0: the file is empty; expected an ELF file "
                    + "starting with the magic 7f 45 4c 46; check that the image was copied completely");
        }
        byte[] magic = {0x7f, 'E', 'L', 'F'};
        for (int i = 0; i < magic.length; i++) {
            if (i == length) {
                throw new SymbolFileException(location, i, "at offset " + hex(i) + ": the file ends after " + i
                        + " byte(s) of the ELF magic 7f 45 4c 46; the file is truncated");
            }
            if (data.u8(i) != (magic[i] & 0xff)) {
                throw new SymbolFileException(location, i, "at offset " + hex(i)
                        + ": not an ELF file: expected the magic 7f 45 4c 46 ('\\x7fELF'), found "
                        + dump(data, 0, (int) Math.min(length, 4)) + notElfHint(data));
            }
        }
        if (length < EI_NIDENT) {
            throw new SymbolFileException(location, length, "at offset " + hex(length)
                    + ": the file ends inside the 16-byte ELF identification; the file is truncated");
        }
        int elfClass = data.u8(EI_CLASS);
        if (elfClass != ELFCLASS32 && elfClass != ELFCLASS64) {
            throw new SymbolFileException(location, EI_CLASS, "at offset 0x4 (EI_CLASS): found " + elfClass
                    + ", expected 1 (ELFCLASS32) or 2 (ELFCLASS64); the file is corrupt");
        }
        int encoding = data.u8(EI_DATA);
        if (encoding != ELFDATA2LSB && encoding != ELFDATA2MSB) {
            throw new SymbolFileException(location, EI_DATA, "at offset 0x5 (EI_DATA): found " + encoding
                    + ", expected 1 (ELFDATA2LSB, little-endian) or 2 (ELFDATA2MSB, big-endian); the file is corrupt");
        }
        int identVersion = data.u8(EI_VERSION);
        if (identVersion != EV_CURRENT) {
            throw new SymbolFileException(location, EI_VERSION, "at offset 0x6 (EI_VERSION): found " + identVersion
                    + ", expected 1 (EV_CURRENT); the file is corrupt");
        }
        boolean is64 = elfClass == ELFCLASS64;
        String cls = is64 ? "ELF64" : "ELF32";
        int ehsize = is64 ? 64 : 52;
        if (length < ehsize) {
            throw new SymbolFileException(location, length, "at offset " + hex(length) + ": the file ends inside the "
                    + ehsize + "-byte " + cls + " file header (file size " + hex(length) + "); the file is truncated");
        }
        return parseHeaders(location, new ElfBytes(data, is64, encoding == ELFDATA2MSB), ehsize, cls);
    }

    private static ElfFile parseHeaders(String location, ElfBytes b, int ehsize, String cls) throws SymbolFileException {
        long length = b.length();
        boolean is64 = b.is64;
        int type = b.u16(16);
        switch (type) {
            case ET_REL: case ET_EXEC: case ET_DYN:
                break;
            case ET_CORE:
                throw error(location, 16, "e_type", "is 4 (ET_CORE): this is a core dump, not an image; give the program, "
                        + "library, kernel or module file instead");
            default:
                throw error(location, 16, "e_type", "is " + type + "; expected 1 (ET_REL, a relocatable object or kernel "
                        + "module), 2 (ET_EXEC, an executable or kernel) or 3 (ET_DYN, a shared object or PIE)");
        }
        long version = b.u32(20);
        if (version != EV_CURRENT) {
            throw error(location, 20, "e_version", "is " + version + ", expected 1 (EV_CURRENT); the file is corrupt");
        }
        int ehsizeAt = is64 ? 52 : 40;
        int declaredEhsize = b.u16(ehsizeAt);
        if (declaredEhsize != ehsize) {
            throw error(location, ehsizeAt, "e_ehsize", "is " + declaredEhsize + ", expected " + ehsize + " (the size of the "
                    + cls + " file header); the file is corrupt");
        }
        int phoffAt = is64 ? 32 : 28;
        int shoffAt = is64 ? 40 : 32;
        int phentsizeAt = ehsizeAt + 2;
        int phnumAt = ehsizeAt + 4;
        int shentsizeAt = ehsizeAt + 6;
        int shnumAt = ehsizeAt + 8;
        int shstrndxAt = ehsizeAt + 10;
        long phoff = b.word(phoffAt);
        long shoff = b.word(shoffAt);
        int phentsize = b.u16(phentsizeAt);
        int phnumField = b.u16(phnumAt);
        int shentsize = b.u16(shentsizeAt);
        int shnumField = b.u16(shnumAt);
        int shstrndxField = b.u16(shstrndxAt);
        int shdrSize = is64 ? 64 : 40;
        int phdrSize = is64 ? 56 : 32;

        // Section header table, with the escapes for counts that do not fit 16 bits.
        long shnum = shnumField;
        long shstrndx = shstrndxField;
        long phnum = phnumField;
        if (shoff == 0) {
            if (shnumField != 0) {
                throw error(location, shnumAt, "e_shnum", "is " + shnumField + " but e_shoff is 0 (no section header table); "
                        + "the file is corrupt");
            }
            shstrndx = 0;
        } else {
            if (shentsize != shdrSize) {
                throw error(location, shentsizeAt, "e_shentsize", "is " + shentsize + ", expected " + shdrSize
                        + " (the size of an " + cls + " section header); the file is corrupt");
            }
            if (!b.fits(shoff, shdrSize)) {
                throw error(location, shoffAt, "e_shoff", "the section header table at " + hex(shoff)
                        + " starts past the end of the file (size " + hex(length) + "); the file is truncated or corrupt");
            }
            if (shnumField == 0) {
                shnum = b.word(shoff + (is64 ? 32 : 20));
            }
            if (shstrndxField == SHN_XINDEX) {
                shstrndx = b.u32(shoff + (is64 ? 40 : 24));
            }
            if (phnumField == PN_XNUM) {
                phnum = b.u32(shoff + (is64 ? 44 : 28));
            }
            long room = (length - shoff) / shdrSize;
            if (Long.compareUnsigned(shnum, room) > 0) {
                String count = shnumField == 0 ? "section 0's sh_size (the extended section count) is " + shnum
                        : shnum + " entries";
                throw error(location, shoffAt, "e_shoff", "the section header table (e_shoff " + hex(shoff) + ", " + count
                        + " of " + shdrSize + " bytes) extends past the end of the file (size " + hex(length)
                        + "); the file is truncated or corrupt");
            }
            if (shstrndx != 0 && shstrndx >= shnum) {
                throw error(location, shstrndxAt, "e_shstrndx", "section name string table index " + shstrndx
                        + " is not a section (the file has " + shnum + "); the file is corrupt");
            }
        }

        if (phnum != 0) {
            if (phentsize != phdrSize) {
                throw error(location, phentsizeAt, "e_phentsize", "is " + phentsize + ", expected " + phdrSize
                        + " (the size of an " + cls + " program header); the file is corrupt");
            }
            if (Long.compareUnsigned(phoff, length) > 0 || phnum > (length - phoff) / phdrSize) {
                throw error(location, phoffAt, "e_phoff", "the program header table (e_phoff " + hex(phoff) + ", " + phnum
                        + " entries of " + phdrSize + " bytes) extends past the end of the file (size " + hex(length)
                        + "); the file is truncated or corrupt");
            }
        }
        // Read the header tables before arrays are made for them: a count the file lies about meets
        // the read limit, not the heap.
        b.data.prefetch(shoff, shnum * shdrSize);
        b.data.prefetch(phoff, phnum * phdrSize);
        ElfFile f = new ElfFile(location, b, (int) shnum, shoff, shdrSize, (int) shstrndx, (int) phnum, phoff, phdrSize);
        f.checkSections();
        return f;
    }

    private void checkSections() throws SymbolFileException {
        long length = length();
        for (int i = 1; i < shnum; i++) {
            if (shType[i] == SHT_NULL || shType[i] == SHT_NOBITS) {
                continue;
            }
            if (!fits(shOffset[i], shSize[i])) {
                throw error(shField(i, is64 ? 24 : 16), "sh_offset, sh_size", "section [" + i + "] (type " + shType[i]
                        + "): its contents (sh_offset " + hex(shOffset[i]) + ", sh_size " + hex(shSize[i])
                        + ") extend past the end of the file (size " + hex(length)
                        + "); the file is truncated or corrupt");
            }
        }
        if (shstrndx != 0) {
            if (shType[shstrndx] != SHT_STRTAB) {
                throw error(shField(shstrndx, 4), "sh_type", "section [" + shstrndx + "], named by e_shstrndx as the "
                        + "section name string table, has type " + shType[shstrndx] + ", expected 3 (SHT_STRTAB); "
                        + "the file is corrupt");
            }
            for (int i = 0; i < shnum; i++) {
                if (stringEnd(shstrndx, shName[i]) < 0) {
                    throw error(shField(i, 0), "sh_name", "section [" + i + "]'s name at " + hex(shName[i])
                            + " is not a terminated string inside the section name string table (section ["
                            + shstrndx + "], " + hex(shSize[shstrndx]) + " bytes); the file is corrupt");
                }
            }
        }
    }

    /** File offset of a field of section header {@code i}. */
    long shField(int i, int fieldOffset) {
        return shoff + (long) i * shentsize + fieldOffset;
    }

    /** File offset of a field of program header {@code i}. */
    long phField(int i, int fieldOffset) {
        return phoff + (long) i * phentsize + fieldOffset;
    }

    /**
     * File offset of the NUL that ends the string at {@code index} in string table section
     * {@code strtab}, or -1 when the index is outside the table or the string runs off its end.
     */
    long stringEnd(int strtab, long index) {
        long size = shSize[strtab];
        if (Long.compareUnsigned(index, size) >= 0) {
            return -1;
        }
        long from = shOffset[strtab] + index;
        long end = shOffset[strtab] + size;
        for (long p = from; p < end; p++) {
            if (u8(p) == 0) {
                return p;
            }
        }
        return -1;
    }

    /** The string at {@code index} of string table {@code strtab}; the caller checked it with {@link #stringEnd}. */
    String string(int strtab, long index, long end) {
        long from = shOffset[strtab] + index;
        return new String(data.copy(from, (int) (end - from)), StandardCharsets.UTF_8);
    }

    /** A section's name for messages, e.g. {@code [30] .symtab}. */
    String sectionLabel(int i) {
        if (shstrndx == 0 || i < 0 || i >= shnum) {
            return "[" + i + "]";
        }
        return "[" + i + "] " + string(shstrndx, shName[i], stringEnd(shstrndx, shName[i]));
    }

    /** Whether section {@code i} is named {@code name}. */
    boolean sectionNamed(int i, String name) {
        if (shstrndx == 0) {
            return false;
        }
        long end = stringEnd(shstrndx, shName[i]);
        return string(shstrndx, shName[i], end).equals(name);
    }

    /** An error at a field of the file: {@code at offset 0x28 (e_shoff): ...}. */
    SymbolFileException error(long offset, String field, String message) {
        return error(location, offset, field, message);
    }

    static SymbolFileException error(String location, long offset, String field, String message) {
        return new SymbolFileException(location, offset, "at offset " + hex(offset) + " (" + field + "): " + message);
    }

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    private static String dump(ElfData data, int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            if (i > from) {
                sb.append(' ');
            }
            sb.append(String.format("%02x", data.u8(i)));
        }
        return sb.toString();
    }

    private static String notElfHint(ElfData data) {
        int n = (int) Math.min(data.length, 64);
        for (int i = 0; i < n; i++) {
            int b = data.u8(i);
            if (b != '\n' && b != '\r' && b != '\t' && (b < 0x20 || b > 0x7e)) {
                return "; check the image's symbol file location";
            }
        }
        return " (text, not a binary: System.map, nm output and /proc/kallsyms are read by the 'kallsyms' format)";
    }
}
