package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hyperprof's import of real recordings, made now with {@code perf record -g} (software cpu-clock
 * events: there may be no hardware PMU), against what {@code perf report} prints for the same
 * files: every row of the flat profile ({@code --no-children --sort dso,sym -n}) with the same
 * sample count, every row of the children view ({@code --children}) with the same percentage, the
 * same total. Skipped when perf (Debian's linux-perf) or gcc is not installed.
 */
class AgreementWithPerfTest {

    @TempDir
    static Path dir;
    static Path busy;

    @BeforeAll
    static void tools() throws Exception {
        busy = PerfTool.programToRecord(dir, "busy.c", "busy");
    }

    private static PerfImport.Result importFile(Path file) throws PerfDataException {
        return importFile(file, new ArrayList<>());
    }

    /** Imports, and lists every sample's frames as perf script prints them ("symbol (dso)"). */
    private static PerfImport.Result importFile(Path file, List<List<String>> stacks) throws PerfDataException {
        try (PerfDataReader r = PerfDataReader.open(file)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults(), true);
            imp.tap(batch -> {
                SessionDictionary d = imp.dictionary();
                for (int i = 0; i < batch.size; i++) {
                    List<String> frames = new ArrayList<>();
                    // perf script prints the callchain, which starts with the sample's own address,
                    // or the address alone when there is no callchain.
                    if (batch.has(i, SampleBatch.CHAIN_FROM_PC) || batch.chainLength(i) == 0) {
                        frames.add(name(d, batch.image[i], batch.symbol[i]));
                    }
                    for (int c = batch.chainStart[i]; c < batch.chainStart[i + 1]; c++) {
                        frames.add(name(d, batch.chainImage[c], batch.chainSymbol[c]));
                    }
                    stacks.add(frames);
                }
            });
            return imp.run(r, null, "perf.data", null, false);
        }
    }

    private static String name(SessionDictionary d, int image, int symbol) {
        return (symbol < 0 ? "[unknown]" : d.symbolName(symbol)) + " (" + d.imageName(image) + ")";
    }

    /** Every sample's frames, symbol and image each, equal perf script's, sample by sample. */
    private static void assertSameStacks(Path recording) throws Exception {
        List<List<String>> ours = new ArrayList<>();
        importFile(recording, ours);
        List<List<String>> perf = PerfTool.stacks(PerfTool.run(List.of("perf", "script", "-i", recording.toString(),
                "-F", "tid,ip,sym,dso"), null));
        assertEquals(perf.size(), ours.size(), "samples perf script prints");
        int differing = 0;
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < perf.size(); i++) {
            if (!perf.get(i).equals(ours.get(i))) {
                if (differing++ < 3) {
                    first.append("\n  sample ").append(i).append(": perf ").append(perf.get(i)).append("\n    hyperprof ")
                            .append(ours.get(i));
                }
            }
        }
        assertEquals(0, differing, "samples whose frames differ from perf script's:" + first);
    }

    private static Map<PerfTool.Key, Long> flatOf(PerfImport.Result result) {
        return PerfTool.rows(result);
    }

    /** Our children rows as perf prints them: a key our report holds more than once (same name, several symbols) summed. */
    private static Map<PerfTool.Key, PerfTool.Children> childrenOf(PerfImport.Result result) {
        Map<PerfTool.Key, Long> period = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        Map<PerfTool.Key, Integer> count = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        PerfReport report = result.report();
        for (PerfReport.Row r : report.rows()) {
            PerfTool.Key k = new PerfTool.Key(PerfReport.shortName(r.image()), r.level(), r.symbol());
            period.merge(k, r.childrenPeriod(), Long::sum);
            count.merge(k, 1, Integer::sum);
        }
        Map<PerfTool.Key, PerfTool.Children> rows = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        period.forEach((k, p) -> {
            String text = report.percentOfTotal(p);
            rows.put(k, new PerfTool.Children(text, Double.parseDouble(text.substring(0, text.length() - 1)),
                    count.get(k)));
        });
        return rows;
    }

    private static <V> Map<PerfTool.Key, V> sorted(Map<PerfTool.Key, V> m) {
        Map<PerfTool.Key, V> s = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        s.putAll(m);
        return s;
    }

    private static PerfImport.Result assertAgrees(Path recording) throws Exception {
        PerfImport.Result result = importFile(recording);
        assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
        assertTrue(result.accounting().balanced(), result.accounting().line());

        Map<PerfTool.Key, Long> perfFlat = PerfTool.flat(PerfTool.report(recording, "--no-children", "--sort",
                "dso,sym", "-n", "-g", "none"));
        long perfTotal = perfFlat.values().stream().mapToLong(Long::longValue).sum();
        assertEquals(perfTotal, result.accounting().delivered(), "samples perf report counts");
        assertSameRows("flat profile rows (dso, sym -> samples)", sorted(perfFlat), flatOf(result));

        Map<PerfTool.Key, PerfTool.Children> perfChildren = PerfTool.children(PerfTool.report(recording,
                "--children", "--sort", "dso,sym", "-n", "-g", "none"));
        // A frame perf prints in several rows is compared as their sum (PerfTool.Children).
        assertSameChildren("call-graph totals (dso, sym -> children %)", perfChildren, childrenOf(result));
        return result;
    }

    /** Fails with the sample counts that differ, not the whole maps. */
    static void assertSameRows(String what, Map<PerfTool.Key, Long> perf, Map<PerfTool.Key, Long> ours) {
        PerfTool.Rows<Long> rows = PerfTool.foldSplitLetters(perf, ours, Long::sum);
        assertSameRows(what, rows.perf(), rows.ours(), Object::equals);
    }

    /** Fails with the children rows that differ (see {@link PerfTool.Children#agrees}). */
    static void assertSameChildren(String what, Map<PerfTool.Key, PerfTool.Children> perf,
            Map<PerfTool.Key, PerfTool.Children> ours) {
        PerfTool.Rows<PerfTool.Children> rows = PerfTool.foldSplitLetters(perf, ours, PerfTool.Children::plus);
        assertSameRows(what, rows.perf(), rows.ours(), PerfTool.Children::agrees);
    }

    /** Fails with the rows that differ; {@code agree} says whether perf's value and ours are the same. */
    private static <V> void assertSameRows(String what, Map<PerfTool.Key, V> perf, Map<PerfTool.Key, V> ours,
            java.util.function.BiPredicate<V, V> agree) {
        StringBuilder diff = new StringBuilder();
        for (Map.Entry<PerfTool.Key, V> e : perf.entrySet()) {
            V mine = ours.get(e.getKey());
            if (mine == null || !agree.test(e.getValue(), mine)) {
                diff.append("\n  ").append(e.getKey()).append(": perf ").append(e.getValue()).append(", hyperprof ")
                        .append(mine);
            }
        }
        for (Map.Entry<PerfTool.Key, V> e : ours.entrySet()) {
            if (!perf.containsKey(e.getKey())) {
                diff.append("\n  ").append(e.getKey()).append(": perf -, hyperprof ").append(e.getValue());
            }
        }
        assertTrue(diff.length() == 0, what + " differ from perf report's (" + perf.size() + " rows):" + diff);
    }


    /**
     * A C++ program's names (a class template's member in a namespace, a function template) are
     * shown as perf report shows them, demangled to the short form (no parameters, no return type),
     * the same names as libstdc++'s; with --no-demangle as the images have them.
     */
    @Test
    void cxxNamesAreDemangledAsPerfReportShowsThem() throws Exception {
        assumeTrue(PerfTool.runs("g++", "--version"), "g++ is not installed");
        Path exe = PerfTool.compile(dir, "templates.cpp", "templates");
        Path data = PerfTool.record(dir.resolve("templates.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(exe.toString()));
        Map<PerfTool.Key, Long> rows = flatOf(assertAgrees(data));
        assertTrue(rows.getOrDefault(new PerfTool.Key("templates", '.', "geo::Grid<double>::sum"), 0L) > 0, rows.toString());
        assertTrue(rows.getOrDefault(new PerfTool.Key("templates", '.', "tw<int>"), 0L) > 0, rows.toString());
        PerfImport.Result raw;
        try (PerfDataReader r = PerfDataReader.open(data)) {
            raw = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withDemangle(false), false).run(r, null,
                    "perf.data", null, false);
        }
        Map<PerfTool.Key, Long> perfRaw = sorted(PerfTool.flat(PerfTool.report(data, "--no-demangle", "--no-children",
                "--sort", "dso,sym", "-n", "-g", "none")));
        assertSameRows("flat rows with --no-demangle", perfRaw, flatOf(raw));
        assertTrue(flatOf(raw).keySet().stream().anyMatch(k -> k.toString().contains("_ZNK3geo4GridIdE3sumEi")),
                flatOf(raw).toString());
    }

    @Test
    void fileRecordingOfAProgramWithLibcKernelForkAndExecMatchesPerfReport() throws Exception {
        Path data = PerfTool.record(dir.resolve("busy.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(busy.toString(), "3000", "/bin/sh"));
        assertAgrees(data);
    }

    /**
     * A stripped program whose {@code .gnu_debuglink} names its debug file: perf report finds the
     * file next to the program and in its {@code .debug} directory, and so does the import.
     */
    @Test
    void aStrippedProgramsSymbolsComeFromTheDebugFileItsDebuglinkNames() throws Exception {
        assumeTrue(PerfTool.objcopyAvailable(), "objcopy (binutils) is not installed");
        Path d = java.nio.file.Files.createDirectories(dir.resolve("debuglink"));
        Path exe = PerfTool.compile(d, "busy.c", "busy-linked", "-g");
        Path debug = d.resolve("busy-linked.debug");
        PerfTool.splitDebug(exe, debug);
        Path data = PerfTool.record(d.resolve("linked.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(exe.toString(), "1500"));
        PerfTool.Key squares = new PerfTool.Key("busy-linked", '.', "squares");
        assertTrue(flatOf(assertAgrees(data)).getOrDefault(squares, 0L) > 0, "squares() named from the debug file");

        Path inDotDebug = java.nio.file.Files.createDirectories(d.resolve(".debug")).resolve(debug.getFileName());
        java.nio.file.Files.move(debug, inDotDebug);
        assertTrue(flatOf(assertAgrees(data)).getOrDefault(squares, 0L) > 0, "squares() named from .debug/");

        // Under the debug root, by the program's directory (perf's /usr/lib/debug<dir>/<name>): a
        // root of the test's own, since perf's is a system directory.
        Path root = dir.resolve("debug-root");
        Path underRoot = java.nio.file.Files.createDirectories(Path.of(root + d.toAbsolutePath().toString()))
                .resolve(debug.getFileName());
        java.nio.file.Files.move(inDotDebug, underRoot);
        try (PerfDataReader reader = PerfDataReader.open(data)) {
            ImportOptions o = ImportOptions.defaults();
            PerfImport.Result r = new PerfImport(Wiring.resolvers(), o.withSymbolDirs(o.buildIdCache(), root,
                    o.jitMapDir()), false).run(reader, null, "perf.data", null, false);
            assertTrue(flatOf(r).getOrDefault(squares, 0L) > 0, "squares() named from the debug root");
        }
    }

    /**
     * The first place perf looks for the file a debuglink names is the name itself, from the
     * working directory: run from the directory that holds it, perf report and the import (in a
     * JVM of its own, started there) name the program's functions; run from elsewhere, neither does.
     */
    @Test
    void aDebugFileInTheWorkingDirectoryIsFoundThereByPerfAndByTheImport() throws Exception {
        assumeTrue(PerfTool.objcopyAvailable(), "objcopy (binutils) is not installed");
        Path d = java.nio.file.Files.createDirectories(dir.resolve("debuglink-cwd"));
        Path work = java.nio.file.Files.createDirectories(dir.resolve("debuglink-cwd-work"));
        Path exe = PerfTool.compile(d, "busy.c", "busy-cwd", "-g");
        PerfTool.splitDebug(exe, d.resolve("busy-cwd.debug"));
        java.nio.file.Files.move(d.resolve("busy-cwd.debug"), work.resolve("busy-cwd.debug"));
        Path data = PerfTool.record(d.resolve("cwd.data"), List.of("-e", "cpu-clock", "-c", "100000"),
                List.of(exe.toString(), "1500"));
        PerfTool.Key squares = new PerfTool.Key("busy-cwd", '.', "squares");
        Map<PerfTool.Key, Long> perfThere = sorted(PerfTool.flat(PerfTool.reportIn(work, data, "--no-children",
                "--sort", "dso,sym", "-n", "-g", "none")));
        Map<PerfTool.Key, Long> oursThere = sorted(PerfTool.flat(PerfTool.javaIn(work, ImportInWorkingDirectory.class,
                data.toString())));
        assertTrue(perfThere.getOrDefault(squares, 0L) > 0, "perf names squares() from the working directory");
        assertSameRows("flat rows with the debug file in the working directory", perfThere, oursThere);
        Map<PerfTool.Key, Long> oursElsewhere = sorted(PerfTool.flat(PerfTool.javaIn(d,
                ImportInWorkingDirectory.class, data.toString())));
        assertEquals(0L, (long) oursElsewhere.getOrDefault(squares, 0L), "not found from another directory");
        assertSameRows("flat rows with the debug file elsewhere", sorted(PerfTool.flat(PerfTool.reportIn(d, data,
                "--no-children", "--sort", "dso,sym", "-n", "-g", "none"))), oursElsewhere);
    }

    /** A file of the debuglink's name from another build (another build-id) is not used, by perf or by us. */
    @Test
    void aDebugFileFromAnotherBuildIsNotUsed() throws Exception {
        assumeTrue(PerfTool.objcopyAvailable(), "objcopy (binutils) is not installed");
        Path d = java.nio.file.Files.createDirectories(dir.resolve("debuglink-other"));
        Path exe = PerfTool.compile(d, "busy.c", "busy-relinked", "-g");
        Path debug = d.resolve("busy-relinked.debug");
        PerfTool.splitDebug(exe, debug);
        Path other = PerfTool.compile(d, "busy.c", "busy-other", "-g", "-O2");
        PerfTool.run(List.of("objcopy", "--only-keep-debug", other.toString(), debug.toString()), null);
        Path data = PerfTool.record(d.resolve("relinked.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(exe.toString(), "1500"));
        PerfImport.Result r = assertAgrees(data);
        assertEquals(0L, (long) flatOf(r).getOrDefault(new PerfTool.Key("busy-relinked", '.', "squares"), 0L));
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("busy-relinked") && n.contains("build-id")),
                r.notes().toString());
    }

    /**
     * PLT stubs get names ({@code strlen@plt}) only in an image that gave perf at least one symbol:
     * a program stripped down to its imports shows them by address, like the rest of its code.
     */
    @Test
    void aProgramStrippedToItsImportsShowsItsPltStubsByAddress() throws Exception {
        Path d = java.nio.file.Files.createDirectories(dir.resolve("plt"));
        Path exe = PerfTool.compile(d, "plt.c", "plt-stripped", "-fno-builtin");
        PerfTool.run(List.of("strip", exe.toString()), null);
        Path data = PerfTool.record(d.resolve("plt.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(exe.toString(), "1000"));
        Map<PerfTool.Key, Long> flat = flatOf(assertAgrees(data));
        assertTrue(flat.keySet().stream().noneMatch(k -> k.dso().equals("plt-stripped") && k.symbol().endsWith("@plt")),
                flat.toString());
        assertTrue(flat.keySet().stream().filter(k -> k.dso().equals("plt-stripped")).count() > 1, flat.toString());
    }

    // Hand-written recordings of process busy: the callchain's context markers (PERF_CONTEXT_KERNEL,
    // PERF_CONTEXT_USER), its pid, and an address in its text.
    private static final long KERNEL_CONTEXT = -128L;
    private static final long USER_CONTEXT = -512L;
    private static final int BUSY_PID = 4711;
    private static final long BUSY_BASE = 0x555555554000L;
    private static final long IN_BUSY = BUSY_BASE + 0x1010;

    /**
     * A recording's start: the kernel's map, as every recording has it (the kernel-mode samples of
     * these tests lie outside it), and process busy with its text mapped; samples with callchains.
     */
    private static PerfDataWriter busyRecording() {
        PerfDataWriter w = new PerfDataWriter().attr(new PerfDataWriter.Attr()
                .sampleType(PerfDataWriter.IP | PerfDataWriter.TID | PerfDataWriter.TIME | PerfDataWriter.CALLCHAIN
                        | PerfDataWriter.PERIOD));
        w.mmap(1, -1, 0xffffffff81000000L, 0x1000000, 0xffffffff81000000L, "[kernel.kallsyms]_text", 0);
        w.comm(BUSY_PID, "busy", 1);
        w.mmap2(2, BUSY_PID, BUSY_BASE + 0x1000, 0x1000, 0x1000, busy.toString(), 2);
        return w;
    }

    /**
     * perf adds a sample's entries through one location, the sample's own, then its callchain from
     * the outermost frame in: a frame no mapping covers keeps the level letter of the entry before
     * it. So of a kernel sample's chain, an unmapped frame above the user part is [k] and one
     * inside it [.]. Whether a real recording shows one depends on the garbage its frame-pointer
     * walks meet; these always do.
     */
    @Test
    void anUnmappedFrameKeepsTheLevelOfTheFrameBeforeItInItsSample() throws Exception {
        long kernel = KERNEL_CONTEXT;
        long user = USER_CONTEXT;
        int pid = BUSY_PID;
        long inBusy = IN_BUSY;
        PerfDataWriter w = busyRecording();
        // Kernel-mode samples at addresses no map covers, so that no kallsyms decides anything.
        w.sample(new PerfDataWriter.Sample(1, 0x7, pid, 10, kernel, 0x7, 0x5, user, inBusy, 0x1));
        w.sample(new PerfDataWriter.Sample(2, inBusy, pid, 11, user, inBusy, 0x1, 0x3));
        w.sample(new PerfDataWriter.Sample(2, inBusy, pid, 12, user, inBusy, 0x4));
        w.sample(new PerfDataWriter.Sample(1, 0x9, pid, 13, kernel, 0x9, 0x4, user, 0x6));
        assertAgrees(w.writeFile(dir, "levels.data"));
    }

    /**
     * Garbage return addresses spread over the whole address space, as a frame-pointer walk through
     * code without frame pointers finds, met under both a kernel and a user sample. perf's address
     * order then misplaces some and prints such a frame in two rows, each with the level letter of
     * the sample that added it ([k] and [.]); Hyperprof keeps it one frame with its first letter,
     * and the rows' sum equals it (PerfTool.foldSplitLetters). A fixed seed whose recording perf
     * splits (three frames with perf 6.1), as a recording of {@code ls -lR} did.
     */
    @Test
    void aGarbageFrameThatPerfSplitsAcrossLevelLettersCountsAsOneFrame() throws Exception {
        long kernel = KERNEL_CONTEXT;
        long user = USER_CONTEXT;
        int pid = BUSY_PID;
        long inBusy = IN_BUSY;
        PerfDataWriter w = busyRecording();
        // Four clusters a quarter of the address space apart, none mapped.
        long[] garbage = new long[40];
        for (int g = 0; g < garbage.length; g++) {
            garbage[g] = switch (g % 4) {
                case 0 -> 0x6000000000L + g;
                case 1 -> 0x9000000000000000L + g * 0x1000L;
                case 2 -> 0x4000000000000010L + g;
                default -> 0xd000000000000000L + g;
            };
        }
        java.util.Random random = new java.util.Random(19);
        for (int t = 0; t < 400; t++) {
            long inner = garbage[random.nextInt(garbage.length)];
            long outer = garbage[random.nextInt(garbage.length)];
            if (random.nextBoolean()) {
                w.sample(new PerfDataWriter.Sample(1, 0x9, pid, 13 + t, kernel, 0x9, inner, user, outer));
            } else {
                w.sample(new PerfDataWriter.Sample(2, inBusy, pid, 13 + t, user, inBusy, inner, outer));
            }
        }
        assertAgrees(w.writeFile(dir, "garbage-frames.data"));
    }

    @Test
    void pipeRecordingMatchesPerfReportAndPerfScriptSampleBySample() throws Exception {
        Path data = PerfTool.recordPipe(dir.resolve("busy-pipe.data"),
                List.of("-e", "cpu-clock", "-c", "100000", "-g"), List.of(busy.toString(), "3000", "/bin/sh"));
        // perf report does not build the children view of a pipe recording: the per-sample frames
        // (perf script) check the callchains instead.
        PerfImport.Result result = importFile(data);
        Map<PerfTool.Key, Long> perfFlat = PerfTool.flat(PerfTool.report(data, "--no-children", "--sort",
                "dso,sym", "-n", "-g", "none"));
        assertSameRows("flat profile rows (dso, sym -> samples)", sorted(perfFlat), flatOf(result));
        assertSameStacks(data);
    }

    @Test
    void fileRecordingFramesMatchPerfScriptSampleBySample() throws Exception {
        Path data = PerfTool.record(dir.resolve("busy-script.data"), List.of("-e", "cpu-clock", "-c", "100000",
                "-g"), List.of(busy.toString(), "2000", "/bin/sh"));
        assertSameStacks(data);
    }

    /**
     * perf record -z compresses its ring buffers as one zstd stream cut into COMPRESSED records; a
     * small ring (-m 4 pages) wraps often, and a record that straddles the wrap straddles two
     * COMPRESSED records: the import of such a recording equals perf report's and perf script's.
     */
    @Test
    void compressedRecordingMatchesPerfReportAndPerfScriptSampleBySample() throws Exception {
        Path data = PerfTool.record(dir.resolve("busy-z.data"), List.of("-z", "-m", "4", "-e", "cpu-clock", "-c",
                "100000", "-g"), List.of(busy.toString(), "3000", "/bin/sh"));
        PerfImport.Result result = assertAgrees(data);
        assertStraddles(result);
        assertSameStacks(data);
        // The flat import without call chains, which counts straight into the report, reads it alike.
        try (PerfDataReader r = PerfDataReader.open(data)) {
            PerfImport.Result flat = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(false),
                    false).run(r, null, "perf.data", null, false);
            assertSameRows("flat profile rows of the import without call chains", flatOf(result), flatOf(flat));
        }
    }

    @Test
    void compressedPipeRecordingMatchesPerfReportAndPerfScriptSampleBySample() throws Exception {
        Path data = PerfTool.recordPipe(dir.resolve("busy-z-pipe.data"), List.of("-z", "-m", "4", "-e", "cpu-clock",
                "-c", "100000", "-g"), List.of(busy.toString(), "3000", "/bin/sh"));
        PerfImport.Result result = importFile(data);
        assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
        assertStraddles(result);
        Map<PerfTool.Key, Long> perfFlat = PerfTool.flat(PerfTool.report(data, "--no-children", "--sort",
                "dso,sym", "-n", "-g", "none"));
        assertSameRows("flat profile rows (dso, sym -> samples)", sorted(perfFlat), flatOf(result));
        assertSameStacks(data);
    }

    private static void assertStraddles(PerfImport.Result result) {
        assertTrue(result.counters().getOrDefault("records.COMPRESSED", 0L) > 1, result.counters().toString());
        assertTrue(result.counters().getOrDefault("records.compressed.cut", 0L) > 0,
                "a record straddles two COMPRESSED records: " + result.counters());
    }

    /**
     * --call-graph dwarf: samples carry a copy of their user stack, which perf report unwinds and
     * the import does not. The import says how many it did not unwind, as many as perf's own dump
     * of the samples shows with a stack in use, and every sample's own function is counted as perf
     * report's flat view counts it.
     */
    @Test
    void dwarfRecordingSaysHowManyUserStacksWereNotUnwoundAndItsFlatProfileMatchesPerfReport() throws Exception {
        Path data = PerfTool.record(dir.resolve("busy-dwarf.data"), List.of("--call-graph", "dwarf", "-e",
                "cpu-clock", "-c", "100000"), List.of(busy.toString(), "1000", "/bin/sh"));
        PerfImport.Result result = importFile(data);
        assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
        assertTrue(result.accounting().balanced(), result.accounting().line());
        Map<PerfTool.Key, Long> perfFlat = PerfTool.flat(PerfTool.report(data, "--no-children", "--sort",
                "dso,sym", "-n", "-g", "none"));
        assertSameRows("flat profile rows (dso, sym -> samples)", sorted(perfFlat), flatOf(result));

        long perfStacks = PerfTool.run(List.of("perf", "report", "-i", data.toString(), "-D"), null).lines()
                .filter(l -> l.matches("\\.\\.\\. ustack: size [1-9][0-9]*, .*")).count();
        assertTrue(perfStacks > 0, "perf's dump shows samples with a user stack");
        assertEquals(perfStacks, result.counters().get("samples.user-stacks"));
        assertTrue(result.recordingNotes().stream().anyMatch(n -> n.startsWith(perfStacks + " user stack")
                && n.contains("not unwound") && n.contains("--call-graph fp") && n.contains("perf report")),
                result.recordingNotes().toString());
    }

    @Test
    void frequencyModeRecordingOfStrippedSystemProgramsMatchesPerfReport() throws Exception {
        Path data = PerfTool.record(dir.resolve("system.data"), List.of("-e", "cpu-clock", "-F", "4000", "-g"),
                List.of("/bin/sh", "-c", "ls -lR /usr/lib > /dev/null; gzip -c " + busy + " | gzip -d > /dev/null"));
        assertAgrees(data);
    }
}
