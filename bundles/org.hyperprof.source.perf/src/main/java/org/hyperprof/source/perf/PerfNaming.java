package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import org.hyperprof.api.symbols.SymbolTable;

/**
 * The names perf report gives where the resolvers' tables say something else, so that an import
 * prints the rows perf prints.
 *
 * <h2>Aliases</h2>
 * Several symbols often share an address ({@code getppid}, {@code __getppid},
 * {@code __GI___getppid}; {@code __x64_sys_getppid}, {@code __ia32_sys_getppid}). A table keeps one
 * name per address; perf keeps the best by its own ranking: a symbol that covers bytes before one
 * that does not, then a non-weak one before a weak one, a global one before a local one, the one
 * with fewer leading underscores, the longer name, and among equals the first. perf reads kallsyms
 * with no sizes and gives each symbol the bytes up to the next address, so of several kernel
 * symbols at one address only the last in the file covers bytes: perf names the address after it.
 *
 * <h2>Labels</h2>
 * perf also keeps the named {@code NOTYPE} symbols of executable sections (assembly labels such
 * as {@code _dl_start_user}), which have no size: each reaches to the next symbol or its section's
 * end. The tables hold only function symbols, so addresses they leave uncovered are looked up
 * among these.
 *
 * <h2>PLT stubs</h2>
 * perf names the stubs of a program's procedure linkage table {@code <function>@plt}: the
 * {@code .rela.plt} (or {@code .rel.plt}) relocations in order, each the stub at
 * {@code .plt + entry + i * entry}, the entry being {@code .plt}'s {@code sh_entsize} (16 on
 * x86-64); the function's name comes from the dynamic symbol table the relocations point into.
 * perf 6.1 (Debian 12's) knows no {@code .plt.sec}: in a program built with IBT PLTs it names the
 * lazy-binding stubs of {@code .plt} and leaves the stubs the code calls, in {@code .plt.sec},
 * unnamed.
 *
 * <h2>Where symbols overlap</h2>
 * perf stretches {@code _init} (no size) over the PLT before it adds the stubs there, and then
 * names such addresses by the shape of its symbol tree: {@link #overlaps} builds that tree
 * ({@link PerfSymbolTree}).
 */
final class PerfNaming {

    private static final int SHT_SYMTAB = 2;
    private static final int SHT_DYNSYM = 11;
    private static final int STT_FUNC = 2;
    private static final int STT_GNU_IFUNC = 10;
    private static final int STB_LOCAL = 0;
    private static final int STB_GLOBAL = 1;
    private static final long MAX_SECTION = 256L << 20;

    private PerfNaming() {
    }

    // ---------------------------------------------------------------- kallsyms

    /**
     * For each symbol of a kallsyms table, the name perf gives its address when other text symbols
     * share it (the last one in the file), or null where the table's name is perf's. kallsyms lists
     * the symbols of one address together, so only runs of lines with one address are looked at.
     */
    static String[] kallsymsNames(byte[] text, SymbolTable table) {
        return kallsymsNames(text, kallsymsRuns(text), table);
    }

    /** {@link #kallsymsNames(byte[], SymbolTable)} from the runs {@link #kallsymsRuns} found in {@code text}. */
    static String[] kallsymsNames(byte[] text, KallsymsRuns runs, SymbolTable table) {
        String[] names = new String[table.size()];
        for (int i = 0; i < runs.count; i++) {
            settle(text, table, names, runs.address[i], runs.nameStart[i], runs.nameEnd[i]);
        }
        return names;
    }

    /**
     * The runs of two or more text lines at one address in kallsyms text, each with where its last
     * line's name lies. Needs no table, so it can scan while the table is being parsed.
     */
    static final class KallsymsRuns {
        long[] address = new long[64];
        int[] nameStart = new int[64];
        int[] nameEnd = new int[64];
        int count;

        void add(long a, int from, int to) {
            if (count == address.length) {
                address = java.util.Arrays.copyOf(address, count * 2);
                nameStart = java.util.Arrays.copyOf(nameStart, count * 2);
                nameEnd = java.util.Arrays.copyOf(nameEnd, count * 2);
            }
            address[count] = a;
            nameStart[count] = from;
            nameEnd[count] = to;
            count++;
        }
    }

