package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.SymbolFiles;
import org.hyperprof.pipeline.SymbolTables;

/**
 * Finds each image's symbols the way perf report does, and loads them through the resolver
 * services.
 *
 * <h2>User images (format {@code elf})</h2>
 * The files perf report would try, in its order, each used only if its build-id matches the one
 * recorded (when both are known): the separate debug file the binary's {@code .gnu_debuglink}
 * names (the first of: the name itself, the binary's directory, its {@code .debug/}, the debug root
 * followed by the directory), the build-id cache's copy of the binary
 * ({@code ~/.debug/.build-id/xx/rest/elf}) and of its debug file ({@code .../debug}),
 * {@code /usr/lib/debug/<path>.debug}, {@code /usr/lib/debug/<path>},
 * {@code /usr/lib/debug/.build-id/xx/rest.debug}, and the path itself. The first with a full symbol
 * table ({@code .symtab}) gives the symbols; when none has one, the binary's dynamic symbols do.
 * PLT stubs get names ({@code name@plt}) when those symbols hold at least one function or data
 * object, as perf makes them.
 * The binary's own program headers (the cache copy or the path) turn file offsets into link-time
 * addresses ({@link ElfImage}). The vdso comes only from the build-id cache, where perf record
 * stores it.
 *
 * <h2>Kernels (format {@code kallsyms})</h2>
 * The host kernel: the file the user gave, else the build-id cache's copy of kallsyms
 * ({@code ~/.debug/[kernel.kallsyms]/<build-id>/kallsyms}), else /proc/kallsyms. A guest kernel:
 * the file given for that guest. When the recording's kernel map names its reference symbol
 * ({@code _text}) and the file has it, addresses are moved by the difference (a kernel relocated by
 * KASLR at another boot).
 *
 * <h2>JIT code</h2>
 * Anonymous memory is perf's {@code /tmp/perf-<pid>.map}; when that file exists its lines
 * ({@code START SIZE name}, hex) give the symbols.
 *
 * <p>An image without symbols keeps its samples (as perf prints them, by address) and gets one note
 * saying why.
 */
final class Symbolizer {

    /** The symbol format of user images and vdso (the ELF resolver's). */
    static final String ELF = "elf";
    /** The symbol format of kernels (the kallsyms resolver's). */
    static final String KALLSYMS = "kallsyms";

    private final SymbolTables symbolTables;
    private final ImportOptions options;
    private final RecordingInfo info;
    private final List<Dso> withoutSymbols = new ArrayList<>();

    Symbolizer(SymbolTables symbolTables, ImportOptions options, RecordingInfo info) {
        this.symbolTables = symbolTables;
        this.options = options;
        this.info = info;
    }

    /** Whether the resolving thread is waiting for symbols a loader is still reading. */
    volatile boolean waiting;

    /** Images whose symbols were looked for and not found, in the order met. */
    List<Dso> withoutSymbols() {
        return withoutSymbols;
    }

    /**
     * Looks for the image's symbols once (or takes what a {@link #prefetch} found); afterwards
     * {@code table} is set or {@code why} says why not. Called on the resolving thread only.
     */
    void look(Dso dso) {
        java.util.concurrent.Future<?> pending = dso.prefetch;
        if (pending != null) {
            try {
                waiting = !pending.isDone();
                pending.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException e) {
                dso.table = null;
                dso.why = "loading its symbols failed: " + e.getCause();
            }
            waiting = false;
            dso.prefetch = null;
        } else {
            lookNow(dso);
        }
        dso.looked = true;
        if (dso.kind == Dso.Kind.KERNEL && dso.loaded != null) {
            relocate(dso);
        }
        if (dso.table == null && dso.why != null) {
            withoutSymbols.add(dso);
        }
    }

