package org.hyperprof.source.perf;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * One image of a machine as perf names it (a dso): a file, the vdso, a kernel, or memory with no
 * file behind it. Holds its symbols once they are looked for, and the session ids of the symbols
 * samples hit (assigned on first hit).
 */
final class Dso {

    enum Kind {
        /** A file on disk (program or shared object): addresses are file offsets. */
        FILE,
        /** The kernel's vdso: an ELF image perf keeps in its build-id cache. */
        VDSO,
        /** A kernel (host or guest) resolved with kallsyms: addresses are absolute. */
        KERNEL,
        /** Anonymous memory (JIT code): perf names it /tmp/perf-PID.map; addresses are absolute. */
        ANON,
        /** [heap], [stack] and the like: no file, no symbols; addresses are absolute. */
        NO_FILE,
        /** Addresses that no mapping covers, or a mode with no images ([unknown], [hypervisor]). */
        NONE
    }

    final String name;
    final String shortName;
    final Kind kind;
    final int domain;
    final ImageKind imageKind;
    /** The machine's pid as perf kvm numbers machines (-1 = host). */
    final int machinePid;
    String buildId;

    // Symbols, once looked for.
    boolean looked;
    /** Symbols being looked for on the loader thread, or null. */
    java.util.concurrent.Future<?> prefetch;
    SymbolTable table;
    /** Kernel: the symbols its table's lookups found last ({@link Machines}' kernel lookups), or null. */
    SymbolMemo symbolMemo;
    ElfImage layout;
    /** Kernel: the kallsyms file its table came from, for notes. */
    java.nio.file.Path kallsymsFile;
    /** Kernel: the loaded kallsyms, for its relocation once the kernel map is known. */
    org.hyperprof.pipeline.SymbolTables.Entry loaded;
    /** Kernel: the relocation between recorded addresses and the kallsyms file's (recorded - file). */
    long delta;
    /** Kernel: the recorded address of the relocation reference symbol, or 0 when no kernel MMAP named it. */
    long refAddress;
    String refSymbol;
    /** perf's name for a table symbol where it differs from the table's ({@link PerfNaming}), or null. */
    String[] perfNames;
    /**
     * Symbols looked up where the table has none, in order: the file's labels, its PLT stubs
     * ({@code name@plt}); and the session ids of those hit.
     */
    SymbolTable[] fallback = new SymbolTable[0];
    int[][] fallbackIds = new int[0][];
    /** Table symbols with no size in the file, which perf stretches to the next symbol of any kind; or null. */
    boolean[] zeroSized;
    /** Where perf's stretch ends each symbol with no size (-1 for a sized one), or null. */
    long[] stretchedEnds;
    /**
     * Where perf's stretched zero-size symbols reach past the table's end for them: sorted
     * {@code [extensionStart, extensionEnd)} ranges and the table index each belongs to.
     */
    long[] extensionStart = new long[0];
    long[] extensionEnd = new long[0];
    int[] extensionIndex = new int[0];
    /**
     * Where perf's symbol tree decides the name because symbols overlap
     * ({@link PerfNaming#overlaps}): sorted {@code [overlapFrom, overlapTo)} ranges, each answered
     * by table symbol {@code overlapTable} (when not negative), else by {@code fallback[k]}'s
     * symbol {@code overlapFallback = k << 24 | index} (when not negative), else by no symbol.
     */
    long[] overlapFrom = new long[0];
    long[] overlapTo = new long[0];
    int[] overlapTable = new int[0];
    int[] overlapFallback = new int[0];
    int[] symbolIds;
    int[] imageOfSymbol;
    int imageId = -1;
    /** Mappings met before the session named the image, or null ({@link Machines}' mappings for the session). */
    PendingMappings pendingMappings;
    /** A number unique among the import's images (0 until the image cache first needs it). */
    int serial;
    String why;

    Dso(String name, Kind kind, int domain, ImageKind imageKind, int machinePid) {
        this.name = name;
        this.shortName = shortName(name);
        this.kind = kind;
        this.domain = domain;
        this.imageKind = imageKind;
        this.machinePid = machinePid;
    }

    /** Whether addresses in it are used as they are (not made file offsets). */
    boolean identity() {
        return kind != Kind.FILE && kind != Kind.VDSO;
    }

    /**
     * The offset a mapping of this image at {@code start} with the record's {@code pgoff} maps its
     * first byte to (perf's map__new): the address itself where addresses are used as they are, 0
     * for the vdso whatever the record says (the kernel maps it whole), else the record's pgoff.
     */
    long mappedOffset(long start, long pgoff) {
        return identity() ? start : kind == Kind.VDSO ? 0 : pgoff;
    }

    /**
     * The name perf report prints: a file's base name, the bracketed name as it is, and for a JIT's
     * {@code /tmp/perf-PID.map} (perf's dso__set_basename) {@code [JIT] tid PID}.
     */
    static String shortName(String name) {
        if (name.equals("[hypervisor]")) {
            return "[unknown]"; // perf has no map for hypervisor addresses
        }
        if (name.startsWith("[")) {
            return name;
        }
        if (name.startsWith("/tmp/perf-")) {
            int end = 10;
            if (end < name.length() && (name.charAt(end) == '-' || name.charAt(end) == '+')) {
                end++;
            }
            while (end < name.length() && Character.isDigit(name.charAt(end)) && end < 21) {
                end++;
            }
            if (end > 10 && Character.isDigit(name.charAt(end - 1))) {
                try {
                    return "[JIT] tid " + Integer.parseInt(name.substring(10, end));
                } catch (NumberFormatException e) {
                    // Beyond an int: perf's sscanf gives no tid either; the base name below.
                }
            }
        }
        // POSIX basename(), which perf uses: "" is ".", trailing slashes go, "/" stays.
        int end = name.length();
        while (end > 1 && name.charAt(end - 1) == '/') {
            end--;
        }
        if (end == 0) {
            return ".";
        }
        int slash = name.lastIndexOf('/', end - 1);
        return slash >= 0 && end > 1 ? name.substring(slash + 1, end) : name.substring(0, end);
    }

    @Override
    public String toString() {
        return name;
    }
}