    static KallsymsRuns kallsymsRuns(byte[] text) {
        KallsymsRuns runs = new KallsymsRuns();
        int n = text.length;
        int pos = 0;
        int runLength = 0;
        // The run's address: as its first line's 16 lower-case digits (runW0, runW1) when runRaw,
        // else as a value.
        boolean runRaw = false;
        long runW0 = 0;
        long runW1 = 0;
        long runAddress = -1;
        int lastStart = -1;
        byte[] hex = HEX;
        // One pass over the bytes (a kernel's kallsyms is some 5 MB, read on every cold import). A
        // line of the shape kallsyms writes (16 lower-case hex digits and a blank) is compared with
        // the run's first line as two words, with no digit read one by one, and its end is found
        // eight bytes at a time; any other line is read digit by digit. A name's end is looked for
        // only for the last line of a run.
        while (pos < n) {
            // "<hex address> <type> <name>[\t[module]]"
            int p;
            long w0 = 0;
            long w1 = 0;
            boolean raw = false;
            long address = 0;
            if (pos + 17 <= n && text[pos + 16] == ' ') {
                w0 = (long) LONGS.get(text, pos);
                w1 = (long) LONGS.get(text, pos + 8);
                raw = lowerHex(w0) && lowerHex(w1);
            }
            if (raw) {
                p = pos + 16;
            } else {
                p = pos;
                int d;
                while (p < n && (d = hex[text[p] & 0xFF]) >= 0) {
                    address = (address << 4) | d;
                    p++;
                }
            }
            int q = p;
            if (p > pos && p + 3 < n && text[p] == ' ' && isTextType(text[p + 1]) && text[p + 2] != '\n'
                    && text[p + 3] != '\n') {
                boolean same;
                if (runLength == 0) {
                    same = false;
                } else if (raw && runRaw) {
                    same = w0 == runW0 && w1 == runW1;
                } else {
                    same = (raw ? hexValue(w0, w1) : address) == (runRaw ? hexValue(runW0, runW1) : runAddress);
                }
                if (same) {
                    runLength++;
                } else {
                    if (runLength >= 2) {
                        runs.add(runRaw ? hexValue(runW0, runW1) : runAddress, lastStart, nameEnd(text, lastStart));
                    }
                    runRaw = raw;
                    runW0 = w0;
                    runW1 = w1;
                    runAddress = address;
                    runLength = 1;
                }
                lastStart = p + 3;
                q = lastStart;
            }
            pos = lineEnd(text, q) + 1;
        }
        if (runLength >= 2) {
            runs.add(runRaw ? hexValue(runW0, runW1) : runAddress, lastStart, nameEnd(text, lastStart));
        }
        return runs;
    }

    /** Whether all eight bytes of {@code w} are the digits 0-9 or a-f. */
    private static boolean lowerHex(long w) {
        if ((w & HIGHS) != 0) {
            return false;
        }
        long digit = (w + 0x5050505050505050L) & ~(w + 0x4646464646464646L);
        long letter = (w + 0x1F1F1F1F1F1F1F1FL) & ~(w + 0x1919191919191919L);
        return ((digit | letter) & HIGHS) == HIGHS;
    }

    /** The value of 16 hex digits read as two little-endian words ({@link #lowerHex} both). */
    private static long hexValue(long w0, long w1) {
        long v = 0;
        for (int k = 0; k < 16; k++) {
            int c = (int) ((k < 8 ? w0 >>> (8 * k) : w1 >>> (8 * (k - 8))) & 0xFF);
            v = (v << 4) | HEX[c];
        }
        return v;
    }

    /** Where a kallsyms name that starts at {@code from} ends: at a blank, tab, CR, LF or the end. */
    private static int nameEnd(byte[] text, int from) {
        int n = text.length;
        int e = from;
        byte c;
        while (e < n && (c = text[e]) != ' ' && c != '\t' && c != '\r' && c != '\n') {
            e++;
        }
        return e;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;

    /** The index of the first LF at or after {@code from}, or the length: eight bytes at a time. */
    private static int lineEnd(byte[] text, int from) {
        int n = text.length;
        int q = from;
        while (q + 8 <= n) {
            long v = (long) LONGS.get(text, q) ^ NEWLINES;
            long z = (v - ONES) & ~v & HIGHS;
            if (z != 0) {
                return q + (Long.numberOfTrailingZeros(z) >>> 3);
            }
            q += 8;
        }
        while (q < n && text[q] != '\n') {
            q++;
        }
        return q;
    }

    private static boolean isTextType(byte t) {
        return t == 'T' || t == 't' || t == 'W' || t == 'w';
    }

    /** Hex digit values by byte, -1 for a byte that is no hex digit. */
    private static final byte[] HEX = new byte[256];

    static {
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX['a' + i] = (byte) (10 + i);
            HEX['A' + i] = (byte) (10 + i);
        }
    }

