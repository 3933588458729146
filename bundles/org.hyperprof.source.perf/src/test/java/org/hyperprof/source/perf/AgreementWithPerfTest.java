package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
        assumeTrue(PerfTool.available(), "perf is not installed (Debian package linux-perf) or may not record here (kernel.perf_event_paranoid)");
        assumeTrue(PerfTool.gccAvailable(), "gcc is not installed");
        busy = PerfTool.compile(dir, "busy.c", "busy");
    }

    private static PerfImport.Result importFile(Path file) throws PerfDataException {
        return importFile(file, new ArrayList<>());
    }

    /** Imports, and lists every sample's frames as perf script prints them ("symbol (dso)"). */
    private static PerfImport.Result importFile(Path file, List<List<String>> stacks) throws PerfDataException {
        try (PerfDataReader r = PerfDataReader.open(file)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults(), true);
            imp.tap((batch, side) -> {
                SessionDictionary d = imp.dictionary();
                for (int i = 0; i < batch.size; i++) {
                    List<String> frames = new ArrayList<>();
                    // perf script prints the callchain, which starts with the sample's own address,
                    // or the address alone when there is no callchain.
                    if (side.ipInChain()[i] || batch.chainLength(i) == 0) {
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
        Map<PerfTool.Key, Long> rows = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        for (PerfReport.Row r : result.report().rows()) {
            if (r.samples() > 0) {
                rows.merge(new PerfTool.Key(PerfReport.shortName(r.image()), r.level(), r.symbol()), r.samples(),
                        Long::sum);
            }
        }
        return rows;
    }

    private static Map<PerfTool.Key, String> childrenOf(PerfImport.Result result) {
        Map<PerfTool.Key, String> rows = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        PerfReport report = result.report();
        for (PerfReport.Row r : report.rows()) {
            rows.put(new PerfTool.Key(PerfReport.shortName(r.image()), r.level(), r.symbol()),
                    report.percentOfTotal(r.childrenPeriod()));
        }
        return rows;
    }

    private static <V> Map<PerfTool.Key, V> sorted(Map<PerfTool.Key, V> m) {
        Map<PerfTool.Key, V> s = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        s.putAll(m);
        return s;
    }

    private static void assertAgrees(Path recording) throws Exception {
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
        assertSameChildren(sorted(perfChildren), childrenOf(result));
    }

    /** Fails with the rows that differ, not the whole maps. */
    static <V> void assertSameRows(String what, Map<PerfTool.Key, V> perf, Map<PerfTool.Key, V> ours) {
        StringBuilder diff = new StringBuilder();
        for (Map.Entry<PerfTool.Key, V> e : perf.entrySet()) {
            V mine = ours.get(e.getKey());
            if (!e.getValue().equals(mine)) {
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

    /** The children rows, as {@link #assertSameRows} (a frame perf prints in several rows is their sum). */
    static void assertSameChildren(Map<PerfTool.Key, PerfTool.Children> perf, Map<PerfTool.Key, String> ours) {
        StringBuilder diff = new StringBuilder();
        for (Map.Entry<PerfTool.Key, PerfTool.Children> e : perf.entrySet()) {
            String mine = ours.get(e.getKey());
            if (mine == null || !e.getValue().agrees(mine)) {
                diff.append("\n  ").append(e.getKey()).append(": perf ").append(e.getValue()).append(", hyperprof ")
                        .append(mine);
            }
        }
        for (Map.Entry<PerfTool.Key, String> e : ours.entrySet()) {
            if (!perf.containsKey(e.getKey())) {
                diff.append("\n  ").append(e.getKey()).append(": perf -, hyperprof ").append(e.getValue());
            }
        }
        assertTrue(diff.length() == 0, "call-graph totals (dso, sym -> children %) differ from perf report's ("
                + perf.size() + " rows):" + diff);
    }

    @Test
    void fileRecordingOfAProgramWithLibcKernelForkAndExecMatchesPerfReport() throws Exception {
        Path data = PerfTool.record(dir.resolve("busy.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of(busy.toString(), "3000", "/bin/sh"));
        assertAgrees(data);
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

    @Test
    void frequencyModeRecordingOfStrippedSystemProgramsMatchesPerfReport() throws Exception {
        Path data = PerfTool.record(dir.resolve("system.data"), List.of("-e", "cpu-clock", "-F", "4000", "-g"),
                List.of("/bin/sh", "-c", "ls -lR /usr/lib > /dev/null; gzip -c " + busy + " | gzip -d > /dev/null"));
        assertAgrees(data);
    }
}
