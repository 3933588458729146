package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * hp:annotate against {@code perf annotate --stdio -n} on a recording made now of a program gcc
 * builds now: the samples of every instruction of its hot function, instruction by instruction.
 * The recording is imported as hp:import does (the perf source, the real resolvers, the profiler)
 * into the annotate consumer. Skipped when perf, gcc or binutils is not installed, or perf may not
 * record here.
 */
class PerfAnnotateAgreementTest {

    /** perf annotate -n's instruction lines: samples, then objdump's address. */
    private static final Pattern PERF_LINE = Pattern.compile("^\\s+(\\d+) :\\s+([0-9a-f]+):.*");
    /** Ours: samples, share, then the address. */
    private static final Pattern OUR_LINE = Pattern.compile("^\\s+(\\d+)\\s+\\S+%\\s+:\\s+([0-9a-f]+):.*");

    @TempDir
    static Path dir;
    static Path recording;

    @BeforeAll
    static void record() throws Exception {
        TestPrograms.assumeGccAndPerfRecording(dir);
        assumeTrue(TestPrograms.binutils(), "binutils (objdump, nm) are not installed");
        Path exe = TestPrograms.build(dir, "hot.c", "hot", "-g");
        recording = dir.resolve("hot.data");
        // About 0.2 s of spin at a sample every 0.25 ms: some 800 samples over its instructions.
        TestPrograms.run(List.of("perf", "record", "-q", "-e", "cpu-clock", "-c", "250000", "-o", recording.toString(),
                "--", exe.toString(), "60000000"));
    }

    /** Instruction address to samples, of the lines of {@code text} that {@code line} matches. */
    private static Map<Long, Long> counts(String text, Pattern line) {
        Map<Long, Long> m = new LinkedHashMap<>();
        for (String l : text.split("\n")) {
            Matcher x = line.matcher(l);
            if (x.matches()) {
                m.put(Long.parseLong(x.group(2), 16), Long.parseLong(x.group(1)));
            }
        }
        return m;
    }

    private static String perfAnnotate(String symbol) throws Exception {
        return TestPrograms.run(List.of("perf", "annotate", "-i", recording.toString(), "--stdio", "-n", "-s", symbol));
    }

    /** Imports the recording into a fresh annotate consumer, as hp:import feeds the consumers. */
    private static String ours(String symbol) throws Exception {
        AnnotateConsumer annotate = new AnnotateConsumer();
        EndingConsumer ending = new EndingConsumer(annotate);
        ProfilerImpl profiler = new ProfilerImpl(new NoHost(), 256, 64, Duration.ofSeconds(30));
        profiler.addConsumer(AnnotateConsumer.NAME, ending, Delivery.LOSSLESS);
        SymbolTables tables = new SymbolTables();
        tables.addResolver("elf", new ElfResolver());
        tables.addResolver("kallsyms", new KallsymsResolver());
        Path empty = Files.createDirectories(dir.resolve("empty"));
        try (PerfDataReader reader = PerfDataReader.open(recording)) {
            PerfImport.Result r = new PerfImport(tables, ImportOptions.defaults().withSymbolDirs(empty, empty, empty),
                    false).run(reader, profiler, "perf.data", null, false);
            assertTrue(r.completed(), () -> "import stopped: " + r.endReason());
            assertTrue(ending.awaitEnd(60), "the session ended for the consumer");
            StringBuilder text = new StringBuilder();
            annotate.render(new ReportRequest(r.sessionId(), ReportRequest.ALL_DOMAINS, Set.of("symbol=" + symbol)),
                    text);
            return text.toString();
        } finally {
            profiler.removeConsumer(AnnotateConsumer.NAME);
        }
    }

    @Test
    void everyInstructionOfTheHotFunctionHasPerfAnnotatesSamples() throws Exception {
        Map<Long, Long> perf = counts(perfAnnotate("spin"), PERF_LINE);
        String text = ours("spin");
        Map<Long, Long> ours = counts(text, OUR_LINE);
        assertTrue(perf.values().stream().mapToLong(Long::longValue).sum() > 100, "perf saw the function run: " + perf);
        List<String> differences = new ArrayList<>();
        for (Long address : perf.keySet()) {
            if (!perf.get(address).equals(ours.get(address))) {
                differences.add(Long.toHexString(address) + ": perf " + perf.get(address) + ", ours "
                        + ours.get(address));
            }
        }
        assertEquals(List.of(), differences, text);
        assertEquals(perf.keySet(), ours.keySet(), "the same instructions");
    }
}