    /** For a run of several text lines at one address: perf's name is the last line's. */
    private static void settle(byte[] t, SymbolTable table, String[] names, long address, int nameStart,
            int nameEnd) {
        int idx = exact(table, address);
        if (idx >= 0 && nameEnd > nameStart && !same(t, nameStart, nameEnd, table.name(idx))) {
            names[idx] = new String(t, nameStart, nameEnd - nameStart, StandardCharsets.UTF_8);
        }
    }

    /** The address of the first line naming {@code name} in kallsyms text, or -1. */
    static long kallsymsAddress(byte[] t, String name) {
        int pos = 0;
        while (pos < t.length) {
            int end = pos;
            while (end < t.length && t[end] != '\n') {
                end++;
            }
            int p = pos;
            long address = 0;
            while (p < end && Character.digit(t[p], 16) >= 0) {
                address = (address << 4) | Character.digit(t[p], 16);
                p++;
            }
            int nameStart = p + 3;
            int nameEnd = nameStart;
            while (nameEnd < end && t[nameEnd] != ' ' && t[nameEnd] != '\t' && t[nameEnd] != '\r') {
                nameEnd++;
            }
            if (p > pos && nameStart <= end && same(t, nameStart, nameEnd, name)) {
                return address;
            }
            pos = end + 1;
        }
        return -1;
    }

    // ---------------------------------------------------------------- ELF aliases

    /**
     * For each symbol of an ELF table loaded from {@code file}, perf's name for its address when
     * function aliases share it and perf would pick another, or null. Null altogether when the
     * file cannot be read as expected (the table's names then stand).
     */
    static String[] elfNames(Path file, SymbolTable table) {
        Symtab s = Symtab.read(file);
        return s == null ? null : elfNames(s, table, new Starts(table));
    }

