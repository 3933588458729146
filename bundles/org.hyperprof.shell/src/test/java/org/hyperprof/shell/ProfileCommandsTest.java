package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.command.kit.ReportWords;
import org.junit.jupiter.api.Test;

/** hp:profile and hp:report, which share the choice of renderer. */
class ProfileCommandsTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeHostService hosts = new Fakes.FakeHostService();
    private final Fakes.FakeProfiler profiler = new Fakes.FakeProfiler();
    private final Plugins<ReportRenderer> renderers = new Plugins<>();
    private final Fakes.FakeRenderer opreport = new Fakes.FakeRenderer();
    private final ProfileCommands commands = new ProfileCommands(hosts, profiler, StopRequests.NONE, io.console, renderers);
    private final ReportCommands reports = new ReportCommands(io.console, renderers);

    private void installOpreport() {
        renderers.add(opreport, opreport, "opreport", "org.hyperprof.report.opreport 0.1.0");
    }

    @Test
    void profileLoadsTheDefaultScenarioWhenNoHostIsLoadedThenRunsReportsAndAccounts() {
        installOpreport();
        commands.profile();
        assertEquals(List.of(HostService.DEFAULT_SCENARIO), hosts.loads);
        assertEquals(List.of(new ProfileRequest(List.of(), 1_000_000, List.of())), profiler.profiles);
        assertEquals(List.of(new ReportRequest(7, ReportRequest.ALL_DOMAINS, Set.of())), opreport.requests);
        assertEquals("loaded " + HostService.DEFAULT_SCENARIO + ": i386/p6 (PIII) at 2800 MHz, 1 pCPU(s), 2 domains,"
                + " policy systemwide\n"
                + "profiling " + HostService.DEFAULT_SCENARIO + " for 1000 ms simulated"
                + " (event: CPU_CLK_UNHALTED:100000:0:1:1)\n"
                + "   50%  500/1000 ms simulated, 45 samples\n"
                + "  100%  1000/1000 ms simulated, 90 samples\n"
                + "CPU: PIII, speed 2800 MHz (estimated)\n"
                + "samples  %        image\n"
                + "60       66.67    xen-syms\n"
                + "session 7: samples taken 100 = delivered 90 + lost 4 + dropped 5 + invalid 1\n", io.out());
        assertEquals("", io.err());
    }

    @Test
    void reportOptionsAfterTheOptionsReachTheRendererAsHpReportPassesThem() {
        installOpreport();
        commands.profile("--ms", "10", "top=5", "symbols");
        assertEquals(List.of(new ReportRequest(7, ReportRequest.ALL_DOMAINS, Set.of("top=5", "symbols"))),
                opreport.requests);
    }

    @Test
    void aReportOptionTheRendererLacksIsRefusedBeforeTheRunSoATypoCostsNoRun() {
        installOpreport();
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> commands.profile("--ms", "10", "tpo=5")));
        assertEquals(List.of(), profiler.profiles, "nothing ran");
        assertTrue(io.err().startsWith("hp:profile: 'tpo=5' is not an option of the opreport renderer; its options"
                + " are symbols, top (hp:reports describes them)\n"), io.err());
    }

    @Test
    void aNameThatIsANumberIsRefusedBeforeTheRun() {
        assertEquals(CommandFailure.USAGE, Fakes.fails(() -> commands.profile("--ms", "10", "--name", "42")));
        assertEquals(List.of(), profiler.profiles, "nothing ran");
        assertTrue(io.err().startsWith("hp:profile: --name takes a name that is not a number"), io.err());
    }

    @Test
    void withNoSessionStoreANameIsSaidNotToBeKeptAndTheProfileRuns() {
        commands.profile("--ms", "10", "--no-report", "--name", "baseline");
        assertEquals(1, profiler.profiles.size());
        assertTrue(io.out().contains("note: no session store is installed (bundle org.hyperprof.store.duckdb), so the"
                + " name baseline cannot be kept\n"), io.out());
    }

    @Test
    void profileUsesTheLoadedHostAndPassesEventsDomainsAndLength() throws Exception {
        installOpreport();
        hosts.load("two-domus", null);
        hosts.loads.clear();
        commands.profile("--ms", "300", "--event", "CPU_CLK_UNHALTED:50000", "--domains", "0,1");
        assertEquals(List.of(), hosts.loads);
        assertEquals(List.of(new ProfileRequest(List.of("CPU_CLK_UNHALTED:50000"), 300_000, List.of(0, 1))),
                profiler.profiles);
        assertTrue(io.out().startsWith("profiling two-domus for 300 ms simulated (events: CPU_CLK_UNHALTED:50000)\n"),
                io.out());
    }

    @Test
    void profileWithAScenarioOrCpuLoadsFirst() throws Exception {
        installOpreport();
        hosts.load("two-domus", null);
        commands.profile("--cpu", "i386/p6", "--no-report");
        assertEquals(List.of("two-domus", HostService.DEFAULT_SCENARIO + " --cpu i386/p6"), hosts.loads);
    }

    @Test
    void noReportPrintsOnlyTheAccounting() {
        installOpreport();
        commands.profile("--no-report");
        assertEquals(List.of(), opreport.requests);
        assertTrue(io.out().endsWith("  100%  1000/1000 ms simulated, 90 samples\n"
                + "session 7: samples taken 100 = delivered 90 + lost 4 + dropped 5 + invalid 1\n"), io.out());
    }

    @Test
    void anUnknownRendererIsRefusedBeforeAnythingLoadsOrRuns() {
        installOpreport();
        Fakes.fails(() -> commands.profile("--report", "flamegraph"));
        assertEquals(List.of(), hosts.loads);
        assertEquals(List.of(), profiler.profiles);
        assertEquals("hp:profile: no report renderer 'flamegraph' is installed; installed are opreport (hp:reports)\n",
                io.err());
    }

    @Test
    void withoutAnyRendererTheProfileStillRunsAndSaysSo() {
        commands.profile();
        assertEquals(1, profiler.profiles.size());
        assertTrue(io.out().startsWith("note: no report renderer is installed (hp:reports), so only the accounting is"
                + " printed\n"), io.out());
        assertTrue(io.out().contains("session 7: samples taken 100"), io.out());
    }

    @Test
    void aProfilerErrorIsOneLineWithItsOwnMessage() {
        installOpreport();
        profiler.profileFailure = new ProfileException("event CYCLES is not a i386/p6 event; allowed are"
                + " CPU_CLK_UNHALTED, L2_LD");
        Fakes.fails(() -> commands.profile("--event", "CYCLES:100000"));
        assertEquals("hp:profile: event CYCLES is not a i386/p6 event; allowed are CPU_CLK_UNHALTED, L2_LD\n", io.err());
        assertFalse(io.out().contains("session"), io.out());
    }

    @Test
    void aReportThatFailsAfterTheRunLeavesNoHalfReportAndStillGivesTheAccounting() {
        installOpreport();
        opreport.failure = new ReportException("session 7 has no samples yet");
        commands.profile();
        assertFalse(io.out().contains("CPU: PIII"), io.out());
        assertTrue(io.out().contains("session 7: samples taken 100"), io.out());
        assertEquals("hp:profile: opreport: session 7 has no samples yet\n", io.err());
    }

    @Test
    void aSessionThatEndedEarlyAndAConsumerThatMissedSamplesAreReported() {
        profiler.summary = new SessionSummary(8, new Accounting(10, 10, 0, 0, 0), List.of(),
                List.of(new ConsumerAccounting("slow", 4, 6, "queue full")), null, null, 0,
                "CPU model i386/p6 departed (bundle org.hyperprof.pmu.p6 stopped)");
        commands.profile("--no-report");
        assertTrue(io.out().endsWith("session 8: samples taken 10 = delivered 10 + lost 0 + dropped 0 + invalid 0\n"
                + "session ended early: CPU model i386/p6 departed (bundle org.hyperprof.pmu.p6 stopped)\n"
                + "consumer slow received 4 and missed 6 samples: queue full\n"), io.out());
    }

    @Test
    void aStoppedHostIsNotProfiledAndTheMessageSaysHowToGoOn() throws Exception {
        installOpreport();
        hosts.load("default", null);
        hosts.current.stopReason = "bundle org.hyperprof.pmu.p6 stopped";
        Fakes.fails(() -> commands.profile());
        assertEquals(List.of(), profiler.profiles);
        assertEquals("hp:profile: the current host default stopped: bundle org.hyperprof.pmu.p6 stopped; load a host"
                + " again with hp:load, or hp:profile --scenario <name>\n", io.err());
    }

    @Test
    void reportPassesSessionDomainAndOptionsToTheRenderer() {
        installOpreport();
        reports.report("--session", "6", "--domain", "1", "symbols", "top=10");
        assertEquals(List.of(new ReportRequest(6, 1, Set.of("symbols", "top=10"))), opreport.requests);
        assertTrue(io.out().startsWith("CPU: PIII, speed 2800 MHz (estimated)\n"), io.out());
    }

    @Test
    void aReportErrorIsPrintedPlainlyWithoutAnyPartOfTheReport() {
        installOpreport();
        opreport.failure = new ReportException("unknown option 'symbol'; options are symbols, images, top=N, notruth");
        Fakes.fails(() -> reports.report("symbol"));
        assertEquals("", io.out());
        assertEquals("hp:report: opreport: unknown option 'symbol'; options are symbols, images, top=N, notruth\n",
                io.err());
    }

    @Test
    void aRendererMessageThatAlreadyNamesItsRendererIsNotPrefixedTwice() {
        installOpreport();
        opreport.failure = new ReportException("opreport has no session yet; run a profile first");
        Fakes.fails(() -> reports.report());
        assertEquals("hp:report: opreport has no session yet; run a profile first\n", io.err());
    }

    @Test
    void reportWithoutRenderersSaysWhichBundleToStart() {
        Fakes.fails(() -> reports.report());
        assertEquals("hp:report: no report renderer is installed (hp:reports); start one, e.g."
                + " org.hyperprof.report.opreport\n", io.err());
    }

    @Test
    void reportFallsBackToTheOnlyRendererAndAsksWhenThereAreSeveral() {
        Fakes.FakeRenderer pprof = new Fakes.FakeRenderer();
        renderers.add(pprof, pprof, "pprof", "org.hyperprof.report.pprof 0.1.0");
        reports.report();
        assertEquals(1, pprof.requests.size());
        Fakes.FakeRenderer flame = new Fakes.FakeRenderer();
        renderers.add(flame, flame, "flamegraph", "org.hyperprof.report.flamegraph 0.1.0");
        Fakes.fails(() -> reports.report());
        assertEquals("hp:report: no opreport renderer is installed and 2 others are: name one with --renderer"
                + " (flamegraph, pprof)\n", io.err());
    }

    // --- the multi-domain run in one command (issue 3) ---

    @Test
    void profileHandsPassiveDomainsTheirImagesAndTheCallGraphDepthToTheProfiler() {
        installOpreport();
        commands.profile("--domains", "0,1", "--passive", "2,3", "--passive-images", "vmlinux-pv,vmlinux-hvm",
                "--callgraph", "6");
        assertEquals(List.of(new ProfileRequest(List.of(), 1_000_000, List.of(0, 1), List.of(2, 3),
                List.of("vmlinux-pv", "vmlinux-hvm"), 6)), profiler.profiles);
        assertTrue(io.out().contains("profiling " + HostService.DEFAULT_SCENARIO + " for 1000 ms simulated (event:"
                + " CPU_CLK_UNHALTED:100000:0:1:1), passive dom2 dom3 (kernels dom2 vmlinux-pv, dom3 vmlinux-hvm),"
                + " call traces up to 6 deep\n"), io.out());
    }

    @Test
    void theOneCommandRunAsksTheRendererForAllDomainsMergedThenEach() {
        installOpreport();
        commands.profile("--passive", "2");
        assertEquals(List.of(new ReportRequest(7, ReportRequest.ALL_DOMAINS, Set.of())), opreport.requests);
    }

    @Test
    void aBadPassiveLineIsRefusedBeforeAnythingLoadsOrRuns() {
        installOpreport();
        Fakes.fails(() -> commands.profile("--domains", "0,2", "--passive", "2"));
        assertEquals(List.of(), hosts.loads);
        assertEquals(List.of(), profiler.profiles);
        assertTrue(io.err().startsWith("hp:profile: dom2 is in both --domains and --passive;"), io.err());
    }

    @Test
    void afterAReportTheHostCountersAreNotPrintedAgain() {
        // The report's accounting says how many host counters there are; the books after it do not repeat it.
        installOpreport();
        profiler.summary = new SessionSummary(9, new Accounting(1, 1, 0, 0, 0), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED, java.util.Map.of("interrupts.taken", 43419L), List.of());
        commands.profile();
        assertFalse(io.out().contains("host: "), io.out());
    }

    @Test
    void hostCountersAndNotesFollowTheAccountingLine() {
        profiler.summary = new SessionSummary(9, new Accounting(100, 90, 4, 5, 1), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED, java.util.Map.of("interrupts.taken", 43419L, "interrupts.postponed", 0L,
                        "vcpu.switches", 812L),
                List.of("dom3 was destroyed mid-session: 12 samples still in its buffers counted as undrained",
                        "symbol file vmlinux-hvm could not be read; dom3's kernel is shown as domain3-kernel"));
        commands.profile("--no-report");
        assertTrue(io.out().endsWith("session 9: samples taken 100 = delivered 90 + lost 4 + dropped 5 + invalid 1\n"
                + "host: 3 counters (hp:report --session 9 host lists them)\n"
                + "note: dom3 was destroyed mid-session: 12 samples still in its buffers counted as undrained\n"
                + "note: symbol file vmlinux-hvm could not be read; dom3's kernel is shown as domain3-kernel\n"),
                io.out());
    }

    @Test
    void aCallGraphRunPointsToTheRenderersCallGraphViewWhenItHasOne() {
        opreport.options = List.of("callgraph: the call graph, as opreport -c", "symbols: one row per symbol");
        installOpreport();
        commands.profile("--callgraph", "4");
        assertTrue(io.out().contains("60       66.67    xen-syms\ncall graph: hp:report --session 7 callgraph\n"),
                io.out());
    }

    @Test
    void noCallGraphHintWhenTheRendererHasNoSuchViewOrNoTracesWereAskedFor() {
        installOpreport();
        commands.profile("--callgraph", "4");
        opreport.options = List.of("callgraph: the call graph");
        commands.profile();
        assertFalse(io.out().contains("call graph:"), io.out());
    }

    @Test
    void rendererOptionNamesStopAtTheDescription() {
        assertEquals("top=N", ReportWords.optionName("top=N: at most N rows"));
        assertEquals("symbols", ReportWords.optionName("  symbols - one row per symbol"));
        assertEquals("callgraph", ReportWords.optionName("callgraph"));
    }

    @Test
    void reportPassesTheNewOpreportViewsThroughAsOptions() {
        installOpreport();
        reports.report("callgraph", "details", "merge=all", "vcpu");
        assertEquals(List.of(new ReportRequest(ReportRequest.LATEST, ReportRequest.ALL_DOMAINS,
                Set.of("callgraph", "details", "merge=all", "vcpu"))), opreport.requests);
    }
    @Test
    void pipedCtrlCReachesTheProfileAndTheProcessExits130AfterTheReportAndTheBooks() {
        installOpreport();
        List<String> outputAtExit = new java.util.ArrayList<>();
        CommandLineStops stops = new CommandLineStops(CommandLineStops.Mode.BATCH, status -> outputAtExit.add(status
                + ":" + io.out()), () -> new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        ProfileCommands stoppable = new ProfileCommands(hosts, profiler, stops, io.console, renderers);
        profiler.halfway = () -> stops.request(CommandLineStops.Request.CTRL_C);
        stoppable.profile("--ms", "3600000");
        assertEquals(List.of(true), profiler.stopRequestsHeard, "the profile's run hears the request");
        assertEquals(1, outputAtExit.size());
        assertTrue(outputAtExit.get(0).startsWith("130:"), outputAtExit.get(0));
        assertTrue(outputAtExit.get(0).endsWith("60       66.67    xen-syms\n"
                + "session 7: samples taken 100 = delivered 90 + lost 4 + dropped 5 + invalid 1\n"),
                "the report and the books come before the exit: " + outputAtExit.get(0));
    }

    @Test
    void aProfileIsHeardOnlyByTheRequestsThatComeWhileItRuns() {
        installOpreport();
        CommandLineStops stops = new CommandLineStops(CommandLineStops.Mode.INTERACTIVE, status -> {
            throw new AssertionError("no exit at the prompt");
        }, () -> new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        stops.request(CommandLineStops.Request.CTRL_C);
        ProfileCommands stoppable = new ProfileCommands(hosts, profiler, stops, io.console, renderers);
        stoppable.profile("--ms", "100");
        assertEquals(List.of(false), profiler.stopRequestsHeard);
    }

    @Test
    void profileRefusesMoreThanOneSimulatedHourWithTheRange() {
        Fakes.fails(() -> commands.profile("--ms", "3300000000000"));
        assertEquals(List.of(), profiler.profiles);
        assertEquals("hp:profile: --ms (simulated milliseconds) must be from 1 to 3600000 (one simulated hour; Ctrl-C"
                + " stops a run early), got 3300000000000\n", io.err().lines().findFirst().orElse("") + "\n");
    }
}