    /**
     * A kernel's relocation: when the recording's kernel map names its reference symbol
     * ({@code _text}) at another address than the kallsyms file does, addresses move by the
     * difference. Done when the kernel is first needed, after its map was read.
     */
    private void relocate(Dso dso) {
        if (dso.refSymbol == null || dso.refAddress == 0) {
            return;
        }
        SymbolTables.Entry loaded = dso.loaded;
        String refName = dso.refSymbol;
        // The reference symbol may be an alias the table dropped: look for it in the file's text.
        Long found = loaded.derived("ref:" + refName, () -> {
            byte[] text = text(loaded, dso.kallsymsFile);
            long a = text == null ? -1 : PerfNaming.kallsymsAddress(text, refName);
            return a == -1 ? null : a;
        });
        if (found == null) {
            // perf computes the relocation from this symbol; without it, it names a kernel address only
            // where a symbol starts exactly. The import names none, and says so of the recording.
            dso.table = null;
            dso.why = "the recording's kernel map names the reference symbol '" + refName + "', which the kernel"
                    + " symbols do not hold: the import names none of its addresses";
            relocationNote = "the kernel's map record names its reference symbol '" + refName
                    + "', which the kernel symbols do not hold (perf record writes _text): kernel samples are left"
                    + " unnamed, where perf report names those at a symbol's exact start; the record or the kernel"
                    + " symbols given are not this recording's";
            return;
        }
        dso.delta = dso.refAddress - found;
        if (dso.delta % 4096 != 0 || dso.delta >= 1L << 32 || dso.delta <= -(1L << 32)) {
            relocationNote = "the kernel's map record places its reference symbol " + refName + " at 0x"
                    + Long.toHexString(dso.refAddress) + ", 0x" + Long.toHexString(found) + " in the kernel symbols:"
                    + " a relocation of " + dso.delta + " bytes, which no boot makes (it is whole pages within 4 GB);"
                    + " the record is corrupt, and kernel samples may be named differently from perf report";
        }
    }

    /** Why the kernel's relocation is doubtful, or null. */
    volatile String relocationNote;

