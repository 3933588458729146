package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.sample.ConsumerAccounting;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An import with no consumer and no tap takes shorter ways: a flat one counts each sample in the
 * report as it is resolved, and while symbols still load it counts samples by address and resolves
 * each address once afterwards; callchains are read where the mapped file holds them. On recordings
 * made now, in file and pipe form, its report must be the one the batch path builds (same rows,
 * ids, levels and totals; same books and notes) and agree with perf report.
 */
class ReportOnlyImportTest {

    @TempDir
    static Path dir;
    static Path busy;

    @BeforeAll
    static void tools() throws Exception {
        busy = PerfTool.programToRecord(dir, "busy.c", "busy");
    }

    private static PerfImport.Result importFile(Path file, boolean chains, boolean callGraph, boolean tapped)
            throws PerfDataException {
        try (PerfDataReader r = PerfDataReader.open(file)) {
            // New resolvers each time: symbols load while the import runs, as in a cold import.
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(chains),
                    callGraph);
            if (tapped) {
                imp.tap(batch -> { });
            }
            return imp.run(r, null, "perf.data", null, false);
        }
    }

    private static void assertSameImport(PerfImport.Result expected, PerfImport.Result actual, boolean callGraph) {
        assertTrue(actual.completed(), () -> "import stopped: " + actual.endReason());
        assertEquals(expected.accounting(), actual.accounting());
        assertEquals(new ConsumerAccounting(PerfReport.NAME, actual.accounting().delivered(), 0, null),
                actual.reportBooks(), "the report's books: it received every sample delivered");
        assertEquals(expected.counters(), actual.counters());
        assertEquals(expected.notes(), actual.notes());
        assertEquals(expected.report().rows(), actual.report().rows());
        assertEquals(expected.report().samples(), actual.report().samples());
        assertEquals(expected.report().period(), actual.report().period());
        if (callGraph) {
            assertEquals(expected.report().stackNodes(), actual.report().stackNodes());
            StringBuilder a = new StringBuilder();
            StringBuilder b = new StringBuilder();
            expected.report().printCallGraph(a, Integer.MAX_VALUE, Integer.MAX_VALUE);
            actual.report().printCallGraph(b, Integer.MAX_VALUE, Integer.MAX_VALUE);
            assertEquals(a.toString(), b.toString());
        }
    }

    private static void assertSameAsBatchPath(Path data) throws Exception {
        PerfImport.Result direct = importFile(data, false, false, false);
        assertSameImport(importFile(data, false, false, true), direct, false);
        for (int parts = 2; parts <= 4; parts++) {
            try (PerfDataReader r = PerfDataReader.open(data)) {
                int later = r.partStarts(parts).length;
                assertTrue(later > 0, "the recording has rounds to cut it at");
                PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(false),
                        false);
                imp.readInParts(parts, 0);
                assertSameImport(direct, imp.run(r, null, "perf.data", null, false), false);
                assertEquals(later, imp.partsTaken, () -> "parts of a recording of host processes taken as read;"
                        + " left to the import: " + imp.partsLeft);
            }
        }
        assertSameImport(importFile(data, true, true, true), importFile(data, true, true, false), true);
        Map<PerfTool.Key, Long> perfFlat = PerfTool.flat(PerfTool.report(data, "--no-children", "--sort", "dso,sym",
                "-n", "-g", "none"));
        Map<PerfTool.Key, Long> ours = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        for (PerfReport.Row r : direct.report().rows()) {
            if (r.samples() > 0) {
                ours.merge(new PerfTool.Key(PerfReport.shortName(r.image()), r.selfLevel(), r.symbol()), r.samples(),
                        Long::sum);
            }
        }
        Map<PerfTool.Key, Long> perf = new TreeMap<>(java.util.Comparator.comparing(PerfTool.Key::toString));
        perf.putAll(perfFlat);
        AgreementWithPerfTest.assertSameRows("flat profile rows of the direct import", perf, ours);
    }

    @Test
    void fileRecordingReportOnlyEqualsTheBatchPath() throws Exception {
        // Small ring buffers (-m 8 pages): perf drains them often, so the file has many rounds to cut it at.
        Path data = PerfTool.record(dir.resolve("direct.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g",
                "-m", "8"), List.of("/bin/sh", "-c", busy + " 1500 /bin/sh; ls -lR /usr/lib > /dev/null"));
        assertSameAsBatchPath(data);
    }

    @Test
    void pipeRecordingReportOnlyEqualsTheBatchPath() throws Exception {
        Path data = PerfTool.recordPipe(dir.resolve("direct-pipe.data"),
                List.of("-e", "cpu-clock", "-c", "100000", "-g"), List.of(busy.toString(), "1500", "/bin/sh"));
        PerfImport.Result direct = importFile(data, false, false, false);
        assertSameImport(importFile(data, false, false, true), direct, false);
        assertSameImport(importFile(data, true, true, true), importFile(data, true, true, false), true);
    }
}
