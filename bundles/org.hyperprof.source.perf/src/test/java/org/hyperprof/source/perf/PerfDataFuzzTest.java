package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.pipeline.SymbolTables;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * perf.data recordings as anyone may hand them over, in file mode (read from a file, in parts when
 * large enough) and in pipe mode (read as a stream, as {@code hp:record} reads perf): opening and
 * importing either ends with a result whose books balance and that says why when it holds no
 * sample, or with the reader's typed {@link PerfDataException}. Anything else (another exception, a
 * hang, running out of memory) is a finding. Symbols come from the resolvers' cache and a small
 * kallsyms file, so that a run reads little besides the input. In CI the inputs under
 * {@code PerfDataFuzzTestInputs/} (small hand-written recordings: the fuzzer runs fastest on small
 * inputs, and real recordings are the agreement tests' business) are replayed as ordinary tests;
 * the README's development section gives the command that fuzzes.
 */
class PerfDataFuzzTest {

    private static Path dir;
    private static Path recording;
    private static SymbolTables resolvers;
    private static ImportOptions options;

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("perf-fuzz");
        recording = dir.resolve("perf.data");
        Path kallsyms = Files.writeString(dir.resolve("kallsyms"), "ffffffff81000000 T _text\n"
                + "ffffffff81000000 T _stext\nffffffff81000100 T do_syscall_64\nffffffff81000200 T schedule\n",
                StandardCharsets.US_ASCII);
        Path empty = Files.createDirectories(dir.resolve("no-symbols"));
        resolvers = Wiring.resolvers();
        // Batches of 16 samples: an input crosses batch boundaries, and a run does not clear the
        // megabytes of arrays that batches of thousands take (it ran about 300 inputs a second so).
        options = ImportOptions.defaults().withKallsyms(kallsyms).withSymbolDirs(empty, empty, empty)
                .withBatchSize(16);
    }

    @AfterAll
    static void tearDown() throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @FuzzTest(maxDuration = "10m")
    void fileMode(byte[] data) {
        try {
            Files.write(recording, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            imported(r, data.length % 2 == 0);
        } catch (PerfDataException e) {
            refused(e);
        }
    }

    @FuzzTest(maxDuration = "10m")
    void pipeMode(byte[] data) {
        try (PerfDataReader r = PerfDataReader.open(new ByteArrayInputStream(data), "fuzz.pipe")) {
            imported(r, true);
        } catch (PerfDataException e) {
            refused(e);
        }
    }

    /** An import with its call graph, or the flat one (read in parts when the file is large enough). */
    private static void imported(PerfDataReader r, boolean callGraph) {
        PerfImport.Result result = new PerfImport(resolvers, options.withCallchains(callGraph), callGraph)
                .run(r, null, "fuzz", null, false);
        assertTrue(result.accounting().balanced(), () -> "books: " + result.accounting().line());
        assertEquals(new ConsumerAccounting(PerfReport.NAME, result.accounting().delivered(), 0, null),
                result.reportBooks(), "the report received every sample delivered, and failed at none");
        if (result.accounting().delivered() == 0) {
            assertFalse(result.notes().isEmpty() && (result.endReason() == null || result.endReason().isBlank()),
                    "an import that delivers nothing says why");
        }
    }

    private static void refused(PerfDataException e) {
        String m = e.getMessage();
        assertTrue(m != null && !m.isBlank(), "a refusal says why");
    }
}
