package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.report.flamegraph.DifferentialFlameGraph;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hp:diff and hp:merge as a user types them, on the sessions of {@link SessionDiffTest}. */
class DiffCommandsTest {
    @TempDir
    Path folder;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private StoreFixture f;
    private DiffCommands commands;

    @BeforeEach
    void twoSessions() {
        f = TwoSessions.handWorked(folder);
        commands = new DiffCommands(new FlameGraphFiles(f.store, new OutputFilesComponent(),
                new DifferentialFlameGraph()), Console.of(new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8)), ZoneOffset.UTC);
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void hpDiffPrintsBothSummariesLargestDeltaFirstWithTheRuleOfTheMarkUnderThem() {
        commands.diff("1", "2");
        List<String> lines = printed().lines().toList();
        assertEquals("Differential profile of session 2 (B) against session 1 (A, the baseline), event"
                + " CPU_CLK_UNHALTED:0x00, all domains", lines.get(0));
        assertTrue(lines.get(1).matches("  A 1: \\S+ \\S+ simulator default-host, 1000 samples \\(1000000 events\\) in"
                + " 1\\.000000 s profiled; .*"), lines.get(1));
        assertTrue(lines.get(2).contains(" 2000 samples (2000000 events) in 4.000000 s profiled; "), lines.get(2));
        assertEquals("Shares are of samples, as hp:report's %; rates are events (the samples' weight) per second of"
                + " profiled time.", lines.get(3));
        int symbols = lines.indexOf("Symbol summary (3 rows, largest |delta| first):");
        assertTrue(lines.indexOf("Image summary (2 rows, largest |delta| first):") > 0, printed());
        assertTrue(lines.get(symbols + 1).matches("BASELINE +DELTA +MARK +RATIO +RATE_A +RATE_DELTA +RATE_RATIO"
                + " +SAMPLES_A +SAMPLES_B +DOMAIN +IMAGE +SYMBOL"), lines.get(symbols + 1));
        assertTrue(lines.get(symbols + 2).matches("60\\.0000% +-11\\.0000% +\\* +0\\.816667 +600000 +-355000"
                + " +0\\.408333 +600 +980 +Domain-0 +vmlinux +schedule"), lines.get(symbols + 2));
        assertTrue(lines.get(symbols + 3).matches("10\\.0000% +\\+10\\.0000% +\\* +2\\.000000 +100000 +\\+0"
                + " +1\\.000000 +100 +400 +domU +/usr/bin/app +main"), lines.get(symbols + 3));
        assertTrue(lines.get(symbols + 4).matches("30\\.0000% +\\+1\\.0000% +1\\.033333 +300000 +-145000"
                + " +0\\.516667 +300 +620 +Domain-0 +vmlinux +tcp_v4_rcv"), lines.get(symbols + 4));
        assertEquals(DiffFigures.RULE, lines.get(lines.size() - 1));
    }

    @Test
    void forScriptsTheRowsComeAsCsvOrJsonAndTopKeepsTheLargestDeltas() {
        commands.diff("1", "2", "symbols", "top=1", "--format", "csv");
        assertEquals("baseline,delta,mark,ratio,rate_a,rate_delta,rate_ratio,samples_a,samples_b,domain,image,symbol\n"
                + "60.0000%,-11.0000%,*,0.816667,600000,-355000,0.408333,600,980,Domain-0,vmlinux,schedule\n",
                printed());
        out.reset();
        commands.diff("1", "2", "images", "--domain", "domU", "--format", "json");
        assertEquals("[\n  {\"baseline\": \"100.0000%\", \"delta\": \"+0.0000%\", \"mark\": \"\", \"ratio\": \"1.000000\","
                + " \"rate_a\": \"100000\", \"rate_delta\": \"+0\", \"rate_ratio\": \"1.000000\", \"samples_a\": \"100\","
                + " \"samples_b\": \"400\", \"domain\": \"domU\", \"image\": \"/usr/bin/app\"}\n]\n", printed());
    }

    @Test
    void theDifferentialFoldedStacksAreDiffFoldedsLinesInTheFoldedStacksOrder() throws Exception {
        Path folded = folder.resolve("diff.folded");
        commands.diff("1", "2", "--folded", folded.toString());
        assertEquals("Domain-0;tcp_v4_rcv_[k] 300 620\nDomain-0;tcp_v4_rcv_[k];schedule_[k] 600 980\n"
                + "domU;main 100 400\n", Files.readString(folded));
        assertTrue(printed().startsWith("wrote the differential folded stacks of session 2 (B) against session 1 (A)"
                + " to " + folded + " ("), printed());
    }