    /**
     * The separate debug file a binary's {@code .gnu_debuglink} names, where perf looks for it, in
     * its order: the name itself (from the working directory), the binary's directory, its
     * {@code .debug} subdirectory, and the debug root followed by the binary's directory. The first
     * that exists is the one (perf tries no other when its build-id does not match); null for none.
     */
    private Path debuglink(Path binary, String name) {
        Path dir = binary.toAbsolutePath().getParent();
        List<Path> places = new ArrayList<>();
        places.add(Path.of(name));
        if (dir != null) {
            places.add(dir.resolve(name));
            places.add(dir.resolve(".debug").resolve(name));
            if (options.debugRoot() != null) {
                places.add(Path.of(options.debugRoot() + dir.toString()).resolve(name));
            }
        }
        for (Path p : places) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Starts looking for an image's symbols on a loader thread, while the recording is read: the
     * kernel's kallsyms and the images the build-id table lists are met by nearly every import.
     * Two loaders: the kernel's table (the largest) loads on one while the images load on the
     * other, so the resolving thread waits for the slower of the two, not for their sum.
     */
    void prefetch(Dso dso) {
        if (dso.looked || dso.prefetch != null) {
            return;
        }
        if (loader == null) {
            loader = java.util.concurrent.Executors.newFixedThreadPool(LOADERS, r -> {
                Thread t = new Thread(r, "hyperprof-perf-symbols");
                t.setDaemon(true);
                return t;
            });
        }
        dso.prefetch = loader.submit(() -> lookNow(dso));
        prefetched.add(dso);
    }

    private final List<Dso> prefetched = new ArrayList<>();

    /** Whether symbols asked for with {@link #prefetch} are still being loaded (resolving them would wait). */
    boolean loading() {
        for (Dso d : prefetched) {
            java.util.concurrent.Future<?> f = d.prefetch;
            if (f != null && !f.isDone()) {
                return true;
            }
        }
        return false;
    }

    /** Stops the loader thread (symbols not needed by then are not looked for). */
    void close() {
        if (loader != null) {
            loader.shutdownNow();
        }
    }

    private java.util.concurrent.ExecutorService loader;
    private static final int LOADERS = 2;

    private void lookNow(Dso dso) {
        try {
            switch (dso.kind) {
                case FILE -> elf(dso, false);
                case VDSO -> elf(dso, true);
                case KERNEL -> kernel(dso);
                case ANON -> jitMap(dso);
                default -> dso.why = null;
            }
        } catch (SymbolFileException | SymbolTables.NoResolverException | IOException | RuntimeException e) {
            dso.table = null;
            dso.why = e.getMessage();
        }
        if (dso.table != null) {
            dso.symbolIds = new int[dso.table.size()];
            Arrays.fill(dso.symbolIds, -1);
        }
    }

    // ---------------------------------------------------------------- ELF

    private record Candidate(Path path, boolean binary) {
    }

    private void elf(Dso dso, boolean vdso) throws SymbolFileException, SymbolTables.NoResolverException,
            IOException {
        String buildId = dso.buildId;
        Path original = vdso ? null : Path.of(dso.name);
        ElfImage originalImage = null;
        String originalProblem = null;
        if (original != null && Files.isRegularFile(original)) {
            try {
                originalImage = ElfImage.read(original);
            } catch (ElfImage.NotElf e) {
                originalProblem = original + ": " + e.getMessage();
            }
            if (buildId == null && originalImage != null) {
                // No build-id recorded (pipe mode): the file's own locates its debug file, as perf does.
                buildId = originalImage.buildId;
            }
        }
        List<Candidate> candidates = new ArrayList<>();
        Path debuglink = originalImage != null && originalImage.debuglink != null
                ? debuglink(original, originalImage.debuglink) : null;
        if (debuglink != null) {
            candidates.add(new Candidate(debuglink, false));
        }
        Path cacheDir = null;
        if (buildId != null && buildId.length() > 2 && options.buildIdCache() != null) {
            cacheDir = options.buildIdCache().resolve(".build-id").resolve(buildId.substring(0, 2))
                    .resolve(buildId.substring(2));
            candidates.add(new Candidate(cacheDir.resolve(vdso ? "vdso" : "elf"), true));
            if (!vdso) {
                candidates.add(new Candidate(cacheDir.resolve("debug"), false));
            }
        }
        if (!vdso && options.debugRoot() != null && dso.name.startsWith("/")) {
            candidates.add(new Candidate(Path.of(options.debugRoot() + dso.name + ".debug"), false));
            candidates.add(new Candidate(Path.of(options.debugRoot() + dso.name), false));
        }
        if (!vdso && buildId != null && buildId.length() > 2 && options.debugRoot() != null) {
            candidates.add(new Candidate(options.debugRoot().resolve(".build-id").resolve(buildId.substring(0, 2))
                    .resolve(buildId.substring(2) + ".debug"), false));
        }
        if (original != null) {
            candidates.add(new Candidate(original, true));
        }
        ElfImage symbols = null;
        ElfImage binary = null;
        List<String> mismatched = new ArrayList<>();
        for (Candidate c : candidates) {
            if (!Files.isRegularFile(c.path())) {
                continue;
            }
            ElfImage image;
            if (c.path().equals(original)) {
                image = originalImage;
                if (image == null) {
                    continue;
                }
            } else {
                try {
                    image = ElfImage.read(c.path());
                } catch (ElfImage.NotElf e) {
                    continue;
                }
            }
            if (buildId != null && image.buildId != null && !image.buildId.equals(buildId)) {
                mismatched.add(c.path() + " (build-id " + image.buildId + ")");
                continue;
            }
            if (c.binary() && binary == null) {
                binary = image;
            }
            if (symbols == null && image.hasSymtab) {
                symbols = image;
            }
        }
        if (symbols == null) {
            symbols = binary;
        }
        if (symbols == null) {
            StringBuilder why = new StringBuilder();
            if (vdso) {
                why.append("the vdso is read from perf's build-id cache, ").append(cacheDir == null
                        ? "but the recording gives no build-id for it" : "and " + cacheDir + "/vdso is not there");
            } else if (!mismatched.isEmpty()) {
                why.append("the recorded build-id ").append(buildId).append(" matches none of ")
                        .append(String.join(", ", mismatched)).append(": the file changed since the recording");
            } else if (originalProblem != null) {
                why.append(originalProblem);
            } else {
                why.append("no file: ").append(dso.name).append(" is not on this machine")
                        .append(buildId != null ? " and no copy with build-id " + buildId + " is in " + cacheDir : "");
            }
            dso.why = why.toString();
            return;
        }
        dso.layout = binary != null ? binary : symbols;
        if (dso.buildId == null) {
            dso.buildId = buildId;
        }
        List<SymbolTable> fallback = new ArrayList<>();
        SymbolTables.Entry loaded = null;
        try {
            loaded = symbolTables.entry(ELF, SymbolFiles.source(dso.name, ELF, symbols.path), null);
            dso.table = loaded.table();
            Path symbolFile = symbols.path;
            SymbolTable functions = loaded.table();
            String name = dso.name;
            // perf's names, the symbols without size and the labels, from one reading of the symbols.
            PerfNaming.ElfExtras extras = loaded.derived("elf-extras",
                    () -> PerfNaming.elfExtras(symbolFile, functions, name));
            dso.perfNames = extras.names();
            dso.zeroSized = extras.zeroSized();
            dso.stretchedEnds = extras.stretchedEnds();
            SymbolTable labels = extras.labels();
            if (labels != null) {
                fallback.add(labels);
            }
        } finally {
            // perf names PLT stubs only when the image gave it at least one symbol (dso__load makes
            // them after dso__load_sym, and only when that loaded one): a loaded function is one;
            // without one, the symbol table is read again for a data object or a label.
            SymbolTable plt = null;
            if (binary != null
                    && (dso.table != null && dso.table.size() > 0 || PerfNaming.loadsAnySymbol(symbols.path))) {
                plt = PerfNaming.pltSymbols(binary.path, dso.name);
                if (plt != null) {
                    fallback.add(plt);
                }
            }
            dso.fallback = fallback.toArray(new SymbolTable[0]);
            dso.fallbackIds = new int[dso.fallback.length][];
            for (int i = 0; i < dso.fallback.length; i++) {
                dso.fallbackIds[i] = new int[dso.fallback[i].size()];
                Arrays.fill(dso.fallbackIds[i], -1);
            }
            extensions(dso);
            if (loaded != null) {
                // perf's tree of this file's symbols and these stubs, built once per loaded table.
                Path symbolFile = symbols.path;
                SymbolTable stubs = plt;
                overlaps(dso, loaded.derived("perf-tree " + (plt != null ? binary.path : ""),
                        () -> PerfNaming.overlaps(symbolFile, stubs)), plt);
            }
        }
    }

    /**
     * Takes perf's answers where its symbols overlap, each as the table symbol or fallback symbol
     * (label, PLT stub) that starts where perf's does, so that a symbol keeps one session id
     * however it was found.
     */
    private static void overlaps(Dso dso, PerfNaming.TreeAnswers answers, SymbolTable plt) {
        if (answers == null) {
            return;
        }
        int n = answers.from().length;
        int[] table = new int[n];
        int[] fallback = new int[n];
        SymbolTable t = dso.table;
        for (int r = 0; r < n; r++) {
            table[r] = -1;
            fallback[r] = -1;
            int origin = answers.origin()[r];
            if (origin == -1) {
                continue;
            }
            long start = answers.symbolStart()[r];
            String name = answers.name()[r];
            if (origin >= 0) {
                int i = t.lookup(start);
                if (i >= 0 && t.start(i) == start) {
                    table[r] = i;
                    continue;
                }
            }
            for (int k = 0; k < dso.fallback.length && fallback[r] < 0; k++) {
                SymbolTable f = dso.fallback[k];
                if (origin < -1 && f != plt) {
                    continue;
                }
                int i = origin < -1 ? -2 - origin : f.lookup(start);
                if (i >= 0 && i < f.size() && f.start(i) == start && f.name(i).equals(name)) {
                    fallback[r] = k << 24 | i;
                }
            }
            if (fallback[r] < 0) {
                // A symbol only perf's tree has here (a data object, a label the tables left out).
                SymbolTable own = new SymbolTable(dso.name, new long[] {start}, new long[] {1},
                        new String[] {name}, new String[1]);
                SymbolTable[] grown = Arrays.copyOf(dso.fallback, dso.fallback.length + 1);
                grown[grown.length - 1] = own;
                int[][] ids = Arrays.copyOf(dso.fallbackIds, grown.length);
                ids[grown.length - 1] = new int[] {-1};
                dso.fallback = grown;
                dso.fallbackIds = ids;
                fallback[r] = (grown.length - 1) << 24;
            }
        }
        dso.overlapFrom = answers.from();
        dso.overlapTo = answers.to();
        dso.overlapTable = table;
        dso.overlapFallback = fallback;
    }

    /**
     * The ranges where perf's zero-size symbols reach beyond the table's end for them: up to the
     * next symbol of any kind (function, label, PLT stub), across section ends.
     */
    private static void extensions(Dso dso) {
        SymbolTable t = dso.table;
        boolean[] zero = dso.zeroSized;
        if (t == null || zero == null) {
            return;
        }
        List<long[]> ranges = new ArrayList<>();
        for (int i = 0; i < t.size(); i++) {
            if (!zero[i]) {
                continue;
            }
            long start = t.start(i);
            long tableEnd = start + t.symbolSize(i);
            long next = i + 1 < t.size() ? t.start(i + 1) : -1L;
            for (SymbolTable f : dso.fallback) {
                long n = nextStart(f, start);
                if (n != -1L && Long.compareUnsigned(n, next) < 0) {
                    next = n;
                }
            }
            // perf's own stretch also stops at a data object, and the last symbol reaches a page on.
            long[] stretched = dso.stretchedEnds;
            if (stretched != null && stretched[i] != -1L && Long.compareUnsigned(stretched[i], next) < 0) {
                next = stretched[i];
            }
            if (next != -1L && Long.compareUnsigned(tableEnd, next) < 0) {
                ranges.add(new long[] {tableEnd, next, i});
            }
        }
        ranges.sort((a, b) -> Long.compareUnsigned(a[0], b[0]));
        dso.extensionStart = new long[ranges.size()];
        dso.extensionEnd = new long[ranges.size()];
        dso.extensionIndex = new int[ranges.size()];
        for (int k = 0; k < ranges.size(); k++) {
            dso.extensionStart[k] = ranges.get(k)[0];
            dso.extensionEnd[k] = ranges.get(k)[1];
            dso.extensionIndex[k] = (int) ranges.get(k)[2];
        }
    }

    /** The start of the first symbol of {@code t} above {@code address}, or -1 (all ones) for none. */
    static long nextStart(SymbolTable t, long address) {
        int lo = 0;
        int hi = t.size() - 1;
        long found = -1L;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(t.start(mid), address) > 0) {
                found = t.start(mid);
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found;
    }

    // ---------------------------------------------------------------- kernels

    private void kernel(Dso dso) throws SymbolFileException, SymbolTables.NoResolverException, IOException {
        Path file;
        if (dso.machinePid == -1) {
            file = options.kallsyms();
            if (file == null) {
                String id = dso.buildId;
                Path cached = id == null || options.buildIdCache() == null ? null
                        : options.buildIdCache().resolve("[kernel.kallsyms]").resolve(id).resolve("kallsyms");
                file = cached != null && Files.isRegularFile(cached) ? cached : Path.of("/proc/kallsyms");
            }
        } else {
            file = options.guestKallsyms(dso.machinePid);
            if (file == null) {
                dso.why = "no kallsyms was given for guest " + dso.machinePid + " (perf kvm's --guestkallsyms):"
                        + " give a copy of the guest's /proc/kallsyms with --guest-kallsyms " + dso.machinePid
                        + "=<file>";
                return;
            }
        }
        // A table not loaded yet: perf's names are scanned for on a thread of their own while the
        // resolver parses the table (the two together are most of a cold import's wait).
        java.util.concurrent.CompletableFuture<PerfNaming.KallsymsRuns> runs = null;
        byte[] early = null;
        if (Files.isRegularFile(file) && !symbolTables.cached(KALLSYMS, file)) {
            early = PerfNaming.readText(file);
            if (early != null) {
                byte[] text = early;
                runs = java.util.concurrent.CompletableFuture.supplyAsync(() -> PerfNaming.kallsymsRuns(text), r -> {
                    Thread th = new Thread(r, "hyperprof-perf-kallsyms-names");
                    th.setDaemon(true);
                    th.start();
                });
            }
        }
        SymbolTables.Entry loaded = symbolTables.entry(KALLSYMS, SymbolFiles.source(dso.name, KALLSYMS, file), early);
        SymbolTable t = loaded.table();
        dso.kallsymsFile = file;
        if (early != null) {
            // The kernel map's reference symbol (perf record names _text) while the bytes are at hand.
            byte[] text = early;
            loaded.derived("ref:_text", () -> {
                long a = PerfNaming.kallsymsAddress(text, "_text");
                return a == -1 ? null : a;
            });
        }
        dso.table = t;
        byte[] scanned = early;
        Path kallsyms = file;
        java.util.concurrent.CompletableFuture<PerfNaming.KallsymsRuns> found = runs;
        dso.perfNames = loaded.derived("perf-names", () -> {
            if (found != null) {
                return PerfNaming.kallsymsNames(scanned, found.join(), t);
            }
            byte[] text = text(loaded, kallsyms);
            return text == null ? null : PerfNaming.kallsymsNames(text, t);
        });
        dso.loaded = loaded;
        if (dso.machinePid == -1 && options.kallsyms() == null && file.startsWith("/proc") && dso.buildId != null) {
            String running = runningKernelBuildId();
            if (running != null && !running.equals(dso.buildId)) {
                dso.why = null;
                mismatchNote = "the recording's kernel has build-id " + dso.buildId + " but the running kernel's is "
                        + running + ": kernel symbols from /proc/kallsyms may be wrong; give the recorded kernel's"
                        + " kallsyms with --kallsyms";
            }
        }
    }

    /** A kallsyms file's text: the bytes the tables read to key it (procfs), else read now; null when unreadable. */
    private static byte[] text(SymbolTables.Entry loaded, Path file) {
        byte[] held = loaded.content();
        return held != null ? held : PerfNaming.readText(file);
    }

    /** A note about kernel symbols that were loaded but may not fit the recording, or null. */
    volatile String mismatchNote;

    /** The running kernel's build-id from /sys/kernel/notes, or null. */
    private static String runningKernelBuildId() {
        try {
            return ElfImage.buildId(new Bytes(false), Files.readAllBytes(Path.of("/sys/kernel/notes")));
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- JIT maps

    /** {@code /tmp/perf-<pid>.map}: lines of hex start, hex size, name (the name may hold blanks). */
    private void jitMap(Dso dso) throws IOException {
        if (options.jitMapDir() == null) {
            dso.why = "JIT symbol maps are not looked for";
            return;
        }
        Path file = options.jitMapDir().resolve(Dso.shortName(dso.name));
        if (!Files.isRegularFile(file)) {
            dso.why = "anonymous (JIT) memory: " + file + " does not exist (the JIT writes it, e.g. java with"
                    + " -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)";
            return;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        SymbolRows rows = new SymbolRows(lines.size());
        for (String line : lines) {
            String[] f = line.trim().split("\\s+", 3);
            if (f.length < 3) {
                continue;
            }
            try {
                long start = Long.parseUnsignedLong(strip0x(f[0]), 16);
                long size = Long.parseUnsignedLong(strip0x(f[1]), 16);
                if (size > 0) {
                    rows.add(start, size, f[2]);
                }
            } catch (NumberFormatException e) {
                // Not a symbol line; perf skips such lines too.
            }
        }
        if (rows.count == 0) {
            dso.why = file + " holds no symbol lines (START SIZE name)";
            return;
        }
        rows.sortByStart(); // of lines at one address the later names it: code regenerated there
        dso.table = rows.table(dso.name);
    }

    private static String strip0x(String s) {
        return s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
    }

    /** The recording's information (its build-ids), for the images made from it. */
    RecordingInfo info() {
        return info;
    }
}
