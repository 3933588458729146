package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfDataWriter.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
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
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.testing.host.NoHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hp:import} and {@code hp:record}, wired in plain Java with the real profiler as the
 * session publisher and a consumer that records what it is told.
 */
class PerfCommandsTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private ProfilerImpl profiler;
    private final Consumer consumer = new Consumer();
    private PerfCommands commands;

    /** Records the session it is fed, with the time each batch arrived. */
    static final class Consumer implements SampleConsumer {
        volatile SessionInfo info;
        volatile SessionSummary summary;
        volatile long endedAt;
        final List<Long> batchTimes = new CopyOnWriteArrayList<>();
        final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
        final CountDownLatch ended = new CountDownLatch(1);

        @Override
        public void sessionStarted(SessionInfo session) {
            info = session;
        }

        @Override
        public void samples(SampleBatch batch) {
            batchTimes.add(System.nanoTime());
            batchSizes.add(batch.size);
        }

        @Override
        public void sessionEnded(SessionSummary s) {
            endedAt = System.nanoTime();
            summary = s;
            ended.countDown();
        }

        int samples() {
            return batchSizes.stream().mapToInt(Integer::intValue).sum();
        }
    }

    @BeforeEach
    void wire() throws Exception {
        profiler = new ProfilerImpl(new NoHost(), 64, 64, Duration.ofSeconds(5));
        profiler.addConsumer("rec", consumer);
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Path kallsyms = Files.writeString(dir.resolve("kallsyms"), "ffffffff81000000 T _text\n"
                + "ffffffff81000100 T do_syscall_64\n");
        commands = new PerfCommands(profiler, Wiring.resolvers(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "perf", ImportOptions.defaults()
                        .withKallsyms(kallsyms).withSymbolDirs(empty, empty, empty));
    }

    @AfterEach
    void stop() {
        profiler.removeConsumer("rec");
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path recording() throws Exception {
        PerfDataWriter w = new PerfDataWriter().attr(new Attr()).hostname("testhost");
        w.mmap(1, -1, 0xffffffff81000000L, 0x1000000, 0xffffffff81000000L, "[kernel.kallsyms]_text", 0);
        for (int i = 0; i < 300; i++) {
            w.sample(new Sample(1, 0xffffffff81000110L, 1, i));
        }
        for (int i = 0; i < 100; i++) {
            w.sample(new Sample(2, 0x401000, 1, 300 + i));
        }
        return w.writeFile(dir, "cmd.data");
    }

    @Test
    void importFeedsTheConsumersOneSessionAndPrintsTheFlatProfile() throws Exception {
        commands._import(recording().toString());
        assertTrue(consumer.ended.await(10, TimeUnit.SECONDS), out() + err());
        assertEquals("perf.data", consumer.info.source());
        assertEquals("testhost", consumer.info.hostName());
        assertEquals(400, consumer.samples());
        assertEquals(new Accounting(400, 400, 0, 0, 0), consumer.summary.accounting());
        assertEquals(SessionSummary.COMPLETED, consumer.summary.endReason());
        String text = out();
        assertTrue(text.contains("75.00%           300  [kernel.kallsyms]         [k] do_syscall_64"), text);
        assertTrue(text.contains("25.00%           100  [unknown]                 [.] 0x0000000000401000"), text);
        assertTrue(text.contains("Session " + consumer.info.sessionId() + " fed 1 consumer(s)"), text);
        assertEquals("", err());
    }

    @Test
    void importReportOnlyPrintsTheSameProfileAndFeedsNoConsumer() throws Exception {
        Path data = recording();
        commands._import(data.toString(), "--report-only");
        String reportOnly = out();
        assertTrue(reportOnly.contains("Report only: no session was published, no consumer was fed"), reportOnly);
        assertEquals(0, consumer.samples());
        assertEquals(null, consumer.info);
        out.reset();
        commands._import(data.toString());
        assertTrue(consumer.ended.await(10, TimeUnit.SECONDS), out() + err());
        assertEquals(rows(out()), rows(reportOnly));
        assertTrue(rows(reportOnly).contains("[k] do_syscall_64"), reportOnly);
        assertEquals("", err());
    }

    /**
     * The command printed why it refused and failed, so that a script sees it: exit status 2 for a
     * command line it cannot take, 1 for anything else.
     */
    private static int refused(Runnable command) {
        CommandFailure failed = assertThrows(CommandFailure.class, command::run);
        assertTrue(failed.getMessage().matches("hp:(import|record)( failed|: usage error)"), failed.getMessage());
        return failed.status();
    }

    @Test
    void reportOnlyIsForImportNotForRecord() {
        assertEquals(CommandFailure.USAGE, refused(() -> commands.record("--report-only", "--", "/bin/true")));
        assertTrue(err().contains("--report-only is an option of hp:import, not of hp:record"), err());
    }

    /** The profile's lines (header, rows and books), without the lines about timing and sessions. */
    private static String rows(String printed) {
        return printed.lines().filter(l -> l.startsWith("#") || l.contains("%") || l.startsWith("samples taken"))
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    @Test
    void importSortedByProcessPrintsPerfsColumnsForThem() throws Exception {
        commands._import(recording().toString(), "--sort", "comm,dso,sym");
        String text = out();
        assertTrue(text.contains("# Overhead       Samples  Command  Shared Object      Symbol"), text);
        assertTrue(text.contains("    75.00%           300  :1       [kernel.kallsyms]  [k] do_syscall_64"), text);
        assertTrue(text.contains("consumer perf report --sort: received 400, missed 0 of the 400 samples delivered"),
                text);
        out.reset();
        commands._import(recording().toString(), "--sort", "pid", "--report-only");
        assertTrue(out().contains("   100.00%           400        1::1"), out());
        assertTrue(out().contains("consumer perf report --sort: received 400, missed 0 of the 400 samples delivered"),
                out());
        assertEquals(CommandFailure.USAGE, refused(() -> commands._import("x.data", "--sort", "cpu")));
        assertTrue(err().contains("--sort cpu is not a key list the import reports by; give one of dso,sym,"), err());
    }

    @Test
    void importWithCallgraphPrintsTheChildrenView() throws Exception {
        commands._import(recording().toString(), "--callgraph", "--top", "3");
        assertTrue(out().contains("# Children      Self"), out());
    }

    @Test
    void aBrokenRecordingPrintsOneClearMessageAndNoTrace() throws Exception {
        Path bad = Files.write(dir.resolve("bad.data"), "garbage that is not perf data".getBytes());
        refused(() -> commands._import(bad.toString()));
        String e = err();
        assertTrue(e.startsWith("hp:import: " + bad), e);
        assertTrue(e.contains("expected the magic PERFILE2"), e);
        assertFalse(e.contains("\tat "), "no stack trace: " + e);
    }

    @Test
    void aTruncatedRecordingIsImportedUpToTheCutAndSaysWhereItStopped() throws Exception {
        byte[] whole = new PerfDataWriter().attr(new Attr()).sample(new Sample(2, 1, 1, 1)).sample(
                new Sample(2, 2, 1, 2)).pipe();
        Path cut = Files.write(dir.resolve("cut.data"), java.util.Arrays.copyOf(whole, whole.length - 10));
        commands._import(cut.toString());
        assertTrue(out().contains("STOPPED EARLY"), out());
        assertTrue(consumer.ended.await(10, TimeUnit.SECONDS));
        assertTrue(consumer.summary.endReason().startsWith("stopped:"), consumer.summary.endReason());
        assertTrue(consumer.summary.accounting().balanced());
    }

    @Test
    void usageErrorsSayWhatIsWrongAndShowTheUsage() {
        assertEquals(CommandFailure.USAGE, refused(() -> commands._import()));
        assertTrue(err().contains("give the recording to import"), err());
        assertTrue(err().contains("usage: hp:import"), err());
        err.reset();
        refused(() -> commands._import("x.data", "--seconds", "3"));
        assertTrue(err().contains("--seconds is an option of hp:record"), err());
        err.reset();
        assertEquals(CommandFailure.USAGE, refused(() -> commands._import("x.data", "--top", "1", "--top", "2")));
        assertTrue(err().contains("--top is given twice (1 and 2); give it once"), err());
        err.reset();
        refused(() -> commands.record("ls"));
        assertTrue(err().contains("put the command to record after --"), err());
        err.reset();
        refused(() -> commands.record("--seconds", "zero"));
        assertTrue(err().contains("expected --seconds as a number, got 'zero'"), err());
    }

    /**
     * A named pipe given as the recording is refused with one line, at once: reading it would wait
     * for a writer, maybe forever, in a command that cannot be interrupted.
     */
    @Test
    void aNamedPipeGivenAsTheRecordingIsRefusedWithOneLine() throws Exception {
        Path fifo = dir.resolve("r.fifo");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assumeTrue(p.waitFor() == 0, "mkfifo is not installed");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> refused(() -> commands._import(fifo.toString())));
        assertTrue(err().contains("hp:import: the recording " + fifo + " is a named pipe (FIFO)"), err());
        assertTrue(err().contains("hp:record"), err());
        err.reset();
        String recording = recording().toString();
        refused(() -> commands._import(recording, "--kallsyms", fifo.toString()));
        assertTrue(err().contains("the kallsyms file " + fifo + " is a named pipe"), err());
    }

    @Test
    void theBoundOnTheHeaderHeldInMemoryIsAnOptionWithItsRange() throws Exception {
        String recording = recording().toString();
        refused(() -> commands._import(recording, "--max-header-mb", "4096"));
        assertTrue(err().contains("--max-header-mb must be from 1 to 2047"), err());
        err.reset();
        commands._import(recording().toString(), "--max-header-mb", "1");
        assertTrue(err().isEmpty(), err());
        assertTrue(out().contains("samples taken"), out());
    }

    @Test
    void numbersOutOfRangeAreRefusedWithTheRangeBeforeAnythingRuns() {
        // Each was accepted: a recording of 3,000 years, a top clamped without a word, a pid cut to 32 bits.
        refused(() -> commands.record("--seconds", "99999999999", "--", "true"));
        assertTrue(err().contains("--seconds must be from 1 to 86400 (one day), got 99999999999"), err());
        err.reset();
        refused(() -> commands._import("x.data", "--top", "99999999999999999999"));
        assertTrue(err().contains("--top must be from 1 to 2147483647, got 99999999999999999999"), err());
        err.reset();
        refused(() -> commands._import("x.data", "--guest-kallsyms", "4294967297=/proc/kallsyms"));
        assertTrue(err().contains("the guest pid must be from 1 to 4194304, got 4294967297"), err());
        err.reset();
        refused(() -> commands.record("--frequency", "0", "--", "true"));
        assertTrue(err().contains("--frequency must be from 1 to 2147483647, got 0"), err());
        assertFalse(out().contains("Running: perf record"), out());
    }

    /** What {@code hp:record args} printed on the error stream; the command failed. */
    private String recordRefusal(String... args) {
        err.reset();
        refused(() -> commands.record(args));
        return err();
    }

    @Test
    void aBareRecordPrintsItsUsageInsteadOfRecordingTheWholeSystem() {
        String bare = recordRefusal();
        assertTrue(bare.contains("hp:record: give the command to record after -- (hp:record -- <command...>), or"
                + " --seconds N to record the whole system for N seconds"), bare);
        assertTrue(bare.contains("usage: hp:record"), bare);
        assertTrue(recordRefusal("--callgraph", "--").contains("give the command to record after --"), err());
        assertFalse(out().contains("Running:"), out());
    }

    @Test
    void aCommandThatCannotBeRunIsRefusedWithTheSystemsReasonBeforePerfStarts() throws Exception {
        assertTrue(recordRefusal("--", "/nonexistent").contains("hp:record: the command could not be run:"
                + " /nonexistent: no such file; nothing was recorded"), err());
        Path notExecutable = Files.writeString(dir.resolve("data.txt"), "not a program");
        assertTrue(recordRefusal("--", notExecutable.toString()).contains(notExecutable
                + " is not executable (permission denied)"), err());
        assertTrue(recordRefusal("--", "hyperprof-no-such-command").contains("hyperprof-no-such-command: not found"
                + " in PATH ("), err());
        assertFalse(out().contains("Running:"), out());
        assertEquals(null, consumer.info, "no session was started");
    }

    @Test
    void aCommandTheShellUnderPerfCouldNotRunIsSaidWithPerfsOutput() throws Exception {
        PerfTool.assumeRecording();
        // Executable, but its interpreter does not exist: only exec finds out.
        Path script = Files.writeString(dir.resolve("orphan.sh"), "#!/nonexistent/interpreter\n");
        assertTrue(script.toFile().setExecutable(true));
        refused(() -> commands.record("--", script.toString()));
        assertTrue(err().contains("hp:record: the command " + script + " could not be run (not found, status 127);"
                + " perf said: "), err());
    }

    @Test
    void recordWithoutPerfNamesTheDebianPackageToInstall() throws Exception {
        PerfCommands noPerf = new PerfCommands(profiler, Wiring.resolvers(), new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                dir.resolve("no-such-perf").toString(), ImportOptions.defaults());
        refused(() -> noPerf.record("--", "true"));
        assertTrue(err().contains("perf is not installed; install Debian's linux-perf package"), err());
    }

    @Test
    void recordRunsPerfWithItsOutputOnAPipeAndKeepsTheWorkloadsOutputOffIt() {
        PerfCommands.Options o = new PerfCommands.Options();
        o.callgraph = true;
        o.frequency = 999;
        o.command.addAll(List.of("echo", "hi"));
        assertEquals(List.of("perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-g", "-m", "64", "-o", "-", "--",
                "/bin/sh", "-c", "exec \"$@\" 1>&2", "hp-record", "echo", "hi"), commands.perfCommand(o));
        PerfCommands.Options all = new PerfCommands.Options();
        all.seconds = 3;
        assertEquals(List.of("perf", "record", "-q", "-e", "cpu-clock", "-m", "64", "-o", "-", "-a", "--", "sleep", "3"),
                commands.perfCommand(all));
    }

    @Test
    void aLiveRecordingReachesTheConsumersWhilePerfStillRuns() throws Exception {
        PerfTool.assumeRecording();
        // A busy shell for two seconds and at least 0.75 s of its own CPU time (field 14 of its
        // /proc stat, in 1/100 s): on a loaded machine two seconds may give it far less, and the
        // samples counted below are CPU time (a fixed count of iterations took 7-12 s here).
        commands.record("--frequency", "2000", "--", "/bin/sh", "-c",
                "sleep 2 & while kill -0 $! 2>/dev/null || [ \"$(cut -d' ' -f14 /proc/$$/stat)\" -lt 75 ]; do"
                        + " i=0; while [ $i -lt 1000 ]; do i=$((i+1)); done; done");
        assertTrue(consumer.ended.await(30, TimeUnit.SECONDS), out() + err());
        assertNotNull(consumer.summary);
        assertEquals("perf record", consumer.info.source());
        assertTrue(consumer.samples() > 1000, "samples: " + consumer.samples() + "\n" + out() + err());
        long firstBatch = consumer.batchTimes.get(0);
        long early = TimeUnit.NANOSECONDS.toMillis(consumer.endedAt - firstBatch);
        assertTrue(early > 700, "the first batch came only " + early + " ms before the recording ended");
        assertTrue(out().contains("recording: "), "progress is printed while it runs: " + out());
        assertTrue(consumer.summary.accounting().balanced(), consumer.summary.accounting().line());
    }

    @Test
    void recordingForSomeSecondsStopsPerfCleanlyAndEndsTheSession() throws Exception {
        PerfTool.assumeRecording();
        long t0 = System.nanoTime();
        commands.record("--seconds", "1", "--", "/bin/sh", "-c", "while true; do :; done");
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) < 20, "perf was stopped");
        assertTrue(consumer.ended.await(10, TimeUnit.SECONDS), out() + err());
        assertEquals(SessionSummary.COMPLETED, consumer.summary.endReason(), out() + err());
        assertFalse(out().contains("STOPPED EARLY"), out());
        // No count of samples: on a loaded machine perf may spend most of the second starting.
        assertTrue(consumer.summary.accounting().balanced(), consumer.summary.accounting().line());
    }

    @Test
    void importedRowsEqualPerfReportsWhenPerfIsInstalled() throws Exception {
        PerfTool.assumeRecording();
        Path data = PerfTool.record(dir.resolve("sh.data"), List.of("-e", "cpu-clock", "-c", "100000", "-g"),
                List.of("/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; ls -R /usr/lib > /dev/null"));
        PerfCommands real = new PerfCommands(profiler, Wiring.resolvers(), new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), "perf",
                ImportOptions.defaults());
        real._import(data.toString(), "--top", "100000");
        Map<PerfTool.Key, Long> printed = PerfTool.flat(out());
        Map<PerfTool.Key, Long> perf = PerfTool.flat(PerfTool.report(data, "--no-children", "--sort", "dso,sym", "-n",
                "-g", "none"));
        assertEquals(new java.util.TreeMap<>(perf.entrySet().stream().collect(java.util.stream.Collectors.toMap(
                e -> e.getKey().toString(), Map.Entry::getValue))), new java.util.TreeMap<>(printed.entrySet().stream()
                        .collect(java.util.stream.Collectors.toMap(e -> e.getKey().toString(), Map.Entry::getValue))));
    }

    @Test
    void gogosHelpShowsEachCommandsArgumentsAsItsTableDoes() throws Exception {
        for (var c : java.util.Map.of("_import", PerfCommands.IMPORT, "record", PerfCommands.RECORD).entrySet()) {
            java.lang.reflect.Method m = PerfCommands.class.getMethod(c.getKey(), String[].class);
            String described = m.getParameters()[0].getAnnotation(org.apache.felix.service.command.Descriptor.class)
                    .value();
            assertEquals(c.getValue().arguments(), described, c.getValue().command());
        }
    }

    @Test
    void helpPrintsTheTableInsteadOfRunning() {
        commands._import("--help");
        assertEquals(PerfCommands.IMPORT.help() + "\n", out());
        assertTrue(out().contains("--guest-kallsyms [pid=]file"), out());
        assertEquals("", err());
    }

    /** A renderer that keeps what it was asked and answers one line, standing in for opreport. */
    private static final class AskedRenderer implements org.hyperprof.api.report.ReportRenderer {
        final List<org.hyperprof.api.report.ReportRequest> requests = new java.util.ArrayList<>();

        @Override
        public void render(org.hyperprof.api.report.ReportRequest request, Appendable text) throws IOException {
            requests.add(request);
            text.append("rendered with ").append(String.join(" ", new java.util.TreeSet<>(request.options())))
                    .append('\n');
        }

        @Override
        public List<String> options() {
            return List.of("image=REGEX: only these images", "threshold=P: rows of at least P %");
        }

        @Override
        public List<Long> sessions() {
            return List.of();
        }
    }

    @Test
    void reportOptionsAfterTheRecordingPrintTheSessionThroughOpreportWithThem() throws Exception {
        AskedRenderer opreport = new AskedRenderer();
        commands.bindOpreport(opreport);
        commands._import(recording().toString(), "image=^\\[kernel", "threshold=5");
        assertEquals(1, opreport.requests.size(), out() + err());
        assertEquals(java.util.Set.of("image=^\\[kernel", "threshold=5"), opreport.requests.get(0).options());
        assertTrue(out().contains("rendered with image=^\\[kernel threshold=5\n"), out());
        assertFalse(out().contains("# Overhead"), "perf report's own flat profile is replaced: " + out());
        assertTrue(out().contains("samples taken 400 = delivered 400"), out());
    }

    @Test
    void aReportOptionOpreportLacksOrOneWithoutASessionIsAUsageErrorBeforeTheImport() throws Exception {
        commands.bindOpreport(new AskedRenderer());
        String recording = recording().toString();
        assertEquals(CommandFailure.USAGE, refused(() -> commands._import(recording, "tpo=5")));
        assertTrue(err().contains("'tpo=5' is not an option of the opreport renderer; its options are image,"
                + " threshold"), err());
        err.reset();
        assertEquals(CommandFailure.USAGE, refused(() -> commands._import(recording, "--report-only", "image=x")));
        assertTrue(err().contains("--report-only makes no session"), err());
        assertFalse(out().contains("Importing"), "nothing was imported: " + out());
    }

    @Test
    void reportOptionsWithoutOpreportInstalledFailAndSayWhatIsMissing() throws Exception {
        String recording = recording().toString();
        assertEquals(CommandFailure.FAILED, refused(() -> commands._import(recording, "image=x")));
        assertTrue(err().contains("need the opreport renderer"), err());
    }
}
