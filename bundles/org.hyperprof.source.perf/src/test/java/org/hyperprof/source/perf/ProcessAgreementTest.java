package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import's reports by process against {@code perf report --no-children --sort <keys> -n} on a
 * recording made now of a program with a thread that renames itself mid-run, a child that renames
 * itself and execs, and a pid that a later child gets again: every row, in perf's order, with
 * perf's columns, character for character. Skipped when perf or gcc is not installed.
 */
class ProcessAgreementTest {

    @TempDir
    static Path dir;
    static Path recording;
    /** The two children's pids that the program meant to be one (its output). */
    static String pids;

    @BeforeAll
    static void record() throws Exception {
        Path exe = PerfTool.programToRecord(dir, "procs.c", "procs", "-pthread");
        recording = dir.resolve("procs.data");
        List<String> cmd = new ArrayList<>(List.of("perf", "record", "-q", "-e", "cpu-clock", "-c", "250000", "-o",
                recording.toString(), "--", exe.toString()));
        pids = PerfTool.run(cmd, null).strip();
    }

    /** perf's rows (and column heads) of {@code --sort keys}, each line as printed. */
    private static List<String> perfRows(String keys) throws Exception {
        List<String> rows = new ArrayList<>();
        for (String line : PerfTool.report(recording, "--no-children", "--sort", keys, "-n").split("\n")) {
            if (line.startsWith("# Overhead") || line.matches("^\\s+[0-9.]+%.*")) {
                rows.add(line.stripTrailing());
            }
        }
        return rows;
    }

    /** Our rows, counted from batches ({@code reportOnly} false) or straight into the report (true: no callchains). */
    private static List<String> ourRows(String keys, boolean reportOnly) throws Exception {
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            PerfImport imp = new PerfImport(Wiring.resolvers(), ImportOptions.defaults().withCallchains(!reportOnly),
                    false);
            imp.sortBy(SortKeys.parse(keys));
            PerfImport.Result result = imp.run(r, null, "perf.data", null, false);
            assertTrue(result.completed(), () -> "import stopped: " + result.endReason());
            StringBuilder b = new StringBuilder();
            imp.sorted().print(b, "cpu-clock", Integer.MAX_VALUE);
            List<String> rows = new ArrayList<>();
            for (String line : b.toString().split("\n")) {
                if (line.startsWith("# Overhead") || line.matches("^\\s+[0-9.]+%.*")) {
                    rows.add(line.stripTrailing());
                }
            }
            return rows;
        }
    }

    private static void assertSameReport(String keys) throws Exception {
        List<String> perf = perfRows(keys);
        assertTrue(perf.size() > 2, "perf printed rows for --sort " + keys);
        assertEquals(String.join("\n", perf), String.join("\n", ourRows(keys, false)), "--sort " + keys);
        assertEquals(String.join("\n", perf), String.join("\n", ourRows(keys, true)), "--sort " + keys
                + ", report only");
    }

    @Test
    void theRecordingHoldsAReusedPid() {
        String[] two = pids.split("\\s+");
        assertEquals(two[0], two[two.length - 1], "the second child got the first one's pid: " + pids);
    }

    @Test
    void byCommDsoSymbolAsPerf() throws Exception {
        assertSameReport("comm,dso,sym");
    }

    @Test
    void byPidDsoSymbolAsPerf() throws Exception {
        assertSameReport("pid,dso,sym");
    }

    @Test
    void byCommAsPerf() throws Exception {
        assertSameReport("comm");
    }

    @Test
    void byPidAsPerf() throws Exception {
        assertSameReport("pid");
    }
}
