package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.shell.CommandLines;
import org.hyperprof.source.perf.ImportOptions;
import org.hyperprof.source.perf.PerfCommands;
import org.hyperprof.source.perf.SortedReports;
import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.host.NoHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hp:report --sort} of a recording imported with the store on prints what {@code hp:import
 * --sort} printed, byte for byte: for the last session and for the stored one by its name, both read
 * back from the store (comms and all) into the import's own sorted report. The recording is made
 * now, of a shell that forks and execs; skipped when perf may not record here.
 */
class StoredSortedReportTest {

    @TempDir
    Path dir;

    private ProfilerImpl profiler;
    private SessionStoreComponent store;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void wire() {
        profiler = new ProfilerImpl(new NoHost(), 64, 64, Duration.ofSeconds(10));
        store = new SessionStoreComponent(new StoreSettings(dir.resolve("store.duckdb"), true, "testhost", 10_000),
                Engine.CLASS_PATH, new PrintStream(err, true, StandardCharsets.UTF_8));
        profiler.addConsumer(SessionStoreComponent.NAME, store, Delivery.LOSSLESS);
    }

    @AfterEach
    void unwire() {
        profiler.removeConsumer(SessionStoreComponent.NAME);
    }

    @Test
    void byCommDsoSymbolTheStoredSessionPrintsAsTheImportDid() throws Exception {
        assertReportedAsImported("comm,dso,sym");
    }

    @Test
    void byPidDsoSymbolTheStoredSessionPrintsAsTheImportDid() throws Exception {
        assertReportedAsImported("pid,dso,sym");
    }

    private void assertReportedAsImported(String keys) throws Exception {
        Path recording = record();
        String imported = importSorted(recording, keys, "sorted");
        assertTrue(imported.contains("# Samples: "), imported);

        String latest = report(new String[] {"--sort", keys});
        assertTrue(latest.startsWith("# Samples: ") && latest.lines().count() > 8, latest);
        assertTrue(imported.contains("\n\n" + latest + "\n"), "the last session:\n" + latest + "\nimport:\n"
                + imported);
        assertEquals(latest, report(new String[] {"--sort", keys, "--session", "sorted"}), "the session by its name");
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    /** What hp:report does with {@code argv}: the session by its name in the store, then the sorted report. */
    private String report(String[] argv) throws Exception {
        CommandLines.Report line = CommandLines.report(argv);
        ReportRequest request = line.request();
        if (line.sessionName() != null) {
            long id = store.named(line.sessionName()).orElseThrow().id();
            request = new ReportRequest(id, request.domain(), request.options());
        }
        StringBuilder text = new StringBuilder();
        new SortedReports(store).print(request, line.sort(), text);
        return text.toString();
    }

    /** hp:import's whole output for the recording with {@code --sort keys}, the session named {@code name}. */
    private String importSorted(Path recording, String keys, String name) throws Exception {
        SymbolTables resolvers = new SymbolTables();
        resolvers.addResolver("elf", new ElfResolver());
        resolvers.addResolver("kallsyms", new KallsymsResolver());
        out.reset();
        PerfCommands commands = new PerfCommands(profiler, resolvers, new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), "perf",
                ImportOptions.defaults());
        commands._import(recording.toString(), "--sort", keys);
        String printed = out.toString(StandardCharsets.UTF_8);
        Matcher session = Pattern.compile("Session (\\d+) fed").matcher(printed);
        assertTrue(session.find(), printed);
        // As hp:import --name keeps it (the command's store is a DS reference of its package).
        assertTrue(store.name(Long.parseLong(session.group(1)), name), "the stored session is named " + name);
        return printed;
    }

    /** A recording of a shell that forks children and execs (two commands, several threads' comms). */
    private Path record() throws IOException, InterruptedException {
        Path file = dir.resolve("sh.data");
        List<String> command = List.of("perf", "record", "-q", "-e", "cpu-clock", "-c", "250000", "-o",
                file.toString(), "--", "sh", "-c", "for i in 1 2 3; do head -c 20000000 /dev/zero | cksum; done;"
                        + " exec gzip -c /dev/null");
        boolean recorded;
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            recorded = p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.size(file) > 0;
        } catch (IOException e) {
            recorded = false;
        }
        assumeTrue(recorded, "perf is not installed or may not record here (kernel.perf_event_paranoid)");
        return file;
    }
}
