package org.hyperprof.report.perfscript;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.source.perf.ImportOptions;
import org.hyperprof.source.perf.PerfDataReader;
import org.hyperprof.source.perf.PerfImport;
import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.host.NoHost;
import org.hyperprof.testing.sample.EndingConsumer;
import org.hyperprof.testing.tools.TestPrograms;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hp:export perfscript against {@code perf script} (its default fields) on recordings made now of a
 * program gcc builds now (user functions, recursion, libc, system calls, a child and an exec'ed
 * shell), one without and one with call graphs ({@code -g}): the file equals perf's output line for
 * line. The recordings are imported as hp:import does (the perf source, the real resolvers, the
 * profiler). Skipped when perf or gcc is not installed, or perf may not record here.
 */
class PerfScriptAgreementTest {

    @TempDir
    static Path dir;
    static Path busy;

    @BeforeAll
    static void build() throws Exception {
        TestPrograms.assumeGccAndPerfRecording(dir);
        busy = TestPrograms.build(dir, "busy.c", "busy");
    }

    private static Path record(String name, String... options) throws Exception {
        Path recording = dir.resolve(name);
        List<String> cmd = new ArrayList<>(List.of("perf", "record", "-q", "-e", "cpu-clock", "-c", "100000"));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of("-o", recording.toString(), "--", busy.toString(), "300", "/bin/sh"));
        TestPrograms.run(cmd);
        return recording;
    }

    /** Imports {@code recording} into a fresh consumer, as hp:import feeds the consumers, and exports it. */
    static String ours(Path recording) throws Exception {
        PerfScriptConsumer script = new PerfScriptConsumer(1_000_000, 10_000_000, 1);
        EndingConsumer ending = new EndingConsumer(script);
        ProfilerImpl profiler = new ProfilerImpl(new NoHost(), 256, 64, Duration.ofSeconds(30));
        profiler.addConsumer(PerfScriptConsumer.NAME, ending, Delivery.LOSSLESS);
        SymbolTables tables = new SymbolTables();
        tables.addResolver("elf", new ElfResolver());
        tables.addResolver("kallsyms", new KallsymsResolver());
        try (PerfDataReader reader = PerfDataReader.open(recording)) {
            PerfImport.Result r = new PerfImport(tables, ImportOptions.defaults(), false).run(reader, profiler, "perf.data", null, false);
            assertTrue(r.completed(), () -> "import stopped: " + r.endReason());
            assertTrue(ending.awaitEnd(60), "the session ended for the consumer");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            script.content(new ReportRequest(r.sessionId(), ReportRequest.ALL_DOMAINS, Set.of()), "text")
                    .writeTo(out);
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            profiler.removeConsumer(PerfScriptConsumer.NAME);
        }
    }

    static String perfScript(Path recording) throws IOException, InterruptedException {
        return TestPrograms.run(List.of("perf", "script", "-i", recording.toString()));
    }

    /** The first line where the two differ, with its neighbours, or null when they are equal. */
    static String firstDifference(String perf, String ours) {
        String[] p = perf.split("\n", -1);
        String[] o = ours.split("\n", -1);
        for (int i = 0; i < Math.max(p.length, o.length); i++) {
            String a = i < p.length ? p[i] : "<end>";
            String b = i < o.length ? o[i] : "<end>";
            if (!a.equals(b)) {
                StringBuilder s = new StringBuilder("line " + (i + 1) + " of " + p.length + " (perf) and " + o.length
                        + " (ours):\nperf: " + a + "\nours: " + b + "\nbefore it:\n");
                for (int j = Math.max(0, i - 6); j < i; j++) {
                    s.append("  ").append(p[j]).append('\n');
                }
                return s.toString();
            }
        }
        return null;
    }

    @Test
    void withoutCallGraphsEveryLineIsPerfScripts() throws Exception {
        Path recording = record("flat.data");
        String perf = perfScript(recording);
        assertTrue(perf.lines().count() > 50, "perf saw the program run: " + perf.lines().count() + " samples");
        assertEquals(null, firstDifference(perf, ours(recording)));
    }

    @Test
    void withCallGraphsEveryLineAndFrameIsPerfScripts() throws Exception {
        Path recording = record("graph.data", "-g");
        String perf = perfScript(recording);
        assertTrue(perf.lines().count() > 200, "perf saw the program run: " + perf.lines().count() + " lines");
        assertEquals(null, firstDifference(perf, ours(recording)));
    }
}
