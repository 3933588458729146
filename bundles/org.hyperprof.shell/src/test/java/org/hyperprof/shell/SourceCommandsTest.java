package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.source.SampleSource;
import org.hyperprof.pipeline.SourceRunner;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.report.opreport.OpreportConsumer;
import org.hyperprof.source.folded.FoldedStacks;
import org.hyperprof.testing.host.NoHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hp:sources and hp:read, through the real pipeline, profiler, folded source and opreport. */
class SourceCommandsTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final ProfilerImpl profiler = new ProfilerImpl(new NoHost(), 64, 64, Duration.ofSeconds(5));
    private final SourceRunner runner = new SourceRunner(profiler);
    private final OpreportConsumer opreport = new OpreportConsumer();
    private final Plugins<ReportRenderer> renderers = new Plugins<>();
    private final SourceCommands commands = new SourceCommands(io.console, runner, renderers);

    @TempDir
    Path dir;

    SourceCommandsTest() {
        profiler.addConsumer("opreport", opreport);
        renderers.add(opreport, opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
    }

    @AfterEach
    void stop() {
        profiler.removeConsumer("opreport");
    }

    /** The folded-stacks source installed, and a file {@code name} in the test's folder holding {@code text}. */
    private Path withFoldedSource(String name, String text) throws IOException {
        runner.addSource(new FoldedStacks(), Map.of(SampleSource.NAME, "folded"));
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void sourcesListsEachInstalledSourceWithWhatItReads() {
        commands.sources();
        assertEquals("no sample sources are installed; start one, e.g. org.hyperprof.source.folded\n", io.out());
        runner.addSource(new FoldedStacks(), Map.of(SampleSource.NAME, "folded"));
        commands.sources();
        assertTrue(io.out().endsWith("SOURCE.NAME  READS\nfolded       folded stacks (flamegraph.pl's input:"
                + " \"root;caller;leaf count\" per line)\n"), io.out());
    }

    @Test
    void readPrintsTheSessionsReportAndItsBooks() throws IOException {
        Path f = withFoldedSource("web.folded", "main;handle;parse 3\nmain;handle 1\n");
        commands.read("folded", f.toString());
        String out = io.out();
        assertEquals("", io.err());
        assertTrue(out.matches("(?s).*\\n3 +75\\.0+ +web\\.folded +parse\\n.*"), out);
        assertTrue(out.matches("(?s).*\\n1 +25\\.0+ +web\\.folded +handle\\n.*"), out);
        assertTrue(out.matches("(?s).*session \\d+: samples taken 4 = delivered 4 \\+ lost 0 \\+ dropped 0"
                + " \\+ invalid 0\\n.*"), out);
    }

    @Test
    void readOfAFileThatIsNotItsFormatSaysWhereAndWhy() throws IOException {
        Path f = withFoldedSource("trace.json", "{\"traceEvents\": []}\n");
        Fakes.fails(() -> commands.read("folded", f.toString()));
        assertEquals("hp:read: " + f + " line 1: expected folded stacks (\"root;caller;leaf count\" per line) and"
                + " found no such line in 1 lines; is this the output of a stackcollapse script?\n", io.err());
    }

    @Test
    void readWithNoArgumentsPrintsItsUsage() {
        Fakes.fails(() -> commands.read());
        assertTrue(io.err().startsWith("hp:read: expected a source and a file, got 0 arguments\n"
                + "usage: hp:read <source> <file> [--renderer name] [--name name] [report option...]\n"), io.err());
    }
}