    private static String[] elfNames(Symtab s, SymbolTable table, Starts starts) {
        try {
            byte[] strtab = s.strtab;
            if (strtab == null) {
                return null;
            }
            int size = table.size();
            String[] out = new String[size];
            // The best alias seen per table index, as (symbol index); -1 = none yet.
            int[] best = new int[size];
            Arrays.fill(best, -1);
            int[] seen = new int[size];
            for (int i = 1; i < s.count(); i++) {
                if (!s.definedFunction(i)) {
                    continue;
                }
                int nameOff = s.nameAt(i);
                if (nameOff <= 0 || nameOff >= strtab.length || strtab[nameOff] == 0) {
                    continue;
                }
                int idx = starts.of(s.value(i));
                if (idx < 0) {
                    continue;
                }
                seen[idx]++;
                if (best[idx] < 0 || better(s, i, best[idx])) {
                    best[idx] = i;
                }
            }
            for (int idx = 0; idx < size; idx++) {
                if (seen[idx] < 2) {
                    continue;
                }
                int nameOff = s.nameAt(best[idx]);
                int end = nameOff + length(strtab, nameOff);
                if (!same(strtab, nameOff, end, table.name(idx))) {
                    out[idx] = new String(strtab, nameOff, end - nameOff, StandardCharsets.UTF_8);
                }
            }
            return out;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Whether symbol {@code a} (later in the table) ranks strictly before {@code b}: ties keep the earlier. */
    private static boolean better(Symtab s, int a, int b) {
        int nameA = s.nameAt(a);
        int nameB = s.nameAt(b);
        return PerfSymbolTree.choose(s.size(a), s.binding(a), underscores(s.strtab, nameA),
                length(s.strtab, nameA), s.size(b), s.binding(b), underscores(s.strtab, nameB),
                length(s.strtab, nameB)) > 0;
    }

    private static int underscores(byte[] strtab, int from) {
        int n = 0;
        while (from + n < strtab.length && strtab[from + n] == '_') {
            n++;
        }
        return n;
    }

    // ---------------------------------------------------------------- sizes

    /**
     * Which symbols of an ELF table have no size in the file (every alias at the address has
     * {@code st_size} 0): perf gives such a symbol the bytes up to the next symbol of any kind,
     * across section ends, where the table stops at the next function or its section's end. Null
     * when the file cannot be read as expected.
     */
    private static boolean[] zeroSized(Symtab s, SymbolTable table, Starts starts) {
        try {
            boolean[] zero = new boolean[table.size()];
            boolean[] sized = new boolean[table.size()];
            for (int i = 1; i < s.count(); i++) {
                if (!s.definedFunction(i)) {
                    continue;
                }
                int idx = starts.of(s.value(i));
                if (idx < 0) {
                    continue;
                }
                if (s.size(i) != 0) {
                    sized[idx] = true;
                } else {
                    zero[idx] = true;
                }
            }
            for (int i = 0; i < zero.length; i++) {
                zero[i] &= !sized[i];
            }
            return zero;
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- labels

    private static final int STT_NOTYPE = 0;
    private static final long SHF_EXECINSTR = 4;

    /** The labels of an ELF file's symbol table as a table, or null when it has none. */
    static SymbolTable labels(Path file, SymbolTable functions, String imageName) {
        Symtab s = Symtab.read(file);
        return s == null ? null : labels(s, functions, imageName, new Starts(functions));
    }

    private static SymbolTable labels(Symtab s, SymbolTable functions, String imageName, Starts functionStarts) {
        try {
            Elf e = s.elf;
            byte[] strtab = s.strtab;
            if (strtab == null) {
                return null;
            }
            SymbolRows rows = new SymbolRows(16);
            for (int i = 1; i < s.count(); i++) {
                if (s.type(i) != STT_NOTYPE) {
                    continue;
                }
                int shndx = s.section(i);
                if (shndx == 0 || shndx >= e.count || (e.flags[shndx] & SHF_EXECINSTR) == 0) {
                    continue;
                }
                int nameOff = s.nameAt(i);
                if (nameOff <= 0 || nameOff >= strtab.length || strtab[nameOff] == 0 || strtab[nameOff] == '$') {
                    continue;
                }
                long value = s.value(i);
                if (functionStarts.of(value) >= 0) {
                    continue;
                }
                // The value is the label's section end, until the sizes are settled below.
                rows.add(value, e.addr[shndx] + e.size[shndx], s.name(nameOff));
            }
            rows.sortByStart(); // of labels at one address the last one covers the bytes, as in perf
            long[] starts = rows.starts;
            long[] sizes = rows.values;
            int k = rows.count;
            // Each label reaches to the next symbol above it (label or function) or its section's end.
            for (int j = 0; j < k; j++) {
                long bound = sizes[j];
                if (j + 1 < k && Long.compareUnsigned(starts[j + 1], bound) < 0) {
                    bound = starts[j + 1];
                }
                int f = nextFunction(functions, starts[j]);
                if (f >= 0 && Long.compareUnsigned(functions.start(f), bound) < 0) {
                    bound = functions.start(f);
                }
                sizes[j] = bound - starts[j];
            }
            rows.dropEmpty();
            return rows.table(imageName);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The index of the first table symbol starting above {@code address}, or -1. */
    private static int nextFunction(SymbolTable table, long address) {
        int lo = 0;
        int hi = table.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(table.start(mid), address) > 0) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }

    // ---------------------------------------------------------------- PLT stubs

    /** The PLT stubs of an ELF program or library as a table of {@code name@plt}, or null when it has none. */
    static SymbolTable pltSymbols(Path file, String imageName) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Elf e = Elf.open(ch);
            if (e == null) {
                return null;
            }
            int rela = e.named(".rela.plt");
            boolean hasAddend = true;
            if (rela < 0) {
                rela = e.named(".rel.plt");
                hasAddend = false;
            }
            int plt = e.named(".plt");
            if (rela < 0 || plt < 0) {
                return null;
            }
            int dynsym = e.link[rela];
            // perf reads the stubs only when the relocations point into the file's .dynsym.
            if (dynsym <= 0 || dynsym >= e.count || dynsym != e.named(".dynsym")) {
                return null;
            }
            byte[] relocs = e.section(rela);
            byte[] syms = e.section(dynsym);
            byte[] strs = e.section(e.link[dynsym]);
            if (relocs == null || syms == null || strs == null) {
                return null;
            }
            int relEntry = e.is64 ? (hasAddend ? 24 : 16) : (hasAddend ? 12 : 8);
            int symEntry = e.is64 ? 24 : 16;
            int n = relocs.length / relEntry;
            // Header and entries are sh_entsize each, as perf takes them; with none given, perf's
            // stubs would all be one address wide and at one place: not made here.
            long entrySize = e.entsize[plt];
            if (entrySize <= 0) {
                return null;
            }
            long base = e.addr[plt];
            long header = entrySize;
            SymbolRows stubs = new SymbolRows(n);
            for (int i = 0; i < n; i++) {
                int p = i * relEntry;
                long info = e.is64 ? e.b.u64(relocs, p + 8) : e.b.u32(relocs, p + 4);
                long symIndex = e.is64 ? info >>> 32 : info >>> 8;
                long sp = symIndex * symEntry;
                // A relocation with no symbol (IRELATIVE, for an ifunc) names its stub "@plt", as perf does.
                String function = "";
                if (symIndex != 0 && sp + symEntry <= syms.length) {
                    int nameOff = (int) e.b.u32(syms, (int) sp);
                    if (nameOff > 0 && nameOff < strs.length) {
                        function = new String(strs, nameOff, length(strs, nameOff), StandardCharsets.UTF_8);
                    }
                }
                stubs.add(base + header + i * entrySize, entrySize, function + "@plt");
            }
            return stubs.table(imageName);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- perf's symbol tree

    private static final int SHN_ABS = 0xfff1;
    private static final int SHT_NOBITS_TYPE = 8;
    private static final int STV_INTERNAL = 1;
    private static final int STV_HIDDEN = 2;

    private static final int LOADS = 1;
    private static final int SKIPS = 0;
    private static final int GIVES_UP = -1;

    /**
     * Whether perf's {@code dso__load_sym} loads symbol {@code i} of a symbol table: a named,
     * defined function, data object or label (no type, not hidden or internal, in a section named
     * like text or data), in a loaded section, not absolute; {@link #GIVES_UP} for a section index
     * the file does not have, where perf stops reading the table and loads nothing.
     */
    private static int perfLoads(Symtab s, int i) {
        Elf e = s.elf;
        int other = s.visibility(i);
        int type = s.type(i);
        int shndx = s.section(i);
        int nameOff = s.nameAt(i);
        if (nameOff == 0 || shndx == 0 || shndx == SHN_ABS) {
            return SKIPS;
        }
        boolean label = type == STT_NOTYPE && other != STV_HIDDEN && other != STV_INTERNAL;
        if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT_TYPE) {
            return SKIPS;
        }
        if (shndx >= e.count) {
            return GIVES_UP;
        }
        if ((e.flags[shndx] & SHF_ALLOC) == 0) {
            return SKIPS;
        }
        if (label) {
            String section = e.name[shndx];
            if (section == null || !(section.contains("text") || section.contains("data"))) {
                return SKIPS;
            }
        }
        return nameOff < 0 ? GIVES_UP : LOADS;
    }

    /**
     * Where perf's lookups in the image whose symbols {@code symbolFile} holds meet overlapping
     * symbols, and what they find there; null when none overlap or the file cannot be read as
     * perf reads it. The tree is built as {@code dso__load_sym} builds it (functions, data objects
     * and labels of the symbol table, in file order; stretched; duplicates dropped), then the
     * {@code plt} stubs (or none) are inserted in relocation order.
     *
     * <p>A node's origin is its index in the symbol table, or {@code -2 - i} for PLT stub {@code i}.
     */
    static TreeAnswers overlaps(Path symbolFile, SymbolTable plt) {
        Symtab s = Symtab.read(symbolFile);
        if (s == null || s.strtab == null) {
            return null;
        }
        try {
            byte[] strtab = s.strtab;
            PerfSymbolTree tree = new PerfSymbolTree();
            for (int i = 0; i < s.count(); i++) {
                int loads = perfLoads(s, i);
                if (loads == GIVES_UP) {
                    return null;
                }
                if (loads == SKIPS) {
                    continue;
                }
                int nameOff = s.nameAt(i);
                if (nameOff >= strtab.length) {
                    return null;
                }
                tree.insert(s.value(i), s.size(i), s.binding(i), strtab, nameOff, nameOff + length(strtab, nameOff),
                        i);
            }
            if (tree.size() == 0) {
                return null;
            }
            tree.fixupEnds();
            tree.dropDuplicates();
            if (plt != null) {
                for (int i = 0; i < plt.size(); i++) {
                    tree.insert(plt.start(i), plt.symbolSize(i), STB_GLOBAL, plt.name(i), -2 - i);
                }
            }
            PerfSymbolTree.Overlaps o = tree.overlaps();
            if (o == null) {
                return null;
            }
            long[] starts = new long[o.count];
            int[] origins = new int[o.count];
            String[] names = new String[o.count];
            for (int r = 0; r < o.count; r++) {
                int n = o.node[r];
                if (n == PerfSymbolTree.NIL) {
                    origins[r] = -1;
                    continue;
                }
                starts[r] = tree.start(n);
                origins[r] = tree.origin(n);
                if (origins[r] >= 0) {
                    names[r] = s.name(s.nameAt(origins[r]));
                } else {
                    names[r] = plt.name(-2 - origins[r]);
                }
            }
            return new TreeAnswers(o.from, o.to, starts, origins, names);
        } catch (RuntimeException x) {
            return null;
        }
    }

    /**
     * Ranges {@code [from, to)} where perf's tree decides the name, each with the symbol it finds:
     * its start, origin ({@link #overlaps}; -1 for none: perf prints the address) and name.
     */
    record TreeAnswers(long[] from, long[] to, long[] symbolStart, int[] origin, String[] name) {
    }

    // ---------------------------------------------------------------- one reading

    /** An ELF file's symbol table (.symtab, else .dynsym) and its string table, read once. */
    private static final class Symtab {
        final Elf elf;
        final byte[] syms;
        /** Null when it could not be read (what needs names then gives up). */
        final byte[] strtab;

        /** Bytes per entry: an Elf64_Sym or an Elf32_Sym. */
        private final int entry;

        private Symtab(Elf elf, byte[] syms, byte[] strtab) {
            this.elf = elf;
            this.syms = syms;
            this.strtab = strtab;
            this.entry = elf.is64 ? 24 : 16;
        }

        int count() {
            return syms.length / entry;
        }

        /** Symbol {@code i}'s type (st_info's low nibble). */
        int type(int i) {
            return syms[i * entry + (elf.is64 ? 4 : 12)] & 15;
        }

        /** Symbol {@code i}'s binding (st_info's high nibble). */
        int binding(int i) {
            return (syms[i * entry + (elf.is64 ? 4 : 12)] & 0xFF) >>> 4;
        }

        /** Symbol {@code i}'s visibility (st_other's low bits). */
        int visibility(int i) {
            return syms[i * entry + (elf.is64 ? 5 : 13)] & 3;
        }

        /** Symbol {@code i}'s section index (st_shndx). */
        int section(int i) {
            return elf.b.u16(syms, i * entry + (elf.is64 ? 6 : 14));
        }

        /** Where symbol {@code i}'s name starts in the string table (st_name; negative past 2 GB). */
        int nameAt(int i) {
            return (int) elf.b.u32(syms, i * entry);
        }

        long value(int i) {
            return elf.is64 ? elf.b.u64(syms, i * entry + 8) : elf.b.u32(syms, i * entry + 4);
        }

        long size(int i) {
            return elf.is64 ? elf.b.u64(syms, i * entry + 16) : elf.b.u32(syms, i * entry + 8);
        }

        /** The name starting at {@code nameAt} of the string table. */
        String name(int nameAt) {
            return new String(strtab, nameAt, length(strtab, nameAt), StandardCharsets.UTF_8);
        }

        /** Whether symbol {@code i} is a function (or ifunc) defined in a section (not undefined, not reserved). */
        boolean definedFunction(int i) {
            int type = type(i);
            int shndx = section(i);
            return (type == STT_FUNC || type == STT_GNU_IFUNC) && shndx != 0 && (shndx < 0xff00 || shndx == 0xffff);
        }

        /** The file's symbols, or null when the file cannot be read as expected. */
        static Symtab read(Path file) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                Elf e = Elf.open(ch);
                if (e == null) {
                    return null;
                }
                int sec = e.first(SHT_SYMTAB);
                if (sec < 0) {
                    sec = e.first(SHT_DYNSYM);
                }
                if (sec < 0) {
                    return null;
                }
                byte[] syms = e.section(sec);
                if (syms == null) {
                    return null;
                }
                byte[] strtab;
                try {
                    strtab = e.section(e.link[sec]);
                } catch (IOException | RuntimeException x) {
                    strtab = null;
                }
                return new Symtab(e, syms, strtab);
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }

    /**
     * What perf names differently in an ELF table loaded from {@code file}, from one reading of its
     * symbols: {@link #elfNames}, {@link #zeroSized} and {@link #labels}, each null as those are.
     */
    record ElfExtras(String[] names, boolean[] zeroSized, long[] stretchedEnds, SymbolTable labels) {
        static final ElfExtras NONE = new ElfExtras(null, null, null, null);
    }

    static ElfExtras elfExtras(Path file, SymbolTable functions, String imageName) {
        Symtab s = Symtab.read(file);
        if (s == null) {
            return ElfExtras.NONE;
        }
        Starts starts = new Starts(functions);
        boolean[] zero = zeroSized(s, functions, starts);
        return new ElfExtras(elfNames(s, functions, starts), zero, stretchedEnds(s, functions, zero),
                labels(s, functions, imageName, starts));
    }

    /**
     * Where perf's {@code symbols__fixup_end} ends each symbol of the table that has no size: at
     * the next start of any symbol {@code dso__load_sym} loads (function, data object or label),
     * or, for the last one, a page past the page it starts in. -1 where the symbol has a size;
     * null when the file cannot be read as expected.
     */
    private static long[] stretchedEnds(Symtab s, SymbolTable table, boolean[] zero) {
        if (zero == null) {
            return null;
        }
        try {
            long[] starts = new long[s.count()];
            int n = 0;
            for (int i = 1; i < s.count(); i++) {
                if (perfLoads(s, i) == LOADS) {
                    starts[n++] = s.value(i);
                }
            }
            long[] sorted = Arrays.copyOf(starts, n);
            Arrays.sort(sorted);
            long[] ends = new long[table.size()];
            for (int i = 0; i < ends.length; i++) {
                if (!zero[i]) {
                    ends[i] = -1;
                    continue;
                }
                long start = table.start(i);
                int k = Arrays.binarySearch(sorted, start);
                int next = k >= 0 ? k + 1 : -k - 1;
                while (next < sorted.length && sorted[next] <= start) {
                    next++;
                }
                ends[i] = next < sorted.length ? sorted[next] : ((start + 4095) & ~4095L) + 4096;
            }
            return ends;
        } catch (RuntimeException x) {
            return null;
        }
    }

    private static final long SHF_ALLOC = 2;
    private static final int STT_OBJECT_TYPE = 1;

    /**
     * Whether perf would load at least one symbol from {@code file}'s symbol table (.symtab, else
     * .dynsym): a named function or data object defined in a section that is loaded, or a label in
     * code. perf makes an
     * image's PLT stub names only then, so a program stripped down to its imports shows its stubs
     * by address, while one that still defines a data object (dash's {@code environ}) names them.
     */
    static boolean loadsAnySymbol(Path file) {
        Symtab s = Symtab.read(file);
        if (s == null) {
            return false;
        }
        Elf e = s.elf;
        for (int i = 1; i < s.count(); i++) {
            int type = s.type(i);
            if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT_TYPE && type != STT_NOTYPE) {
                continue;
            }
            int shndx = s.section(i);
            if (s.nameAt(i) == 0 || shndx == 0 || shndx >= e.count || (e.flags[shndx] & SHF_ALLOC) == 0) {
                continue;
            }
            // A label (no type) counts only in code, as perf loads labels only there.
            if (type != STT_NOTYPE || (e.flags[shndx] & SHF_EXECINSTR) != 0) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- helpers

    /**
     * The table's symbols by start address, for the passes over a symbol table that look each of
     * its thousands of symbols up (a hash lookup, not a binary search through the table each).
     * An address several symbols start at gives the first of them.
     */
    static final class Starts {
        private final LongIntMap index;

        Starts(SymbolTable table) {
            int n = table.size();
            index = new LongIntMap(n);
            for (int i = 0; i < n; i++) {
                long a = table.start(i);
                if (index.get(a) == LongIntMap.ABSENT) {
                    index.put(a, i);
                }
            }
        }

        /** The index of the symbol starting exactly at {@code address}, or -1. */
        int of(long address) {
            int i = index.get(address);
            return i == LongIntMap.ABSENT ? -1 : i;
        }
    }

    /** The index of the table's symbol starting exactly at {@code address}, or -1. */
    private static int exact(SymbolTable table, long address) {
        int lo = 0;
        int hi = table.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(table.start(mid), address);
            if (c == 0) {
                return mid;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -1;
    }

    private static boolean same(byte[] b, int from, int to, String s) {
        if (to - from != s.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if ((b[from + i] & 0xFF) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int length(byte[] b, int from) {
        int end = from;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return end - from;
    }

    /** The section headers of an ELF file, read with every offset checked. */
    private static final class Elf {
        final FileChannel ch;
        final long fileSize;
        final boolean is64;
        final Bytes b;
        final int count;
        final int[] type;
        final long[] addr;
        final long[] offset;
        final long[] size;
        final int[] link;
        final long[] entsize;
        final long[] flags;
        final String[] name;

        private Elf(FileChannel ch, long fileSize, boolean is64, Bytes b, int count) {
            this.ch = ch;
            this.fileSize = fileSize;
            this.is64 = is64;
            this.b = b;
            this.count = count;
            type = new int[count];
            addr = new long[count];
            offset = new long[count];
            size = new long[count];
            link = new int[count];
            entsize = new long[count];
            flags = new long[count];
            name = new String[count];
        }

        static Elf open(FileChannel ch) throws IOException {
            long fileSize = ch.size();
            if (fileSize < 64) {
                return null;
            }
            byte[] h = read(ch, 0, 64, fileSize);
            if (h == null || h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') {
                return null;
            }
            boolean is64 = h[4] == 2;
            Bytes b = new Bytes(h[5] == 2);
            long shoff = is64 ? b.u64(h, 40) : b.u32(h, 32);
            int shentsize = b.u16(h, is64 ? 58 : 46);
            int shnum = b.u16(h, is64 ? 60 : 48);
            int shstrndx = b.u16(h, is64 ? 62 : 50);
            if (shnum == 0 || shentsize < (is64 ? 64 : 40) || shstrndx >= shnum) {
                return null;
            }
            byte[] sh = read(ch, shoff, (long) shentsize * shnum, fileSize);
            if (sh == null) {
                return null;
            }
            Elf e = new Elf(ch, fileSize, is64, b, shnum);
            for (int i = 0; i < shnum; i++) {
                int p = i * shentsize;
                e.type[i] = b.s32(sh, p + 4);
                e.addr[i] = is64 ? b.u64(sh, p + 16) : b.u32(sh, p + 12);
                e.offset[i] = is64 ? b.u64(sh, p + 24) : b.u32(sh, p + 16);
                e.size[i] = is64 ? b.u64(sh, p + 32) : b.u32(sh, p + 20);
                e.link[i] = b.s32(sh, p + (is64 ? 40 : 24));
                e.entsize[i] = is64 ? b.u64(sh, p + 56) : b.u32(sh, p + 36);
                e.flags[i] = is64 ? b.u64(sh, p + 8) : b.u32(sh, p + 8);
            }
            byte[] names = e.section(shstrndx);
            if (names != null) {
                for (int i = 0; i < shnum; i++) {
                    int off = (int) b.u32(sh, i * shentsize);
                    if (off >= 0 && off < names.length) {
                        e.name[i] = new String(names, off, length(names, off), StandardCharsets.UTF_8);
                    }
                }
            }
            return e;
        }

        int first(int sectionType) {
            for (int i = 0; i < count; i++) {
                if (type[i] == sectionType) {
                    return i;
                }
            }
            return -1;
        }

        int named(String n) {
            for (int i = 0; i < count; i++) {
                if (n.equals(name[i])) {
                    return i;
                }
            }
            return -1;
        }

        /** The bytes of section {@code i}, or null when it has none in the file or lies outside it. */
        byte[] section(int i) throws IOException {
            if (i <= 0 || i >= count || type[i] == 8 /* SHT_NOBITS */ || size[i] > MAX_SECTION) {
                return null;
            }
            return read(ch, offset[i], size[i], fileSize);
        }
    }

    private static byte[] read(FileChannel ch, long offset, long length, long fileSize) throws IOException {
        if (offset < 0 || length < 0 || length > MAX_SECTION || offset > fileSize || length > fileSize - offset) {
            return null;
        }
        byte[] out = new byte[(int) length];
        ByteBuffer bb = ByteBuffer.wrap(out);
        while (bb.hasRemaining()) {
            if (ch.read(bb, offset + bb.position()) < 0) {
                return null;
            }
        }
        return out;
    }

    /** The most of a kallsyms text read whole here (/proc/kallsyms: some 10 MB). */
    private static final org.hyperprof.input.InputLimit TEXT = org.hyperprof.input.InputLimit.ofMegabytes(
            "kallsyms text", 256, "no setting: a kallsyms file this large is no symbol table");

    /** Reads a whole small text file (kallsyms) through the one input check, or null. */
    static byte[] readText(Path file) {
        try {
            return TEXT.readAll(org.hyperprof.input.InputFile.open(file, "kallsyms file"), file.toString());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
