package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class XenoprofCommandsTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeHostService hosts = new Fakes.FakeHostService();
    private final Fakes.FakeProfiler profiler = new Fakes.FakeProfiler();
    private final XenoprofCommands commands = new XenoprofCommands(hosts, profiler, io.console);
    private Fakes.FakeXenoprof xenoprof;

    @BeforeEach
    void loadHost() throws Exception {
        hosts.load("default", null);
        xenoprof = hosts.current.xenoprof;
    }

    @Test
    void opIssuesExactlyOneHypercallAsTheGivenDomainAndPrintsResultAndExplanation() {
        commands.op("1", "enable_virq");
        assertEquals(List.of(new Fakes.Call(1, 8, null)), xenoprof.calls);
        assertEquals("XENOPROF_enable_virq by domain 1 -> 0\nexplained: XENOPROF_enable_virq by dom1 = 0\n", io.out());
    }

    @Test
    void opFailurePrintsTheErrnoNameAndTextAndStillExplains() {
        xenoprof.results.put(XenoprofOp.START.number(), Errno.EPERM.ret());
        commands.op("0", "XENOPROF_start");
        assertEquals("XENOPROF_start by domain 0 -> -1 (EPERM: Operation not permitted)\n"
                + "explained: XENOPROF_start by dom0 = -1\n", io.out());
    }

    @Test
    void opCounterSendsTheEventCodeFromTheHostsModel() {
        commands.op("0", "counter", "0", "CPU_CLK_UNHALTED:100000:0:1:1");
        XenoprofCounter c = assertInstanceOf(XenoprofCounter.class, xenoprof.calls.get(0).arg());
        assertEquals(0x79, c.event);
        assertEquals(100000, c.count);
        assertEquals("XENOPROF_counter by domain 0 -> 0\n"
                + "  in:  ind 0, count 100000, event 0x79, unit_mask 0x0, kernel 1, user 1, enabled 1\n"
                + "explained: XENOPROF_counter by dom0 = 0\n", io.out());
    }

    @Test
    void opInitPrintsWhatXenFilledIn() {
        commands.op("0", "init");
        assertTrue(io.out().startsWith("XENOPROF_init by domain 0 -> 0\n"
                + "  out: num_events 2, is_primary 1, cpu_type i386/p6\n"), io.out());
    }

    @Test
    void opGetBufferPrintsTheBufferXenShared() {
        commands.op("1", "14");
        assertTrue(io.out().startsWith("XENOPROF_get_buffer by domain 1 -> 0\n  in:  max_samples 16\n"
                + "  out: nbuf 1, bufsize 4096, buf_gmaddr 0x1f000\n"), io.out());
    }

    @Test
    void opOutputsAreNotShownWhenTheCallFailed() {
        xenoprof.results.put(XenoprofOp.GET_BUFFER.number(), Errno.EBUSY.ret());
        commands.op("1", "get_buffer");
        assertEquals("XENOPROF_get_buffer by domain 1 -> -16 (EBUSY: Device or resource busy)\n"
                + "  in:  max_samples 16\nexplained: XENOPROF_get_buffer by dom1 = -16\n", io.out());
    }

    @Test
    void opNumberBeyondTheLastOpGetsEinvalAndSaysWhy() {
        commands.op("0", "18");
        assertEquals(List.of(new Fakes.Call(0, 18, null)), xenoprof.calls);
        assertEquals("xenoprof_op 18 by domain 0 -> -22 (EINVAL: Invalid argument)\n"
                + "op 18 is outside 0..17 (XENOPROF_last_op): Xen's dispatcher rejects it before any other check.\n",
                io.out());
    }

    @Test
    void opAsADomainTheHostLacksMakesNoCallAndNamesTheDomains() {
        Fakes.fails(() -> commands.op("7", "init"));
        assertEquals(List.of(), xenoprof.calls);
        assertEquals("hp:op: no domain 7; the host has dom0, dom1\n", io.err());
    }

    @Test
    void opWithABadArgumentMakesNoCallAndShowsUsage() {
        Fakes.fails(() -> commands.op("0", "set_active"));
        assertEquals(List.of(), xenoprof.calls);
        assertEquals("hp:op: XENOPROF_set_active takes <domid>, got nothing\nusage: hp:op <domid> <op> [arg...]\n"
                + "(hp:op --help explains the arguments)\n", io.err());
    }

    @Test
    void opcontrolRunsAsTheDomainAndPrintsItsOutput() {
        commands.opcontrol("0", "--start-daemon", "--active-domains=0,1");
        assertEquals(List.of("0 --start-daemon --active-domains=0,1"), profiler.opcontrols);
        assertEquals("Daemon started.\n", io.out());
    }

    @Test
    void aFailingOpcontrolStepPrintsItsExplanationAndTheState() {
        xenoprof.state = XenoprofState.READY;
        xenoprof.primary = 0;
        profiler.opcontrolResult = new OpcontrolResult(false, "XENOPROF_start by domain 0 -> -1 (EPERM)\n"
                + "dom1 is listed but has not started its daemon: hp:opcontrol 1 --start-daemon");
        commands.opcontrol("0", "--start");
        assertEquals("XENOPROF_start by domain 0 -> -1 (EPERM)\n"
                + "dom1 is listed but has not started its daemon: hp:opcontrol 1 --start-daemon\n"
                + "opcontrol --start failed in dom0; Xenoprof is READY, primary dom0 (hp:state shows the lists and the"
                + " next step)\n", io.out());
    }

    @Test
    void opcontrolWithoutAHostSaysHowToLoadOne() {
        hosts.current = null;
        Fakes.fails(() -> commands.opcontrol("0", "--status"));
        assertEquals(List.of(), profiler.opcontrols);
        assertTrue(io.err().startsWith("hp:opcontrol: no host is loaded: hp:load"), io.err());
    }

    @Test
    void stateShowsReadyFlagsOfTheActiveListAndWhoMustStartNext() {
        xenoprof.state = XenoprofState.READY;
        xenoprof.primary = 0;
        xenoprof.activeList = new int[] {0, 1};
        xenoprof.activated = 1;
        xenoprof.types.put(0, DomainType.ACTIVE);
        commands.state();
        assertEquals("xenoprof  state READY, primary dom0 (Domain-0), backtrace depth 0\n"
                + "active    adomains 2, activated 1\n"
                + "            dom0 (Domain-0)          ready (enable_virq done)\n"
                + "            dom1 (domU-rcv)          not ready: no enable_virq yet\n"
                + "passive   list empty\n"
                + "domains   dom0 (Domain-0)  running  primary, active (ready)\n"
                + "          dom1 (domU-rcv)  running  active (no enable_virq yet)\n"
                + "samples   taken 0 = delivered 0 (active 0 + passive 0) + lost 0 + dropped 0 (others; idle 0)"
                + " + invalid 0 (no buffer 0 + corrupted 0): balanced\n"
                + "counters  none reported by the host\n"
                + "next      start is refused (EPERM) until every listed domain has called enable_virq:"
                + " hp:opcontrol 1 --start-daemon\n", io.out());
    }

    @Test
    void stateShowsTheAccountingEquationOfXensStatistics() {
        xenoprof.statistics = new XenoprofStatistics(100, 80, 5, 3, 10, 4, 1, 1);
        commands.state();
        assertTrue(io.out().contains("samples   taken 100 = delivered 85 (active 80 + passive 5) + lost 3 + dropped 10"
                + " (others; idle 4) + invalid 2 (no buffer 1 + corrupted 1): balanced\n"), io.out());
    }

    @Test
    void stateFlagsStatisticsThatDoNotBalance() {
        xenoprof.statistics = new XenoprofStatistics(100, 80, 0, 0, 0, 0, 0, 0);
        commands.state();
        assertTrue(io.out().contains(": DOES NOT BALANCE\n"), io.out());
    }

    @Test
    void stateWhenAllListedDomainsAreReadyPointsToStart() {
        xenoprof.state = XenoprofState.READY;
        xenoprof.primary = 0;
        xenoprof.activeList = new int[] {0, 1};
        xenoprof.activated = 2;
        xenoprof.types.put(0, DomainType.ACTIVE);
        xenoprof.types.put(1, DomainType.ACTIVE);
        commands.state();
        assertTrue(io.out().contains("next      ready: hp:opcontrol 0 --start starts sampling"), io.out());
    }

    @Test
    void stateWithAnEmptyActiveListWarnsThatStartWouldProfileNobody() {
        xenoprof.state = XenoprofState.READY;
        xenoprof.primary = 0;
        commands.state();
        assertTrue(io.out().contains("active    adomains 0, activated 0: list empty\n"), io.out());
        assertTrue(io.out().contains("next      the active list is empty: start would succeed but profile no domain"),
                io.out());
    }

    @Test
    void stateAfterTheHostStoppedSaysTheSessionEndedAndWhyNotThatItProfiles() {
        xenoprof.state = XenoprofState.PROFILING;
        xenoprof.primary = 0;
        hosts.current.stopReason = "CPU model i386/p6 (bundle org.hyperprof.pmu.p6) departed; the host stopped";
        commands.state();
        assertTrue(io.out().startsWith("xenoprof  session ended: CPU model i386/p6 (bundle org.hyperprof.pmu.p6)"
                + " departed; the host stopped (state PROFILING, primary dom0 (Domain-0), backtrace depth 0 then)\n"),
                io.out());
        assertTrue(io.out().contains("next      the host stopped: hp:load loads a host again (hp:report still prints"
                + " the ended session)\n"), io.out());
    }

    @Test
    void stateWhileProfilingPointsToRunAndStop() {
        xenoprof.state = XenoprofState.PROFILING;
        xenoprof.primary = 0;
        xenoprof.passiveList = new int[] {1};
        commands.state();
        assertTrue(io.out().contains("passive   dom1 (domU-rcv)\n"), io.out());
        assertTrue(io.out().contains("next      profiling: hp:run <ms> runs the host, then hp:opcontrol 0 --stop"),
                io.out());
    }

    // --- every domain's role and state, and the host's counters (issue 3) ---

    /** dom0 primary, dom1 active, dom2 passive PV, dom3 passive HVM, dom4 unlisted HVM. */
    private void fourGuests() {
        hosts.current.domains = List.of(hosts.current.domains.get(0), hosts.current.domains.get(1),
                new DomainInfo(2, "domU-pas", false, 1, false, List.of()),
                new DomainInfo(3, "hvm-win", true, 2, false, List.of()),
                new DomainInfo(4, "hvm-idle", true, 1, false, List.of()));
        xenoprof.state = XenoprofState.PROFILING;
        xenoprof.primary = 0;
        xenoprof.activeList = new int[] {0, 1};
        xenoprof.activated = 2;
        xenoprof.types.put(0, DomainType.ACTIVE);
        xenoprof.types.put(1, DomainType.ACTIVE);
        xenoprof.passiveList = new int[] {2, 3};
        xenoprof.types.put(2, DomainType.PASSIVE);
        xenoprof.types.put(3, DomainType.PASSIVE);
    }

    @Test
    void stateShowsEachDomainsRoleIncludingThePassiveOnesByName() {
        fourGuests();
        commands.state();
        String out = io.out();
        assertTrue(out.contains("passive   dom2 (domU-pas), dom3 (hvm-win)\n"), out);
        assertTrue(out.contains("domains   dom0 (Domain-0)  running  primary, active (ready)\n"
                + "          dom1 (domU-rcv)  running  active (ready)\n"
                + "          dom2 (domU-pas)  running  passive\n"
                + "          dom3 (hvm-win)   running  passive\n"
                + "          dom4 (hvm-idle)  running  unlisted (HVM: can only be passive)\n"), out);
    }

    @Test
    void stateShowsPausedAndDestroyedDomains() {
        fourGuests();
        hosts.current.pauseDomain(1);
        hosts.current.destroyDomain(2);
        commands.state();
        String out = io.out();
        assertTrue(out.contains("          dom1 (domU-rcv)  paused     active (ready)\n"), out);
        assertTrue(out.contains("          dom2 (domU-pas)  destroyed  unlisted\n"), out);
        assertTrue(out.contains("passive   dom3 (hvm-win)\n"), out);
    }

    @Test
    void stateShowsTheHostCountersSortedByName() {
        hosts.current.counters.put("vcpu.switches", 812L);
        hosts.current.counters.put("interrupts.taken", 43419L);
        hosts.current.counters.put("interrupts.postponed", 3L);
        commands.state();
        assertTrue(io.out().contains("counters  interrupts.postponed 3, interrupts.taken 43419, vcpu.switches 812\n"),
                io.out());
    }

    @Test
    void opcontrolPassesTheMultiDomainOptionsThroughUntouched() {
        commands.opcontrol("0", "--start-daemon", "--active-domains=0,1", "--passive-domains=2,3",
                "--passive-images=vmlinux-pv,vmlinux-hvm", "--callgraph=6");
        assertEquals(List.of("0 --start-daemon --active-domains=0,1 --passive-domains=2,3"
                + " --passive-images=vmlinux-pv,vmlinux-hvm --callgraph=6"), profiler.opcontrols);
    }

    @Test
    void withoutAPrimaryTheSuggestedFirstStepListsHvmGuestsAsPassive() {
        fourGuests();
        xenoprof.state = XenoprofState.IDLE;
        xenoprof.primary = -1;
        commands.state();
        assertTrue(io.out().contains("next      no primary profiler: the hardware domain opens a session, e.g."
                + " hp:opcontrol 0 --start-daemon --active-domains=0,1,2 --passive-domains=3,4"), io.out());
    }
}
