package org.hyperprof.vpmu.lazy;

import static org.hyperprof.testing.vpmu.TestedModel.EN;
import static org.hyperprof.testing.vpmu.TestedModel.LVTPC;
import static org.hyperprof.testing.vpmu.TestedModel.OS;
import static org.hyperprof.testing.vpmu.TestedModel.USR;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.testing.vpmu.FakeHost;
import org.hyperprof.testing.vpmu.GuestProfiler;
import org.hyperprof.testing.vpmu.Rig;
import org.hyperprof.testing.vpmu.TestedModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LazyPolicyTest {
    private static final int IDLE = -1;
    /** Guest A: 1 instruction per cycle. */
    private static final SignalRates A_RATES = TestedModel.rates(1000, 1000);
    /** Guest B: 3 instructions per cycle. */
    private static final SignalRates B_RATES = TestedModel.rates(1000, 3000);

    private final LazyPolicy policy = new LazyPolicy();

    static Stream<TestedModel> models() {
        return Models.both();
    }

    private static FakeHost host(TestedModel m, int pcpus) {
        return new FakeHost(m.model(), pcpus);
    }

    /** The guest's counting setup: counter 0 instructions, counter 1 cycles, from zero, at {@code privilege}. */
    private static void programCounting(Rig rig, int pcpu, TestedModel m, long privilege) {
        assertTrue(rig.write(pcpu, m.counter(0), 0));
        assertTrue(rig.write(pcpu, m.counter(1), 0));
        assertTrue(rig.write(pcpu, m.control(0), m.instCode() | privilege | EN));
        assertTrue(rig.write(pcpu, m.control(1), m.clkCode() | privilege | EN));
    }

    private static long stat(PolicySession s, String key) {
        return s.statistics().get(key);
    }

    // ------------------------------------------------------------------------------ identity

    @Test
    void isRegisteredAsLazyWithAOneLineDescription() {
        assertEquals("lazy", policy.name());
        assertFalse(policy.description().contains("\n"));
        assertTrue(policy.description().contains("Xen vPMU"), policy.description());
    }

    @Test
    void guestsSeeAPmu() {
        assertTrue(policy.open(host(Models.P6, 1)).guestsSeePmu());
    }

    @Test
    void anUnknownFreezeModeIsRefusedAtOpenNamingTheAllowedOnes() {
        FakeHost h = host(Models.P6, 1);
        h.options.put("freeze", "sometimes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> policy.open(h));
        assertTrue(e.getMessage().contains("vpmu.freeze=sometimes"), e.getMessage());
        assertTrue(e.getMessage().contains("running") && e.getMessage().contains("exit"), e.getMessage());
    }

    // ------------------------------------------------------------------------------ exact counts, no leaks

    /**
     * Two guests with different instruction rates alternate on one CPU with a guest that never uses
     * its PMU, idle, traps and hypervisor work between; each guest's counters end equal to what that
     * guest ran, computed from the schedule alone.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void countsAreExactAcrossSwitchesAndNoGuestSeesAnothersEvents(TestedModel m) {
        FakeHost h = host(m, 1);
        Rig rig = new Rig(h, policy.open(h));
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        long instA = 0;
        long cyclesA = 0;
        long instB = 0;
        long cyclesB = 0;
        for (int round = 0; round < 40; round++) {
            long len = 1_000 + 137L * round;
            int cpl = round % 2 == 0 ? 3 : 1;
            rig.guest(0, len, B_RATES, cpl);
            instB += 3 * len;
            cyclesB += len;
            rig.trap(0, 250);
            rig.guest(0, len / 2, B_RATES, 3);
            instB += 3 * (len / 2);
            cyclesB += len / 2;
            rig.enter(0);
            rig.hypervisor(0, 200);
            rig.switchTo(0, 1, 0);
            rig.hypervisor(0, 300);
            rig.exit(0);
            rig.guest(0, 2 * len, A_RATES, cpl);
            instA += 2 * len;
            cyclesA += 2 * len;
            rig.trap(0, 400);
            rig.enter(0);
            rig.switchTo(0, 3, 0); // never touches its PMU
            rig.exit(0);
            rig.guest(0, 5_000, TestedModel.rates(1000, 4000), 3);
            rig.enter(0);
            rig.switchTo(0, IDLE, 0);
            rig.hypervisor(0, 700);
            rig.switchTo(0, 2, 0);
            rig.exit(0);
        }
        long readInstB = rig.read(0, m.counter(0));
        long readCyclesB = rig.read(0, m.counter(1));
        rig.enter(0);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        long readInstA = rig.read(0, m.counter(0));
        long readCyclesA = rig.read(0, m.counter(1));
        assertEquals(List.of(instA, cyclesA, instB, cyclesB), List.of(readInstA, readCyclesA, readInstB, readCyclesB),
                "A's instructions and cycles, B's instructions and cycles");
    }

    /** Two guests on two CPUs, migrating between them every round, keep exact counts. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void countsAreExactWhenGuestsMigrateBetweenCpus(TestedModel m) {
        FakeHost h = host(m, 2);
        Rig rig = new Rig(h, policy.open(h));
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.switchTo(1, 2, 0);
        rig.exit(1);
        programCounting(rig, 1, m, USR);
        long instA = 0;
        long instB = 0;
        for (int round = 0; round < 20; round++) {
            int a = round % 2;
            int b = 1 - a;
            rig.guest(a, 3_000 + round, A_RATES, 3);
            rig.guest(b, 2_000 + round, B_RATES, 3);
            instA += 3_000 + round;
            instB += 3 * (2_000 + round);
            rig.enter(a);
            rig.switchTo(a, IDLE, 0);
            rig.enter(b);
            rig.switchTo(b, 1, 0);
            rig.exit(b);
            rig.switchTo(a, 2, 0);
            rig.exit(a);
        }
        long readA = rig.read(0, m.counter(0)); // after an even number of rounds, A is back on CPU 0
        long readB = rig.read(1, m.counter(0));
        assertEquals(instA, readA, "guest A");
        assertEquals(instB, readB, "guest B");
    }

    // ------------------------------------------------------------------------------ freeze

    /** What one guest's cycle counter gained between two reads, and what the rig's ledger says ran meanwhile. */
    private record Window(long counted, long guestCycles, long hypervisorCycles, long exitChargeCycles,
            long explicitHypervisorWork) {
    }

    /**
     * One schedule: guest A counts cycles at both privileges (an HVM guest: its kernel runs at CPL 0),
     * guest B runs between; traps and switches put hypervisor work on A's account.
     */
    private static Window freezeSchedule(LazyPolicy policy, TestedModel m, String freeze, boolean free) {
        FakeHost h = host(m, 1);
        h.options.put("freeze", freeze);
        if (free) {
            h.readCost = 0;
            h.writeCost = 0;
            h.injectCost = 0;
        }
        Rig rig = new Rig(h, policy.open(h));
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR | OS);
        long start = rig.read(0, m.counter(1));
        long g0 = rig.readGuestCycles;
        long hy0 = rig.readHypervisorCycles;
        long x0 = rig.readExitChargeCycles;
        long explicit = 0;
        for (int round = 0; round < 10; round++) {
            rig.guest(0, 10_000, A_RATES, 0); // kernel
            rig.trap(0, 1_500);
            explicit += 1_500;
            rig.guest(0, 5_000, A_RATES, 3);
            rig.enter(0);
            rig.hypervisor(0, 800); // switch head, A still current
            explicit += 800;
            rig.switchTo(0, 2, 0);
            rig.hypervisor(0, 600);
            rig.exit(0);
            rig.guest(0, 7_000, B_RATES, 0);
            rig.enter(0);
            rig.switchTo(0, 1, 0);
            rig.hypervisor(0, 900); // switch tail, A current again
            explicit += 900;
            rig.exit(0);
        }
        long end = rig.read(0, m.counter(1));
        return new Window(end - start, rig.readGuestCycles - g0, rig.readHypervisorCycles - hy0,
                rig.readExitChargeCycles - x0, explicit);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void withFreeRegisterAccessesFrozenCountsExactlyTheGuestAndRunningAddsExactlyTheHypervisorWork(TestedModel m) {
        Window running = freezeSchedule(policy, m, "running", true);
        Window frozen = freezeSchedule(policy, m, "exit", true);
        assertEquals(150_000, frozen.guestCycles(), "the schedule's guest cycles for A");
        assertEquals(32_000, frozen.explicitHypervisorWork(), "the schedule's hypervisor work for A");
        assertEquals(frozen.guestCycles(), frozen.counted(), "vpmu.freeze=exit counts guest code only");
        assertEquals(running.explicitHypervisorWork(), running.counted() - frozen.counted(),
                "vpmu.freeze=running adds exactly the hypervisor's work for the guest");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void withPricedAccessesRunningCountsThePolicysOwnWorkTooAndFrozenOnlyTheResumeWrites(TestedModel m) {
        Window running = freezeSchedule(policy, m, "running", false);
        Window frozen = freezeSchedule(policy, m, "exit", false);
        int controls = m.model().counterCount();
        long exits = 10 * 2; // two per round; the reads of a running counter pass through, no trap
        assertAll(
                () -> assertEquals(running.guestCycles() + running.hypervisorCycles(), running.counted(),
                        "running: guest code plus every hypervisor cycle run while A was current"),
                () -> assertTrue(running.hypervisorCycles() > running.explicitHypervisorWork(),
                        "the policy's charges (save, load, emulated reads) count under running"),
                () -> assertEquals(frozen.guestCycles() + frozen.exitChargeCycles(), frozen.counted(),
                        "exit: guest code plus the resume writes, which run after counting restarted"),
                () -> assertEquals(exits * controls * 100, frozen.exitChargeCycles(),
                        "the resume writes: every control register at every exit, 100 cycles each"),
                () -> assertEquals(running.hypervisorCycles() - frozen.exitChargeCycles(),
                        running.counted() - frozen.counted(), "the difference is the hypervisor work, to the event"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void frozenEntryWritesPowerOnControlsAndExitWritesTheGuestsBack(TestedModel m) {
        FakeHost h = host(m, 1);
        h.options.put("freeze", "exit");
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        int n = m.model().counterCount();
        FakeHost.LoggingPmu pmu = h.pmus[0];
        pmu.clearLog();
        rig.enter(0);
        assertEquals(n, pmu.logged, "entry writes every control register");
        for (int i = 0; i < n; i++) {
            assertEquals(0, pmu.real.read(m.control(i)), "power-on control " + i + " while in the hypervisor");
        }
        pmu.clearLog();
        rig.exit(0);
        assertEquals(n, pmu.logged, "exit writes every control register");
        assertEquals(m.instCode() | USR | EN, pmu.real.read(m.control(0)));
        // Programming: the trap that enables counter 0 resumes at its exit (n), the next trap freezes
        // and resumes (2n); then this entry and exit (2n).
        assertEquals(5L * n, stat(s, PolicySession.STAT_ENTRY_EXIT_ACCESSES));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aControlWriteWhileFrozenReachesTheHardwareOnlyAtTheExit(TestedModel m) {
        FakeHost h = host(m, 1);
        h.options.put("freeze", "exit");
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        assertTrue(s.guestWrite(0, 1, 0, m.control(0), m.clkCode() | USR | EN));
        assertEquals(0, h.pmus[0].real.read(m.control(0)), "still frozen");
        assertEquals(m.clkCode() | USR | EN, s.guestRead(0, 1, 0, m.control(0)), "the guest reads what it wrote");
        rig.exit(0);
        assertEquals(m.clkCode() | USR | EN, h.pmus[0].real.read(m.control(0)));
    }

    // ------------------------------------------------------------------------------ accesses per switch

    private static List<String> all(TestedModel m, String kind) {
        List<String> out = new ArrayList<>();
        int n = m.model().counterCount();
        for (int i = 0; i < n; i++) {
            out.add(kind + " 0x" + Integer.toHexString(m.counter(i)));
        }
        for (int i = 0; i < n; i++) {
            out.add(kind + " 0x" + Integer.toHexString(m.control(i)));
        }
        out.add(kind + " 0x340");
        return out;
    }

    private static List<String> counters(TestedModel m, String kind) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m.model().counterCount(); i++) {
            out.add(kind + " 0x" + Integer.toHexString(m.counter(i)));
        }
        return out;
    }

    private static List<String> controls(TestedModel m, String kind) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m.model().counterCount(); i++) {
            out.add(kind + " 0x" + Integer.toHexString(m.control(i)));
        }
        return out;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * Between two running contexts: the counter registers read (Xen saves the counter MSRs only),
     * power-on controls written, then every register of the next written (counters, controls, LVTPC).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aSwitchBetweenTwoRunningContextsSavesTheCountersStopsAndLoadsWhole(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 2, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        int size = m.contextSize();
        int n = m.model().counterCount();
        long before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        long save0 = h.charged(0, FakeHost.SAVE);
        long load0 = h.charged(0, FakeHost.LOAD);
        h.pmus[0].clearLog();
        rig.switchTo(0, 2, 0);
        long runningToRunning = stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before;
        assertEquals(concat(concat(counters(m, "r"), controls(m, "w")), all(m, "w")), h.pmus[0].accesses());
        assertEquals(n * 40 + n * 100, h.charged(0, FakeHost.SAVE) - save0, "reads and stops charged as vpmu_save");
        assertEquals(size * 100, h.charged(0, FakeHost.LOAD) - load0, "writes charged as vpmu_load");

        before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        rig.switchTo(0, 3, 0); // never touches its PMU
        long runningToUnused = stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before;
        before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        rig.switchTo(0, IDLE, 0);
        long unusedToIdle = stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before;
        before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        rig.switchTo(0, 1, 0);
        long idleToRunning = stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before;
        System.out.printf("lazy %s accesses per switch: running->running %d, running->unused %d, unused->idle %d,"
                + " idle->running %d%n", m, runningToRunning, runningToUnused, unusedToIdle, idleToRunning);
        assertEquals(2L * n + size, runningToRunning);
        assertEquals(2L * n, runningToUnused);
        assertEquals(0, unusedToIdle);
        assertEquals(size, idleToRunning);
        assertEquals(m == Models.P6 ? 9 : 17, runningToRunning, "P6: 2 reads, 2 stops, 5 writes; hammer: 4, 4, 9");
        assertEquals(m == Models.P6 ? 4 : 8, runningToUnused, "P6: 2 reads, 2 stops; hammer: 4, 4");
    }

    /**
     * Every save reads counter registers only: a switch-out, the forced save of a context another
     * vCPU left on the CPU, and the remote save (IPI) of a context still loaded on another CPU.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void noSaveEverReadsAControlOrInterruptRegister(TestedModel m) {
        FakeHost h = host(m, 2);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR); // A runs on CPU 0
        rig.switchTo(1, 4, 0);
        rig.exit(1);
        assertTrue(rig.write(1, m.counter(0), 55)); // D's context is loaded on CPU 1, not running
        rig.guest(0, 1_000, A_RATES, 3);
        for (FakeHost.LoggingPmu pmu : h.pmus) {
            pmu.clearLog();
            pmu.reads = 0;
        }
        rig.enter(1);
        rig.switchTo(1, 1, 0); // D force-saved on CPU 1; A, still loaded on CPU 0, saved there by IPI
        rig.switchTo(1, IDLE, 0); // A saved on CPU 1
        int n = m.model().counterCount();
        for (FakeHost.LoggingPmu pmu : h.pmus) {
            for (String access : pmu.accesses()) {
                assertTrue(access.startsWith("w ") || counters(m, "r").contains(access), access + " at a save");
            }
        }
        assertEquals(n, h.pmus[0].reads, "CPU 0: A's counters (remote save)");
        assertEquals(2L * n, h.pmus[1].reads, "CPU 1: D's counters (forced save), then A's (to idle)");
        assertEquals(1, stat(s, PolicySession.STAT_IPIS));
        assertEquals(1, stat(s, LazySession.STAT_FORCED_SAVES));
    }

    /**
     * Xenoprof's driver {@code setup} rewrites the hardware while A's running context is loaded: every
     * event select cleared, -1 in every counter. The save does not take the cleared selects for A's
     * (which would also make A's context look stopped, so it would never be loaded again): A's next
     * load writes its own back, the counter at -1 wraps after one event, A's handler sees an overflow
     * and re-arms it, and A samples at its period again.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void controlsRewrittenOnTheHardwareBySomeoneElseArePutRightAtTheNextSwitchInAndSamplingResumes(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        GuestProfiler a = new GuestProfiler(m.model(), m.userInstructionsEvery(1_000));
        rig.profilers[FakeHost.key(1, 0)] = a;
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        a.program(rig, 0);
        rig.guest(0, 10_500, A_RATES, 3);
        assertEquals(10, a.samples, "sampling before the rewrite");
        rig.pmu(0).setup(new org.hyperprof.api.pmu.CounterConfig[m.model().counterCount()]); // Xenoprof's driver
        rig.guest(0, 5_000, A_RATES, 3);
        assertEquals(10, a.samples, "nothing counts until A's controls are back");
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.exit(0);
        rig.guest(0, 1_000, B_RATES, 3);
        rig.enter(0);
        rig.switchTo(0, 1, 0);
        assertEquals(a.copy.read(m.control(0)), rig.pmu(0).read(m.control(0)), "A's select 0 is back at its switch-in");
        rig.exit(0);
        rig.guest(0, 1, A_RATES, 3);
        assertEquals(11, a.samples, "the counter left at -1 wrapped after one event: A's handler re-armed it");
        rig.guest(0, 5_000, A_RATES, 3);
        assertEquals(16, a.samples, "and A samples every 1000 of its instructions again");
        assertEquals(a.samples, h.injections[FakeHost.key(1, 0)]);
    }

    /**
     * Under vpmu.freeze=exit a control write is held in the context until the exit; a switch before
     * that exit must not take the hardware's (power-on) controls for the guest's: also when the write
     * is the one that lazily loaded the context.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aControlWrittenWhileFrozenSurvivesASwitchBeforeTheExitAlsoAtALazyLoad(TestedModel m) {
        FakeHost h = host(m, 1);
        h.options.put("freeze", "exit");
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        assertTrue(s.guestWrite(0, 1, 0, m.control(1), m.instCode() | USR | EN)); // frozen: context only
        rig.switchTo(0, 4, 0);
        rig.exit(0);
        rig.enter(0);
        long lazyLoads = stat(s, LazySession.STAT_LAZY_LOADS);
        assertTrue(s.guestWrite(0, 4, 0, m.control(0), m.clkCode() | USR | EN)); // D's first access: a lazy load
        assertEquals(lazyLoads + 1, stat(s, LazySession.STAT_LAZY_LOADS));
        assertEquals(0, h.pmus[0].real.read(m.control(0)), "frozen until the exit");
        rig.switchTo(0, 1, 0); // D saved while frozen, A loaded
        rig.exit(0);
        assertEquals(m.instCode() | USR | EN, h.pmus[0].real.read(m.control(1)), "A's write made while frozen");
        rig.guest(0, 1_000, B_RATES, 3); // 3 instructions per cycle
        assertEquals(3_000, rig.read(0, m.counter(1)), "A's counter 1 counts instructions since the write");
        rig.enter(0);
        rig.switchTo(0, 4, 0);
        rig.exit(0);
        assertEquals(m.clkCode() | USR | EN, h.pmus[0].real.read(m.control(0)), "D's write made at its lazy load");
        rig.guest(0, 700, B_RATES, 3);
        assertEquals(700, rig.read(0, m.counter(0)), "D's counter 0 counts its cycles");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void vcpusThatNeverTouchTheirPmuCostNothingAtSwitches(TestedModel m) {
        FakeHost h = host(m, 2);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        int before = h.contextsHandedOut;
        for (int round = 0; round < 100; round++) {
            int pcpu = round % 2;
            rig.switchTo(pcpu, 1 + round % 3, round % 2);
            rig.exit(pcpu);
            rig.guest(pcpu, 1_000, A_RATES, 3);
            rig.trap(pcpu, 200);
            rig.enter(pcpu);
            rig.switchTo(pcpu, IDLE, 0);
        }
        assertEquals(List.of(), h.pmus[0].accesses(), "CPU 0's PMU untouched");
        assertEquals(List.of(), h.pmus[1].accesses(), "CPU 1's PMU untouched");
        assertEquals(0, stat(s, PolicySession.STAT_SWITCH_ACCESSES));
        assertEquals(0, stat(s, PolicySession.STAT_ENTRY_EXIT_ACCESSES));
        assertEquals(0, stat(s, LazySession.STAT_CONTEXTS), "no context allocated");
        assertEquals(before, h.contextsHandedOut, "no register file asked of the host");
        for (int symbol = 0; symbol < FakeHost.SYMBOLS.size(); symbol++) {
            assertEquals(0, h.chargedEverywhere(symbol), FakeHost.SYMBOLS.get(symbol));
        }
        assertEquals(200, stat(s, PolicySession.STAT_SWITCHES));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void theFirstPmuAccessAllocatesAndLoadsTheContextLazily(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        assertEquals(0, stat(s, LazySession.STAT_CONTEXTS));
        h.pmus[0].clearLog();
        assertEquals(0, rig.read(0, m.counter(0)));
        assertEquals(concat(all(m, "w"), List.of("r 0x" + Integer.toHexString(m.counter(0)))),
                h.pmus[0].accesses(), "the power-on context written, then the trapped read");
        assertEquals(1, stat(s, LazySession.STAT_CONTEXTS));
        assertEquals(1, stat(s, LazySession.STAT_LAZY_LOADS));
        assertEquals(m.contextSize() * 100L, h.charged(0, FakeHost.LOAD));
        assertEquals(40, h.charged(0, FakeHost.RDMSR));
    }

    /** A context that was loaded but does not run stays on the hardware; the next load saves it first. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aLoadedContextThatDoesNotRunStaysUntilAnotherIsLoadedThere(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR); // A runs
        rig.enter(0);
        rig.switchTo(0, 4, 0);
        rig.exit(0);
        assertTrue(rig.write(0, m.counter(0), 1234)); // D touches its PMU, enables nothing
        long before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        h.pmus[0].clearLog();
        rig.enter(0);
        rig.switchTo(0, 3, 0);
        assertEquals(0, stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before, "D's context is not running: kept");
        assertEquals(1234, h.pmus[0].real.read(m.counter(0)), "and still on the hardware");
        rig.switchTo(0, 1, 0);
        assertEquals(concat(counters(m, "r"), all(m, "w")), h.pmus[0].accesses(),
                "D force-saved (its counters read), then A loaded");
        assertEquals(m.model().counterCount() + (long) m.contextSize(),
                stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before);
        assertEquals(1, stat(s, LazySession.STAT_FORCED_SAVES));
        rig.exit(0);
        rig.enter(0);
        rig.switchTo(0, 4, 0);
        rig.exit(0);
        assertEquals(1234, rig.read(0, m.counter(0)), "D's value came back at its next access");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void countersPassThroughOnlyWhileTheContextIsLoadedAndRunning(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        assertTrue(s.traps(1, 0, m.counter(0), false), "no context yet");
        assertTrue(rig.write(0, m.counter(0), 0));
        assertTrue(s.traps(1, 0, m.counter(0), false), "loaded, not running");
        programCounting(rig, 0, m, USR);
        assertAll(
                () -> assertFalse(s.traps(1, 0, m.counter(0), false), "running: counter reads pass through"),
                () -> assertFalse(s.traps(1, 0, m.counter(1), true), "and counter writes"),
                () -> assertTrue(s.traps(1, 0, m.control(0), true), "controls always trap"),
                () -> assertTrue(s.traps(1, 0, LVTPC, true), "LVTPC always traps"),
                () -> assertTrue(s.traps(2, 0, m.counter(0), false), "another vCPU traps"));
        long charged = h.charged(0, FakeHost.RDMSR);
        rig.guest(0, 500, A_RATES, 3);
        assertEquals(500, rig.read(0, m.counter(0)));
        assertEquals(charged, h.charged(0, FakeHost.RDMSR), "a passed-through read costs the hypervisor nothing");
        assertEquals(1, stat(s, LazySession.STAT_PASSED_THROUGH));
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        assertTrue(s.traps(1, 0, m.counter(0), false), "saved at switch-out: traps again");
    }

    /**
     * A running vCPU comes in on CPU 1 while CPU 0, where it ran, has not switched it out yet: an IPI
     * makes CPU 0 save and stop it; its counts go on exactly on CPU 1, and CPU 0's later switch-out
     * of it costs nothing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aRunningContextStillLoadedOnAnotherCpuIsSavedThereThroughAnIpi(TestedModel m) {
        FakeHost h = host(m, 2);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.guest(0, 6_000, A_RATES, 3);
        int size = m.contextSize();
        int n = m.model().counterCount();
        h.pmus[0].clearLog();
        h.pmus[1].clearLog();
        long remote0 = h.charged(0, FakeHost.REMOTE);
        long load1 = h.charged(1, FakeHost.LOAD);
        s.vcpuSwitch(1, IDLE, 0, 1, 0); // CPU 1 takes A before CPU 0's switch-out is seen
        assertEquals(1, stat(s, PolicySession.STAT_IPIS));
        assertEquals(concat(counters(m, "r"), controls(m, "w")), h.pmus[0].accesses(),
                "remote save (counters) and stop on CPU 0");
        assertEquals(all(m, "w"), h.pmus[1].accesses(), "load on CPU 1");
        assertEquals(n * 40 + n * 100, h.charged(0, FakeHost.REMOTE) - remote0, "smp_call_function_interrupt on CPU 0");
        assertEquals(3_000 + size * 100, h.charged(1, FakeHost.LOAD) - load1, "the IPI and the load on CPU 1");
        for (int i = 0; i < n; i++) {
            assertEquals(0, h.pmus[0].real.read(m.control(i)), "CPU 0 counts nothing of A's any more");
        }
        h.pmus[0].clearLog();
        rig.enter(0);
        rig.switchTo(0, IDLE, 0); // CPU 0 catches up
        assertEquals(List.of(), h.pmus[0].accesses(), "nothing of A's is left on CPU 0");
        rig.curDom[1] = 1;
        rig.curVcpu[1] = 0;
        rig.exit(1);
        rig.guest(1, 4_000, A_RATES, 3);
        assertEquals(10_000, rig.read(1, m.counter(0)), "A's instructions, across the migration");
    }

    /** A context left loaded, not running, on CPU 0; the vCPU moves to CPU 1 and enables a counter there. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aLazyLoadOfAContextLeftOnAnotherCpuSavesItThereThroughAnIpi(TestedModel m) {
        FakeHost h = host(m, 2);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        assertTrue(rig.write(0, m.counter(0), 777));
        rig.enter(0);
        rig.switchTo(0, IDLE, 0); // not running: stays loaded on CPU 0
        rig.switchTo(1, 1, 0);
        rig.exit(1);
        h.pmus[0].clearLog();
        assertTrue(rig.write(1, m.control(0), m.instCode() | USR | EN));
        assertEquals(1, stat(s, PolicySession.STAT_IPIS));
        assertEquals(counters(m, "r"), h.pmus[0].accesses(), "CPU 0 reads the counters; it did not run, nothing to stop");
        assertEquals(m.model().counterCount() * 40L, h.charged(0, FakeHost.REMOTE));
        rig.guest(1, 100, A_RATES, 3);
        assertEquals(877, rig.read(1, m.counter(0)), "the value written on CPU 0 came along");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aGuestThatStopsItsCountersStopsPayingAtSwitchesAndCountsOnExactlyWhenItRestarts(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.guest(0, 2_000, A_RATES, 3);
        for (int i = 0; i < m.model().counterCount(); i++) {
            assertTrue(rig.write(0, m.control(i), 0)); // stop
        }
        rig.guest(0, 5_000, A_RATES, 3); // not counted
        long before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        for (int round = 0; round < 5; round++) {
            rig.enter(0);
            rig.switchTo(0, 3, 0);
            rig.switchTo(0, 1, 0);
            rig.exit(0);
            rig.guest(0, 1_000, A_RATES, 3);
        }
        assertEquals(0, stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before, "a stopped context moves no state");
        assertTrue(rig.write(0, m.control(0), m.instCode() | USR | EN)); // restart counter 0 only
        rig.guest(0, 3_000, A_RATES, 3);
        rig.enter(0);
        rig.switchTo(0, 3, 0);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        rig.guest(0, 1_500, A_RATES, 3);
        assertEquals(2_000 + 4_500, rig.read(0, m.counter(0)), "counted before the stop and after the restart only");
    }

    // ------------------------------------------------------------------------------ reprogramming

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aGuestReprogrammingItsCountersMidRunCountsTheNewEventFromThereExactly(TestedModel m) {
        FakeHost h = host(m, 1);
        Rig rig = new Rig(h, policy.open(h));
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.switchTo(0, 2, 0); // guest B
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.guest(0, 9_000, B_RATES, 3);
        rig.enter(0);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        rig.guest(0, 4_000, A_RATES, 3);
        // A stops counter 0, clears it and makes it count cycles at user level only, then restarts it.
        assertTrue(rig.write(0, m.control(0), 0));
        assertTrue(rig.write(0, m.counter(0), 0));
        assertTrue(rig.write(0, m.control(0), m.clkCode() | USR | EN));
        long cyclesSince = 0;
        for (int round = 0; round < 5; round++) {
            rig.guest(0, 3_000, A_RATES, 3);
            cyclesSince += 3_000;
            rig.enter(0);
            rig.switchTo(0, 2, 0);
            rig.exit(0);
            rig.guest(0, 2_000, B_RATES, 3);
            rig.enter(0);
            rig.switchTo(0, 1, 0);
            rig.exit(0);
        }
        assertEquals(cyclesSince, rig.read(0, m.counter(0)), "counter 0 counts cycles from the reprogramming");
        assertEquals(4_000 + cyclesSince, rig.read(0, m.counter(1)), "counter 1 went on counting cycles");
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.exit(0);
        assertEquals(3 * (9_000 + 10_000), rig.read(0, m.counter(0)), "B's instructions are unaffected");
    }

    /** Real hardware, kept: a P6 counter write sign-extends bit 31, so a value in [2^31, 2^40) loses its high bits. */
    @Test
    void aP6CounterPastBit31ComesBackSignExtendedAfterASwitchAsOnHardware() {
        TestedModel m = Models.P6;
        FakeHost h = host(m, 1);
        Rig rig = new Rig(h, policy.open(h));
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        assertTrue(rig.write(0, m.counter(0), 0x7FFF_FFF0L));
        rig.guest(0, 0x20, A_RATES, 3);
        assertEquals(0x8000_0010L, rig.read(0, m.counter(0)));
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        assertEquals(0xFF_8000_0010L, rig.read(0, m.counter(0)), "bits 39:32 became copies of bit 31");
    }

    @Test
    void anAmdCounterPastBit31ComesBackWhole() {
        TestedModel m = Models.HAMMER;
        FakeHost h = host(m, 1);
        Rig rig = new Rig(h, policy.open(h));
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        assertTrue(rig.write(0, m.counter(0), 0x7FFF_FFF0L));
        rig.guest(0, 0x20, A_RATES, 3);
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        assertEquals(0x8000_0010L, rig.read(0, m.counter(0)));
    }

    // ------------------------------------------------------------------------------ interrupts

    /**
     * Two guests sample instructions with their own profilers (periods 1000 and 700) and a third
     * counts without interrupts, alternating on one CPU: each profiler takes exactly one sample per
     * period of its own instructions, and no virtual interrupt reaches a vCPU whose counters were
     * not loaded.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void virtualInterruptsGoOnlyToTheVcpuWhoseCountersAreLoaded(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        GuestProfiler a = new GuestProfiler(m.model(), m.userInstructionsEvery(1_000));
        GuestProfiler d = new GuestProfiler(m.model(), m.userInstructionsEvery(700));
        rig.profilers[FakeHost.key(1, 0)] = a;
        rig.profilers[FakeHost.key(4, 1)] = d;
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        a.program(rig, 0);
        rig.enter(0);
        rig.switchTo(0, 4, 1);
        rig.exit(0);
        d.program(rig, 0);
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR); // B counts, no interrupt enable
        long instA = 0;
        long instD = 0;
        for (int round = 0; round < 30; round++) {
            rig.guest(0, 4_321, B_RATES, 3);
            rig.enter(0);
            rig.switchTo(0, 1, 0);
            rig.exit(0);
            rig.guest(0, 2_345 + round, A_RATES, 3);
            instA += 2_345 + round;
            rig.trap(0, 500);
            rig.enter(0);
            rig.switchTo(0, 4, 1);
            rig.exit(0);
            rig.guest(0, 1_111, B_RATES, 3); // D runs at 3 instructions per cycle
            instD += 3 * 1_111;
            rig.enter(0);
            rig.switchTo(0, 2, 0);
            rig.exit(0);
        }
        long total = h.injectionsTotal();
        long expectA = instA;
        long expectD = instD;
        assertAll(
                () -> assertEquals(expectA / 1_000, a.samples, "A: one sample per 1000 of its instructions"),
                () -> assertEquals(expectD / 700, d.samples, "D: one sample per 700 of its instructions"),
                () -> assertEquals(a.samples, h.injections[FakeHost.key(1, 0)]),
                () -> assertEquals(d.samples, h.injections[FakeHost.key(4, 1)]),
                () -> assertEquals(0, h.injections[FakeHost.key(2, 0)], "B never enabled an interrupt"),
                () -> assertEquals(a.samples + d.samples, total),
                () -> assertEquals(total, stat(s, PolicySession.STAT_INJECTED)),
                () -> assertEquals(total * 700, h.charged(0, FakeHost.INTERRUPT), "each injection charged"),
                () -> assertEquals(0, rig.toXenoprof, "Xenoprof's handler never ran for a guest's overflow"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void anInterruptWhileAContextThatDoesNotCountIsLoadedIsLeftToXenoprof(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        rig.switchTo(0, 2, 0); // B never programmed
        assertTrue(s.pmuInterrupt(0, 2, 0, CpuMode.HYPERVISOR), "nothing of a guest's counts here");
        assertEquals(OverflowRoute.DROP, s.overflow(0, 2, 0, 0, CpuMode.HYPERVISOR));
        assertEquals(0, h.injectionsTotal());
        assertEquals(1, stat(s, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
        rig.switchTo(0, 1, 0);
        assertFalse(s.pmuInterrupt(0, 1, 0, CpuMode.HYPERVISOR), "A counts: its interrupt");
        assertEquals(1, h.injections[FakeHost.key(1, 0)]);
        assertEquals(0, h.injections[FakeHost.key(2, 0)]);
        assertEquals(OverflowRoute.GUEST, s.overflow(0, 1, 0, 0, CpuMode.USER));
    }

    // ------------------------------------------------------------------------------ Xenoprof owns the PMU

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void whileXenoprofHoldsThePmuGuestWritesAreRefusedAndTheHardwareIsLeftAlone(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        h.xenoprofOwns = true;
        h.pmus[0].clearLog();
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        assertFalse(rig.write(0, m.control(0), m.instCode() | USR | EN));
        assertFalse(rig.write(0, m.counter(0), 0));
        rig.trap(0, 100);
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        assertEquals(List.of(), h.pmus[0].accesses(), "Xenoprof's counters are untouched");
        assertEquals(0, h.chargedEverywhere(FakeHost.SAVE) + h.chargedEverywhere(FakeHost.LOAD));
        assertEquals(2, stat(s, PolicySession.STAT_GUEST_REFUSED));
        assertEquals(0, s.guestRead(0, 2, 0, m.counter(0)), "reads see 0, as Xen answers without a vPMU");
        assertEquals(OverflowRoute.XENOPROF, s.overflow(0, 2, 0, 0, CpuMode.USER));
        String why = s.refusal(1, 0, m.control(0));
        assertTrue(why.contains("Xenoprof holds the PMU"), why);
        assertTrue(why.contains("cannot share it"), why);
        assertTrue(why.contains("opcontrol --shutdown"), why);
        assertTrue(why.contains("vpmu.policy=partitioned"), why);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aWriteToARegisterTheModelLacksIsRefusedNamingTheModelsRegisters(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        new Rig(h, s).switchTo(0, 1, 0);
        assertFalse(s.guestWrite(0, 1, 0, 0x38F, 1));
        String why = s.refusal(1, 0, 0x38F);
        assertTrue(why.contains("0x38F is not a PMU register of the host's " + m.model().cpuType()), why);
        assertTrue(why.contains(String.format("0x%X", m.control(0))), why);
        assertThrows(IllegalArgumentException.class, () -> s.guestRead(0, 1, 0, 0x38F));
    }

    // ------------------------------------------------------------------------------ lifecycle

    static Stream<Arguments> hooks() {
        return Stream.of(
                Arguments.of("vcpuSwitch", (Consumer<PolicySession>) s -> s.vcpuSwitch(0, IDLE, 0, 1, 0)),
                Arguments.of("hypervisorEntry", (Consumer<PolicySession>) s -> s.hypervisorEntry(0, 1, 0)),
                Arguments.of("hypervisorExit", (Consumer<PolicySession>) s -> s.hypervisorExit(0, 1, 0)),
                Arguments.of("guestRead", (Consumer<PolicySession>) s -> s.guestRead(0, 1, 0, 0xC1)),
                Arguments.of("guestWrite", (Consumer<PolicySession>) s -> s.guestWrite(0, 1, 0, 0xC1, 1)),
                Arguments.of("guestsSeePmu", (Consumer<PolicySession>) PolicySession::guestsSeePmu),
                Arguments.of("pmuInterrupt", (Consumer<PolicySession>) s -> s.pmuInterrupt(0, 1, 0, CpuMode.USER)),
                Arguments.of("overflow", (Consumer<PolicySession>) s -> s.overflow(0, 1, 0, 0, CpuMode.USER)),
                Arguments.of("traps", (Consumer<PolicySession>) s -> s.traps(1, 0, 0xC1, false)));
    }

    @ParameterizedTest(name = "{0} after close")
    @MethodSource("hooks")
    void everyHookThrowsAfterClose(String hook, Consumer<PolicySession> call) {
        PolicySession s = policy.open(host(Models.P6, 1));
        assertDoesNotThrow(() -> call.accept(s));
        s.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> call.accept(s));
        assertTrue(e.getMessage().contains("session is closed"), e.getMessage());
        assertTrue(e.getMessage().contains("open a new session"), e.getMessage());
    }

    @Test
    void closingTwiceIsHarmlessAndLeavesOtherSessionsOpen() {
        PolicySession s = policy.open(host(Models.P6, 1));
        PolicySession other = policy.open(host(Models.P6, 1));
        s.close();
        assertDoesNotThrow(s::close);
        assertThrows(IllegalStateException.class, s::guestsSeePmu);
        assertTrue(other.guestsSeePmu());
    }

    @Test
    void aPhysicalCpuOutsideTheHostIsRejected() {
        PolicySession s = policy.open(host(Models.P6, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> s.vcpuSwitch(2, IDLE, 0, 1, 0));
        assertEquals("physical CPU 2 does not exist: the host has 2 (0 to 1)", e.getMessage());
    }

    @Test
    void statisticsReportEveryKey() {
        PolicySession s = policy.open(host(Models.P6, 1));
        for (String key : List.of(PolicySession.STAT_SWITCHES, PolicySession.STAT_SWITCH_ACCESSES,
                PolicySession.STAT_ENTRY_EXIT_ACCESSES, PolicySession.STAT_GUEST_ACCESSES,
                PolicySession.STAT_GUEST_REFUSED, PolicySession.STAT_INJECTED,
                PolicySession.STAT_INTERRUPTS_NOT_GUEST, PolicySession.STAT_IPIS,
                PolicySession.STAT_REPROGRAM_SKIPPED, PolicySession.STAT_CYCLES_SUBTRACTED)) {
            assertEquals(0L, s.statistics().get(key), key);
        }
    }

    // ------------------------------------------------------------------------------ no allocation

    @ParameterizedTest(name = "{0}, freeze={1}")
    @MethodSource("allocationCases")
    void hooksDoNotAllocate(TestedModel m, String freeze) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "this JVM must measure per-thread allocation for the test to mean anything");
        FakeHost h = host(m, 2);
        h.options.put("freeze", freeze);
        h.recording = false;
        Rig rig = new Rig(h, policy.open(h));
        GuestProfiler a = new GuestProfiler(m.model(), m.userInstructionsEvery(500));
        rig.profilers[FakeHost.key(1, 0)] = a;
        rig.switchTo(0, 1, 0);
        rig.exit(0);
        a.program(rig, 0);
        rig.switchTo(1, 2, 0);
        rig.exit(1);
        programCounting(rig, 1, m, USR | OS);
        long thread = Thread.currentThread().getId();
        exercise(rig, m, 20_000); // compile first: JIT tiers and OSR may allocate while they settle
        long before = threads.getThreadAllocatedBytes(thread);
        exercise(rig, m, 20_000);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(a.samples > 20_000, "the profiler sampled: " + a.samples);
        assertTrue(allocated < 1024, "20 000 rounds of switches, traps, accesses and interrupts allocated "
                + allocated + " bytes");
    }

    static Stream<Arguments> allocationCases() {
        return Stream.of(Arguments.of(Models.P6, "running"), Arguments.of(Models.P6, "exit"),
                Arguments.of(Models.HAMMER, "running"), Arguments.of(Models.HAMMER, "exit"));
    }

    private static void exercise(Rig rig, TestedModel m, int rounds) {
        for (int i = 0; i < rounds; i++) {
            int a = i & 1;
            int b = 1 - a;
            rig.guest(a, 1_000, A_RATES, 3);
            rig.trap(a, 100);
            rig.read(a, m.counter(1));
            rig.guest(b, 700, B_RATES, 0);
            rig.write(b, m.control(1), m.clkCode() | USR | EN);
            rig.enter(a);
            rig.switchTo(a, IDLE, 0);
            rig.enter(b);
            rig.switchTo(b, a == 0 ? 1 : 2, 0);
            rig.exit(b);
            rig.switchTo(a, a == 0 ? 2 : 1, 0);
            rig.exit(a);
        }
    }
}
