package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.junit.jupiter.api.Test;

class HostCommandsTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeHostService hosts = new Fakes.FakeHostService();
    private final HostCommands commands = new HostCommands(hosts, io.console);

    /** The default scenario loaded; its fake host, for the test to set up. */
    private Fakes.FakeHost loadDefault() throws Exception {
        hosts.load("default", null);
        return hosts.current;
    }

    @Test
    void scenariosAsCsvNameTheDefaultAndTheLoadedOne() throws Exception {
        hosts.load(HostService.DEFAULT_SCENARIO, null);
        commands.scenarios("--format", "csv");
        String[] lines = io.out().split("\n");
        assertEquals("scenario,default,loaded", lines[0]);
        assertTrue(List.of(lines).contains(HostService.DEFAULT_SCENARIO + ",true,true"), io.out());
    }

    @Test
    void scenariosMarkTheDefaultAndTheLoadedOne() throws Exception {
        hosts.load("two-domus", null);
        commands.scenarios();
        assertEquals("* " + HostService.DEFAULT_SCENARIO + "\n  two-domus   (loaded)\n"
                + "hp:load <name> loads one; hp:load <path> loads a scenario file\n", io.out());
    }

    @Test
    void loadWithoutArgumentsLoadsTheDefaultScenarioAndPrintsTheHost() {
        commands.load();
        assertEquals(List.of(HostService.DEFAULT_SCENARIO), hosts.loads);
        String out = io.out();
        assertTrue(out.startsWith("host      " + HostService.DEFAULT_SCENARIO + "\n"
                + "          dom0 drives the NIC, dom1 receives one TCP stream\n"
                + "cpu       i386/p6 (PIII): 2 counters x 40 bits, 2800 MHz, 1 pCPU\n"
                + "policy    systemwide\n"
                + "domains   2\n"), out);
        assertTrue(out.contains("  dom0   Domain-0     pv  1 vCPU  hardware domain\n"
                + "         xen-syms (hypervisor), vmlinux (kernel), e1000 (module)\n"), out);
        assertTrue(out.contains("  dom1   domU-rcv     pv  1 vCPU\n"
                + "         vmlinux (kernel), tcp_recv (user)\n"), out);
    }

    @Test
    void loadPassesTheCpuOverride() {
        commands.load("two-domus", "--cpu", "i386/p6");
        assertEquals(List.of("two-domus --cpu i386/p6"), hosts.loads);
    }

    @Test
    void aScenarioErrorIsOneLineWithItsOwnMessage() {
        hosts.loadFailure = new ScenarioException("two.scn:4: unknown CPU model i386/p4; installed are i386/p6");
        Fakes.fails(() -> commands.load("two.scn"));
        assertEquals("", io.out());
        assertEquals("hp:load: two.scn:4: unknown CPU model i386/p4; installed are i386/p6\n", io.err());
    }

    @Test
    void hostPrintsTheHostTimeAndTheXenoprofSession() throws Exception {
        Fakes.FakeHost host = loadDefault();
        host.cycles = 2_800_000;
        commands.host();
        String out = io.out();
        assertTrue(out.contains("time      2800000 cycles per pCPU (1.000 ms simulated)\n"), out);
        assertTrue(out.contains("xenoprof  state IDLE, primary none, backtrace depth 0\n"), out);
    }

    @Test
    void hostWithoutALoadedHostSaysHowToLoadOne() {
        Fakes.fails(() -> commands.host());
        assertEquals("hp:host: no host is loaded: hp:load loads the default scenario (hp:scenarios lists the others)\n",
                io.err());
    }

    @Test
    void runShowsProgressLinesThenTheSamplesTaken() throws Exception {
        Fakes.FakeHost host = loadDefault();
        host.xenoprof.state = XenoprofState.PROFILING;
        commands.run("200");
        assertEquals(List.of(200_000L), host.runs);
        assertEquals("running default for 200 ms simulated (Xenoprof PROFILING)\n"
                + "   20%  50/200 ms simulated, 105 samples\n"
                + "   50%  100/200 ms simulated, 210 samples\n"
                + "   70%  150/200 ms simulated, 315 samples\n"
                + "  100%  200/200 ms simulated, 420 samples\n"
                + "ran 200 ms simulated: 420 samples taken; 560000000 cycles per pCPU (200.000 ms simulated)\n",
                io.out());
    }

    @Test
    void runWarnsFirstWhenTheHostExpectsNoSample() throws Exception {
        Fakes.FakeHost host = loadDefault();
        host.xenoprof.state = XenoprofState.PROFILING;
        host.noSamples = List.of("counter 0 (CPU_CLK_UNHALTED, count 2000000000): a run of 1.0 ms ...");
        commands.run("1");
        assertTrue(io.out().startsWith("running default for 1 ms simulated (Xenoprof PROFILING)\n"
                + "warning: no samples can be expected from this run: counter 0 (CPU_CLK_UNHALTED, count 2000000000):"
                + " a run of 1.0 ms ...\n   "), io.out());
    }

    @Test
    void runOutsideProfilingExplainsWhyThereAreNoSamples() throws Exception {
        Fakes.FakeHost host = loadDefault();
        host.samplesPerRun = 0;
        commands.run("10");
        assertTrue(io.out().contains("no samples: Xenoprof was IDLE, and samples are taken only while PROFILING;"
                + " no primary profiler: the hardware domain opens a session, e.g. hp:opcontrol 0 --start-daemon"
                + " --active-domains=0,1"), io.out());
    }

    @Test
    void aHostThatStoppedDuringTheRunIsOneLine() throws Exception {
        Fakes.FakeHost host = loadDefault();
        host.runFailure = new HostStoppedException("CPU model i386/p6 left: bundle org.hyperprof.pmu.p6 stopped");
        Fakes.fails(() -> commands.run("10"));
        assertEquals("hp:run: CPU model i386/p6 left: bundle org.hyperprof.pmu.p6 stopped\n", io.err());
    }

    @Test
    void runWithABadArgumentPrintsTheUsage() {
        Fakes.fails(() -> commands.run("soon"));
        assertEquals("hp:run: expected the simulated milliseconds as a number, got 'soon'\nusage: hp:run <ms>\n"
                + "(hp:run --help explains the arguments)\n",
                io.err());
    }
    @Test
    void ctrlCDuringRunStopsItAtTheNextStepKeepsTheSamplesAndPrintsXensBooks() throws Exception {
        List<Integer> exits = new java.util.ArrayList<>();
        CommandLineStops stops = new CommandLineStops(CommandLineStops.Mode.INTERACTIVE, exits::add,
                () -> new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        HostCommands stoppable = new HostCommands(hosts, stops, io.console);
        Fakes.FakeHost host = loadDefault();
        host.xenoprof.state = XenoprofState.PROFILING;
        host.xenoprof.statistics = new org.hyperprof.api.xenoprof.XenoprofStatistics(210, 200, 0, 4, 5, 1,
                1, 0);
        host.afterReport = report -> {
            if (report == 2) {
                stops.request(CommandLineStops.Request.CTRL_C);
            }
        };
        stoppable.run("3600000");
        assertEquals("running default for 3600000 ms simulated (Xenoprof PROFILING)\n"
                + "   20%  900000/3600000 ms simulated, 105 samples\n"
                + "   50%  1800000/3600000 ms simulated, 210 samples\n"
                + "stopped by Ctrl-C after 1800000.000 of 3600000 ms simulated: 210 samples taken;"
                + " 5040000000000 cycles per pCPU (1800000.000 ms simulated)\n"
                + "samples   taken 210 = delivered 200 (active 200 + passive 0) + lost 4 + dropped 5 (others; idle 1)"
                + " + invalid 1 (no buffer 1 + corrupted 0): balanced\n", io.out());
        assertEquals(List.of(), exits, "at the prompt the shell goes on");
        host.afterReport = report -> { };
        stoppable.run("10");
        assertTrue(io.out().endsWith("ran 10 ms simulated: 420 samples taken; 5040028000000 cycles per pCPU"
                + " (1800010.000 ms simulated)\n"), "the next run is not stopped: " + io.out());
    }

    @Test
    void runRefusesMoreThanOneSimulatedHourBeforeRunningWithTheRange() throws Exception {
        hosts.load("default", null);
        for (String ms : new String[] {"3600001", "3400000000000", "2147483647", "99999999999999999999"}) {
            Fakes.fails(() -> commands.run(ms));
        }
        assertEquals(List.of(), hosts.current.runs, "nothing ran");
        for (String ms : new String[] {"3600001", "3400000000000", "2147483647", "99999999999999999999"}) {
            assertTrue(io.err().contains("hp:run: the simulated milliseconds must be from 1 to 3600000 (one simulated"
                    + " hour; Ctrl-C stops a run early), got " + ms + "\n"), io.err());
        }
    }
}
