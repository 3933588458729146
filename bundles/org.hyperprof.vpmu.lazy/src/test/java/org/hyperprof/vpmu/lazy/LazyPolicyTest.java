package org.hyperprof.vpmu.lazy;

import static org.hyperprof.testing.vpmu.TestedModel.EN;
import static org.hyperprof.testing.vpmu.TestedModel.LVTPC;
import static org.hyperprof.testing.vpmu.TestedModel.USR;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.testing.vpmu.FakeHost;
import org.hyperprof.testing.vpmu.Rig;
import org.hyperprof.testing.vpmu.TestedModel;
import org.hyperprof.testing.vpmu.VirtualPmuPolicyContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lazy keeps the contract of every virtual-PMU policy, and allocates, loads and saves a vCPU's
 * context only while its counters run, passing counter accesses through meanwhile.
 */
class LazyPolicyTest extends VirtualPmuPolicyContract {

    LazyPolicyTest() {
        super(new LazyPolicy(), new TestedModel("P6", new P6PmuModel(), 0xC0, 0x79, "INST_RETIRED"),
                new TestedModel("AMD hammer", new HammerPmuModel(), 0xC0, 0x76, "RETIRED_INSTRUCTIONS"), false);
    }

    // ------------------------------------------------------------------------------ identity

    @Test
    void isRegisteredAsLazyWithAOneLineDescription() {
        assertRegisteredAs("lazy", policy);
        assertTrue(policy.description().contains("Xen vPMU"), policy.description());
    }

    /** Lazy's sessions also answer whether an access traps: it does after close as every hook does. */
    @Override
    protected Stream<Arguments> hooks() {
        return Stream.concat(super.hooks(),
                Stream.of(Arguments.of("traps", (Consumer<PolicySession>) s -> s.traps(1, 0, 0xC1, false))));
    }

    // ------------------------------------------------------------------------------ accesses per switch

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
        rig.runGuest(0, 2, 0);
        programCounting(rig, 0, m, USR);
        rig.reschedule(0, 1, 0);
        programCounting(rig, 0, m, USR);
        rig.enter(0);
        int size = m.contextSize();
        int n = m.model().counterCount();
        long save0 = h.charged(0, FakeHost.SAVE);
        long load0 = h.charged(0, FakeHost.LOAD);
        h.pmus[0].clearLog();
        long runningToRunning = switchAccesses(s, () -> rig.switchTo(0, 2, 0));
        assertEquals(concat(concat(counters(m, "r"), controls(m, "w")), all(m, "w")), h.pmus[0].accesses());
        assertEquals(n * 40 + n * 100, h.charged(0, FakeHost.SAVE) - save0, "reads and stops charged as vpmu_save");
        assertEquals(size * 100, h.charged(0, FakeHost.LOAD) - load0, "writes charged as vpmu_load");

        long runningToUnused = switchAccesses(s, () -> rig.switchTo(0, 3, 0)); // never touches its PMU
        long unusedToIdle = switchAccesses(s, () -> rig.switchTo(0, IDLE, 0));
        long idleToRunning = switchAccesses(s, () -> rig.switchTo(0, 1, 0));
        System.out.printf("lazy %s accesses per switch: running->running %d, running->unused %d, unused->idle %d,"
                + " idle->running %d%n", m, runningToRunning, runningToUnused, unusedToIdle, idleToRunning);
        assertEquals(2L * n + size, runningToRunning);
        assertEquals(2L * n, runningToUnused);
        assertEquals(0, unusedToIdle);
        assertEquals(size, idleToRunning);
        assertEquals(m == p6 ? 9 : 17, runningToRunning, "P6: 2 reads, 2 stops, 5 writes; hammer: 4, 4, 9");
        assertEquals(m == p6 ? 4 : 8, runningToUnused, "P6: 2 reads, 2 stops; hammer: 4, 4");
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
        Rig rig = guestACounting(h, s, m); // A runs on CPU 0
        rig.runGuest(1, 4, 0);
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
        assertOnlyCountersWereRead(h, m);
        assertEquals(n, h.pmus[0].reads, "CPU 0: A's counters (remote save)");
        assertEquals(2L * n, h.pmus[1].reads, "CPU 1: D's counters (forced save), then A's (to idle)");
        assertEquals(1, stat(s, PolicySession.STAT_IPIS));
        assertEquals(1, stat(s, LazySession.STAT_FORCED_SAVES));
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
        Rig rig = guestACounting(h, s, m);
        rig.enter(0);
        assertTrue(s.guestWrite(0, 1, 0, m.control(1), m.instCode() | USR | EN)); // frozen: context only
        rig.runGuest(0, 4, 0);
        rig.enter(0);
        long lazyLoads = stat(s, LazySession.STAT_LAZY_LOADS);
        assertTrue(s.guestWrite(0, 4, 0, m.control(0), m.clkCode() | USR | EN)); // D's first access: a lazy load
        assertEquals(lazyLoads + 1, stat(s, LazySession.STAT_LAZY_LOADS));
        assertEquals(0, h.pmus[0].real.read(m.control(0)), "frozen until the exit");
        rig.runGuest(0, 1, 0); // D saved while frozen, A loaded
        assertEquals(m.instCode() | USR | EN, h.pmus[0].real.read(m.control(1)), "A's write made while frozen");
        rig.guest(0, 1_000, B_RATES, 3); // 3 instructions per cycle
        assertEquals(3_000, rig.read(0, m.counter(1)), "A's counter 1 counts instructions since the write");
        rig.reschedule(0, 4, 0);
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
            rig.runGuest(pcpu, 1 + round % 3, round % 2);
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
        rig.runGuest(0, 1, 0);
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
        Rig rig = guestACounting(h, s, m); // A runs
        rig.reschedule(0, 4, 0);
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
        rig.reschedule(0, 4, 0);
        assertEquals(1234, rig.read(0, m.counter(0)), "D's value came back at its next access");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void countersPassThroughOnlyWhileTheContextIsLoadedAndRunning(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        rig.runGuest(0, 1, 0);
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
        Rig rig = guestACounting(h, s, m);
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
        rig.runGuest(0, 1, 0);
        assertTrue(rig.write(0, m.counter(0), 777));
        rig.enter(0);
        rig.switchTo(0, IDLE, 0); // not running: stays loaded on CPU 0
        rig.runGuest(1, 1, 0);
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
        Rig rig = guestACounting(h, s, m);
        rig.guest(0, 2_000, A_RATES, 3);
        for (int i = 0; i < m.model().counterCount(); i++) {
            assertTrue(rig.write(0, m.control(i), 0)); // stop
        }
        rig.guest(0, 5_000, A_RATES, 3); // not counted
        long before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        for (int round = 0; round < 5; round++) {
            rig.enter(0);
            rig.switchTo(0, 3, 0);
            rig.runGuest(0, 1, 0);
            rig.guest(0, 1_000, A_RATES, 3);
        }
        assertEquals(0, stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before, "a stopped context moves no state");
        assertTrue(rig.write(0, m.control(0), m.instCode() | USR | EN)); // restart counter 0 only
        rig.guest(0, 3_000, A_RATES, 3);
        rig.enter(0);
        rig.switchTo(0, 3, 0);
        rig.runGuest(0, 1, 0);
        rig.guest(0, 1_500, A_RATES, 3);
        assertEquals(2_000 + 4_500, rig.read(0, m.counter(0)), "counted before the stop and after the restart only");
    }
}