    @Test
    void normalizedTheBaselinesCountsAreScaledToTheComparedTotalAsDiffFoldedDashN() throws Exception {
        // A has 1000 samples, B 2000: A's counts doubled, so only changes of share remain.
        Path folded = folder.resolve("normalized.folded");
        commands.diff("1", "2", "--normalize", "--folded", folded.toString());
        assertEquals("Domain-0;tcp_v4_rcv_[k] 600 620\nDomain-0;tcp_v4_rcv_[k];schedule_[k] 1200 980\n"
                + "domU;main 200 400\n", Files.readString(folded));
    }

    @Test
    void theDifferentialFlameGraphIsRedWhereAFunctionGrewAndBlueWhereItShrank() throws Exception {
        // schedule 600 to 400 samples, tcp_v4_rcv 300 both times, main 100 to 300.
        TwoSessions.profile(f, 3, false, 600, 300, 100, 1);
        TwoSessions.profile(f, 4, true, 400, 300, 300, 1);
        Path svg = folder.resolve("diff.svg");
        commands.diff("3", "4", "--svg", svg.toString());
        String text = Files.readString(svg);
        // The largest change of a stack is 200: schedule's -200 the deepest blue, main's +200 the deepest red,
        // tcp_v4_rcv's own samples unchanged: white, as flamegraph.pl's color_scale.
        assertTrue(frame(text, "schedule").contains("fill=\"rgb(0,0,255)\""), frame(text, "schedule"));
        assertTrue(frame(text, "main").contains("fill=\"rgb(255,0,0)\""), frame(text, "main"));
        assertTrue(frame(text, "tcp_v4_rcv").contains("fill=\"rgb(255,255,255)\""), frame(text, "tcp_v4_rcv"));
        assertTrue(frame(text, "main").contains("main (user, /usr/bin/app): 300 samples in B, 30.00%; in the"
                + " function itself 300 in B, 100 in A (+200)"), frame(text, "main"));
        // Widths are B's: 1000 samples in all.
        assertTrue(text.contains("data-total=\"1000\""));
        assertTrue(text.contains("Differential flame graph of session 4 (B) against session 3 (A)"), text);
    }

    /** The {@code <g>} element of the frame named {@code name}. */
    private static String frame(String svg, String name) {
        int at = svg.indexOf("data-n=\"" + name + "\"");
        assertTrue(at > 0, name);
        return svg.substring(at, svg.indexOf("</g>", at));
    }

    @Test
    void hpMergePrintsTheNewSessionsIdAndRefusesARunningOne() throws Exception {
        commands.merge("1", "2", "--name", "both");
        long id = Long.parseLong(printed().strip());
        assertEquals("merge", f.store.session(id).orElseThrow().source());
        f.store.sessionStarted(f.info(5, "simulator"));
        CommandFailure failed = assertThrows(CommandFailure.class, () -> commands.merge("1", "5"));
        assertEquals(1, failed.status());
        assertTrue(errors().contains("hp:merge: session 5 is still running; merge it once it has ended"), errors());
    }

    @Test
    void aWrongWordIsAUsageErrorAndDifferentEventsAreRefusedWithWhy() {
        assertEquals(CommandFailure.USAGE, assertThrows(CommandFailure.class, () -> commands.diff("1")).status());
        assertEquals(CommandFailure.USAGE,
                assertThrows(CommandFailure.class, () -> commands.diff("1", "2", "callgraph")).status());
        assertTrue(errors().contains("hp:diff: 'callgraph' is no word of hp:diff's"), errors());
        TwoSessions.profile(f, 3, false, 10, 10, 10, 1, TwoSessions.INSTRUCTIONS);
        assertEquals(1, assertThrows(CommandFailure.class, () -> commands.diff("1", "3")).status());
        assertTrue(errors().contains("hp:diff: sessions 1 and 3 counted different events"), errors());
    }

    @Test
    void gogosHelpShowsEachCommandsArgumentsAsItsTableDoes() throws Exception {
        for (var c : Map.of("diff", DiffCommands.DIFF, "merge", DiffCommands.MERGE).entrySet()) {
            Method m = DiffCommands.class.getMethod(c.getKey(), String[].class);
            assertEquals(c.getValue().arguments(),
                    m.getParameters()[0].getAnnotation(Descriptor.class).value(), c.getValue().command());
        }
    }
}
