package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.CommandSessionImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands inside a real Gogo runtime, registered as the Gogo whiteboard registers DS
 * components (scope hp, one function per name), printing through {@link Console#system()}: checks
 * that Gogo finds the methods, hands words like {@code --active-domains=0,1} through untouched, and
 * routes what a command prints on System.out to the calling session.
 */
class GogoDispatchTest {
    private static ThreadIOImpl threadIo;
    private static CommandProcessorImpl processor;
    private static final Fakes.FakeHostService HOSTS = new Fakes.FakeHostService();
    private static final Fakes.FakeProfiler PROFILER = new Fakes.FakeProfiler();
    private static final Plugins<ReportRenderer> RENDERERS = new Plugins<>();
    private static final Fakes.FakeRenderer OPREPORT = new Fakes.FakeRenderer();
    private static final Plugins<ReportFileWriter> WRITERS = new Plugins<>();
    private static final Fakes.FakeWriter FLAMEGRAPH = new Fakes.FakeWriter("svg: flame graph");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void startGogo() {
        threadIo = new ThreadIOImpl();
        threadIo.start();
        processor = new CommandProcessorImpl(threadIo);
        Console console = Console.system();
        RENDERERS.add(OPREPORT, OPREPORT, "opreport", "org.hyperprof.report.opreport 0.1.0");
        WRITERS.add(FLAMEGRAPH, FLAMEGRAPH, "flamegraph", "org.hyperprof.report.flamegraph 0.1.0");
        Object[] components = {
            new PluginCommands(HOSTS, console, new Plugins<>(), new Plugins<>(), new Plugins<>(), new Plugins<>(),
                    RENDERERS),
            new HostCommands(HOSTS, console), new XenoprofCommands(HOSTS, PROFILER, console),
            new ProfileCommands(HOSTS, PROFILER, StopRequests.NONE, console, RENDERERS), new ReportCommands(console, RENDERERS, WRITERS,
                    new OutputFilesComponent()),
            new HelpCommands(console, RENDERERS, WRITERS), new VersionCommand(console, "hyperprof 9.9.9")};
        for (HpCommand c : HpCommand.values()) {
            for (Object component : components) {
                if (java.util.Arrays.stream(component.getClass().getMethods())
                        .anyMatch(m -> m.getName().equals(c.function()))) {
                    processor.addCommand("hp", component, c.function());
                }
            }
        }
        processor.addCommand("felix", new FelixHelp(), "help");
    }

    /** Stands in for gogo.command's felix:help, which returns its text. */
    public static final class FelixHelp {
        public String help(String command) {
            return "felix:help for " + command + "\n";
        }
    }

    @AfterAll
    static void stopGogo() {
        processor.stop();
        threadIo.stop();
    }

    @BeforeEach
    void loadHost() throws Exception {
        HOSTS.load("default", null);
    }

    private void execute(String line) throws Exception {
        try (CommandSessionImpl session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, err)) {
            Object result = session.execute(line);
            assertEquals(null, result, "commands print and return nothing");
        }
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void commandWithoutArgumentsIsFoundAndPrintsIntoTheSession() throws Exception {
        execute("hp:commands");
        assertTrue(out().contains("hp:opcontrol"), out());
    }

    @Test
    void plainHelpIsGogosFelixHelpNotOurs() throws Exception {
        try (CommandSessionImpl session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, err)) {
            assertEquals("felix:help for lb\n", session.execute("help lb"), "the only help is felix:help");
        }
    }

    @Test
    void theCommandListNamesOneCommandsHelpAsItsDashDashHelpPrintsIt() throws Exception {
        execute("hp:opcontrol --help");
        String viaOption = out();
        out.reset();
        execute("hp:commands opcontrol");
        assertTrue(out().startsWith(viaOption), out());
        assertTrue(viaOption.startsWith("usage: hp:opcontrol <domid> <args...>\n"), viaOption);
    }

    @Test
    void dashDashHelpPrintsTheCommandsHelpAndRunsNothing() throws Exception {
        execute("hp:run --help");
        assertEquals("usage: hp:run <ms>\n  run the simulated host for <ms> simulated milliseconds, with progress\n"
                + "  <ms>    1 to 3600000 (one simulated hour)\n"
                + "  Ctrl-C (or SIGTERM) stops the run at its next step: the samples taken are kept and the\n"
                + "  books printed. Piped (launch/hyperprof 'cmd' ...) hyperprof then exits, 130 (143 after\n"
                + "  SIGTERM), without running the command lines after it; at the g! prompt the prompt returns.\n",
                out());
    }

    @Test
    void opcontrolArgumentsWithEqualsCommasAndColonsArriveUntouched() throws Exception {
        PROFILER.opcontrols.clear();
        execute("hp:opcontrol 0 --start-daemon --active-domains=0,1 --event=CPU_CLK_UNHALTED:100000:0:1:1");
        assertEquals(List.of("0 --start-daemon --active-domains=0,1 --event=CPU_CLK_UNHALTED:100000:0:1:1"),
                PROFILER.opcontrols);
        assertEquals("Daemon started.\n", out());
    }

    @Test
    void numericWordsReachTheCommandAsTheUserTypedThem() throws Exception {
        execute("hp:op 0 counter 1 100000 0x29 0x0f 1 0");
        XenoprofCounter c = assertInstanceOf(XenoprofCounter.class, HOSTS.current.xenoprof.calls.get(0).arg());
        assertEquals(1, c.ind);
        assertEquals(0x29, c.event);
        assertEquals(0x0f, c.unitMask);
        assertEquals(0, c.user);
        assertTrue(out().startsWith("XENOPROF_counter by domain 0 -> 0\n"), out());
    }

    @Test
    void aSingleNumericArgumentReachesTheVarargsMethod() throws Exception {
        HOSTS.current.xenoprof.state = org.hyperprof.api.xenoprof.XenoprofState.PROFILING;
        execute("hp:run 5");
        assertEquals(List.of(5_000L), HOSTS.current.runs);
        assertTrue(out().endsWith("ran 5 ms simulated: 420 samples taken; 14000000 cycles per pCPU (5.000 ms simulated)\n"),
                out());
    }

    @Test
    void anEventSpecWithColonsIsOneWord() throws Exception {
        execute("hp:op 0 counter 0 CPU_CLK_UNHALTED:100000:0:1:1");
        XenoprofCounter c = assertInstanceOf(XenoprofCounter.class, HOSTS.current.xenoprof.calls.get(0).arg());
        assertEquals(0x79, c.event);
    }

    @Test
    void theSmokeTestsProfileLineRunsAndPrintsReportAndAccounting() throws Exception {
        PROFILER.profiles.clear();
        execute("hp:profile --ms 300");
        assertEquals(300_000, PROFILER.profiles.get(0).micros());
        assertTrue(out().contains("CPU: PIII, speed 2800 MHz"), out());
        assertTrue(out().contains("samples taken 100"), out());
    }

    @Test
    void rendererOptionsWithEqualsSignsArriveAsOptions() throws Exception {
        OPREPORT.requests.clear();
        execute("hp:report --domain 1 symbols top=10");
        assertEquals(List.of(new ReportRequest(ReportRequest.LATEST, 1, Set.of("symbols", "top=10"))), OPREPORT.requests);
    }

    @Test
    void usageErrorsGoToTheSessionsErrorStreamAndFailTheCall() throws Exception {
        CommandFailure failure = org.junit.jupiter.api.Assertions.assertThrows(CommandFailure.class,
                () -> execute("hp:run"));
        assertEquals(CommandFailure.USAGE, failure.status());
        assertEquals("", out());
        assertEquals("hp:run: expected the simulated milliseconds to run, e.g. hp:run 500\nusage: hp:run <ms>\n"
                + "(hp:run --help explains the arguments)\n",
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void commaListsOfDomainsAndImagesReachProfileAsSingleWords() throws Exception {
        PROFILER.profiles.clear();
        execute("hp:profile --ms 10 --passive 2,3 --passive-images vmlinux-pv,vmlinux-hvm --callgraph 6 --no-report");
        assertEquals(List.of(new ProfileRequest(List.of(), 10_000, List.of(), List.of(2, 3),
                List.of("vmlinux-pv", "vmlinux-hvm"), 6)), PROFILER.profiles);
    }

    @Test
    void domainAndGuestAreFoundAndActOnTheCurrentHost() throws Exception {
        HOSTS.current.xenoprof.ownBuffers.put(1, new FakeSharedBuffer[] {FakeSharedBuffer.logging(0, 16, 0)});
        execute("hp:domain 1 pause");
        execute("hp:guest 1 0 head 0xffffffff");
        assertEquals(List.of("pause 1"), HOSTS.current.domainCalls);
        assertEquals(List.of("head 4294967295"), HOSTS.current.xenoprof.ownBuffers.get(1)[0].writes());
        assertTrue(out().contains("4294967295 is outside [0, 16)"), out());
    }

    @Test
    void exportWritesTheFileNamedOnTheLine(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("hp.svg");
        execute("hp:export flamegraph svg " + svg);
        assertTrue(Files.exists(svg));
        assertTrue(out().startsWith("wrote the latest session (all domains) as flamegraph svg to " + svg), out());
    }

    private int piped(boolean keepGoing, String... lines) {
        byte[] input = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        return PipedSession.run(processor, new ByteArrayInputStream(input),
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8), keepGoing);
    }

    @Test
    void pipedLinesThatAllRunExitZeroWithTheirOutputOnStdoutOnly() {
        assertEquals(0, piped(false, "# a comment", "", "hp:version", "felix:help hp:version"));
        assertEquals("hyperprof 9.9.9\nfelix:help for hp:version\n\n", out());
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aFailedCommandStopsThePipedLinesNamesItsLineAndExitsOne() {
        assertEquals(1, piped(false, "hp:version", "hp:domain 7 pause", "hp:version"));
        assertEquals("hyperprof 9.9.9\n", out(), "the line after the failure does not run");
        assertTrue(err.toString(StandardCharsets.UTF_8).endsWith("hyperprof: line 2 failed (exit 1): hp:domain 7 pause;"
                + " the lines after it are not run (--keep-going runs them)\n"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aUsageErrorExitsTwoAndKeepGoingRunsTheRestWithTheFirstFailuresStatus() {
        assertEquals(2, piped(true, "hp:run", "hp:domain 7 pause", "hp:version"));
        assertEquals("hyperprof 9.9.9\n", out());
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("hyperprof: line 1 failed (exit 2): hp:run\n"), e);
        assertTrue(e.contains("hyperprof: line 2 failed (exit 1): hp:domain 7 pause\n"), e);
    }

    @Test
    void gogosOwnRefusalsAreUsageErrorsWithGogosMessage() {
        assertEquals(2, piped(false, "hp:nosuch"));
        assertEquals(2, piped(false, "hp:version {"));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.startsWith("hyperprof: line 1 failed (exit 2): hp:nosuch (Command not found: hp:nosuch);"), e);
    }
}
