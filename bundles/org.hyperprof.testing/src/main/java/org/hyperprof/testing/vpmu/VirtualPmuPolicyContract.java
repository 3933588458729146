package org.hyperprof.testing.vpmu;

import static org.hyperprof.testing.vpmu.TestedModel.EN;
import static org.hyperprof.testing.vpmu.TestedModel.OS;
import static org.hyperprof.testing.vpmu.TestedModel.USR;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.testing.alloc.Allocations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules every policy whose sessions offer guests a virtual PMU of the host's model keeps (the
 * save/restore-style policies, whose sessions share {@code org.hyperprof.vpmu.kit}'s base): exact
 * counts per guest across switches and migrations, the two freeze modes, reprogramming, virtual
 * interrupts only to the vCPU whose counters are loaded, Xenoprof's hold on the PMU, the session
 * lifecycle and hooks that do not allocate. A policy bundle's test extends this class with its
 * policy and the two real models (P6's shared enable, AMD's select per counter: the model bundles
 * are the tests' dependencies, not this bundle's), and adds the cases its policy alone has.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class VirtualPmuPolicyContract {
    protected static final int IDLE = -1;
    /** Guest A: 1 instruction per cycle. */
    protected static final SignalRates A_RATES = TestedModel.rates(1000, 1000);
    /** Guest B: 3 instructions per cycle. */
    protected static final SignalRates B_RATES = TestedModel.rates(1000, 3000);

    protected final CounterVirtualizationPolicy policy;
    protected final TestedModel p6;
    protected final TestedModel hammer;
    private final boolean readsOfARunningCounterTrap;

    /**
     * @param readsOfARunningCounterTrap whether a guest's read of a counter that runs traps into the
     *        hypervisor (it does under save/restore; lazy passes it through)
     */
    protected VirtualPmuPolicyContract(CounterVirtualizationPolicy policy, TestedModel p6, TestedModel hammer,
            boolean readsOfARunningCounterTrap) {
        this.policy = policy;
        this.p6 = p6;
        this.hammer = hammer;
        this.readsOfARunningCounterTrap = readsOfARunningCounterTrap;
    }

    protected Stream<TestedModel> models() {
        return Stream.of(p6, hammer);
    }

    protected static FakeHost host(TestedModel m, int pcpus) {
        return new FakeHost(m.model(), pcpus);
    }

    /** The guest's counting setup: counter 0 instructions, counter 1 cycles, from zero, at {@code privilege}. */
    protected static void programCounting(Rig rig, int pcpu, TestedModel m, long privilege) {
        assertTrue(rig.write(pcpu, m.counter(0), 0));
        assertTrue(rig.write(pcpu, m.counter(1), 0));
        assertTrue(rig.write(pcpu, m.control(0), m.instCode() | privilege | EN));
        assertTrue(rig.write(pcpu, m.control(1), m.clkCode() | privilege | EN));
    }

    /** A rig on the session with guest A (domain 1, vCPU 0) running on CPU 0 and counting in user mode. */
    protected static Rig guestACounting(FakeHost h, PolicySession s, TestedModel m) {
        Rig rig = new Rig(h, s);
        rig.runGuest(0, 1, 0);
        programCounting(rig, 0, m, USR);
        return rig;
    }

    /** Every register read the host's PMUs saw was a counter's: the saves read nothing else. */
    protected static void assertOnlyCountersWereRead(FakeHost h, TestedModel m) {
        for (FakeHost.LoggingPmu pmu : h.pmus) {
            for (String access : pmu.accesses()) {
                assertTrue(access.startsWith("w ") || counters(m, "r").contains(access), access + " at a save");
            }
        }
    }

    /** A statistic of the session, by its key ({@code STAT_...}). */
    public static long stat(PolicySession s, String key) {
        return s.statistics().get(key);
    }

    /** The register accesses the session counts as switch work ({@code STAT_SWITCH_ACCESSES}) during {@code step}. */
    protected static long switchAccesses(PolicySession s, Runnable step) {
        long before = stat(s, PolicySession.STAT_SWITCH_ACCESSES);
        step.run();
        return stat(s, PolicySession.STAT_SWITCH_ACCESSES) - before;
    }

    /** Every register of a context as the rig logs its accesses ({@code kind} "r" or "w"): counters, controls, LVTPC. */
    protected static List<String> all(TestedModel m, String kind) {
        return concat(concat(counters(m, kind), controls(m, kind)), List.of(kind + " 0x340"));
    }

    protected static List<String> counters(TestedModel m, String kind) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m.model().counterCount(); i++) {
            out.add(kind + " 0x" + Integer.toHexString(m.counter(i)));
        }
        return out;
    }

    protected static List<String> controls(TestedModel m, String kind) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < m.model().counterCount(); i++) {
            out.add(kind + " 0x" + Integer.toHexString(m.control(i)));
        }
        return out;
    }

    protected static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    // ------------------------------------------------------------------------------ identity

    @Test
    void itIsKnownByTheVpmuPolicyItsComponentStatesAndSaysThatName() {
        assertKnownByTheNameItRegistersWith(policy);
    }

    /**
     * The rule every policy keeps, whether or not it offers guests a PMU: its component states its
     * {@value CounterVirtualizationPolicy#NAME} once, and {@link CounterVirtualizationPolicy#name()}
     * is the name the host binds it under.
     */
    public static void assertKnownByTheNameItRegistersWith(CounterVirtualizationPolicy policy) {
        CounterVirtualizationPolicy.Policy stated = policy.getClass()
                .getAnnotation(CounterVirtualizationPolicy.Policy.class);
        assertNotNull(stated, policy.getClass().getName() + " states its name with @CounterVirtualizationPolicy.Policy");
        // What a host binds the policy under: the property DS registers from that statement.
        assertEquals(CounterVirtualizationPolicy.IDENTITY.of(Map.of(CounterVirtualizationPolicy.NAME, stated.value()),
                policy), policy.name());
    }

    /**
     * The policy is known by {@code name}, as {@link #assertKnownByTheNameItRegistersWith} checks, and
     * describes itself in one line.
     */
    public static void assertRegisteredAs(String name, CounterVirtualizationPolicy policy) {
        assertEquals(name, policy.name());
        assertKnownByTheNameItRegistersWith(policy);
        assertFalse(policy.description().contains("\n"), policy.description());
    }

    // ------------------------------------------------------------------------------ sessions

    @Test
    void guestsSeeAPmu() {
        assertTrue(policy.open(host(p6, 1)).guestsSeePmu());
    }

    @Test
    void anUnknownFreezeModeIsRefusedAtOpenNamingTheAllowedOnes() {
        FakeHost h = host(p6, 1);
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
        Rig rig = guestACounting(h, policy.open(h), m);
        rig.reschedule(0, 2, 0);
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
            rig.reschedule(0, 3, 0); // never touches its PMU
            rig.guest(0, 5_000, TestedModel.rates(1000, 4000), 3);
            rig.enter(0);
            rig.switchTo(0, IDLE, 0);
            rig.hypervisor(0, 700);
            rig.runGuest(0, 2, 0);
        }
        long readInstB = rig.read(0, m.counter(0));
        long readCyclesB = rig.read(0, m.counter(1));
        rig.reschedule(0, 1, 0);
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
        Rig rig = guestACounting(h, policy.open(h), m);
        rig.runGuest(1, 2, 0);
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
            rig.reschedule(b, 1, 0);
            rig.runGuest(a, 2, 0);
        }
        long readA = rig.read(0, m.counter(0)); // after an even number of rounds, A is back on CPU 0
        long readB = rig.read(1, m.counter(0));
        assertEquals(instA, readA, "guest A");
        assertEquals(instB, readB, "guest B");
    }

    // ------------------------------------------------------------------------------ freeze

    /** What one guest's cycle counter gained between two reads, and what the rig's ledger says ran meanwhile. */
    protected record Window(long counted, long guestCycles, long hypervisorCycles, long exitChargeCycles,
            long explicitHypervisorWork) {
    }

    /**
     * One schedule: guest A counts cycles at both privileges (an HVM guest: its kernel runs at CPL 0),
     * guest B runs between; traps and switches put hypervisor work on A's account.
     */
    protected static Window freezeSchedule(CounterVirtualizationPolicy policy, TestedModel m, String freeze,
            boolean free) {
        FakeHost h = host(m, 1);
        h.options.put("freeze", freeze);
        if (free) {
            h.readCost = 0;
            h.writeCost = 0;
            h.injectCost = 0;
        }
        Rig rig = new Rig(h, policy.open(h));
        rig.runGuest(0, 1, 0);
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
        // two per round, plus the first read's own trap exit where reads of a running counter trap
        long exits = 10 * 2 + (readsOfARunningCounterTrap ? 1 : 0);
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
        Rig rig = guestACounting(h, s, m);
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
        Rig rig = guestACounting(h, s, m);
        rig.enter(0);
        assertTrue(s.guestWrite(0, 1, 0, m.control(0), m.clkCode() | USR | EN));
        assertEquals(0, h.pmus[0].real.read(m.control(0)), "still frozen");
        assertEquals(m.clkCode() | USR | EN, s.guestRead(0, 1, 0, m.control(0)), "the guest reads what it wrote");
        rig.exit(0);
        assertEquals(m.clkCode() | USR | EN, h.pmus[0].real.read(m.control(0)));
    }


    /**
     * Xenoprof's driver {@code setup} rewrites the hardware while guest A's running context is loaded:
     * every event select cleared, -1 in every counter. The save does not take those controls for A's
     * (under a lazy policy that would also make A's context look stopped, so it would never be loaded
     * again): its next switch-in writes A's own back, the counter at -1 wraps after one event, A's
     * handler sees an overflow and re-arms it, and A's sampling resumes at its period.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void controlsRewrittenOnTheHardwareBySomeoneElseArePutRightAtTheNextSwitchInAndSamplingResumes(TestedModel m) {
        FakeHost h = host(m, 1);
        PolicySession s = policy.open(h);
        Rig rig = new Rig(h, s);
        GuestProfiler a = new GuestProfiler(m.model(), m.userInstructionsEvery(1_000));
        rig.profilers[FakeHost.key(1, 0)] = a;
        rig.runGuest(0, 1, 0);
        a.program(rig, 0);
        rig.guest(0, 10_500, A_RATES, 3);
        assertEquals(10, a.samples, "sampling before the rewrite");
        rig.pmu(0).setup(new org.hyperprof.api.pmu.CounterConfig[m.model().counterCount()]); // Xenoprof's driver
        for (int i = 0; i < m.model().counterCount(); i++) {
            assertEquals(0, rig.pmu(0).read(m.control(i)), "setup cleared select " + i);
        }
        rig.guest(0, 5_000, A_RATES, 3);
        assertEquals(10, a.samples, "nothing counts until A's controls are back");
        rig.reschedule(0, 2, 0);
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

    // ------------------------------------------------------------------------------ reprogramming

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aGuestReprogrammingItsCountersMidRunCountsTheNewEventFromThereExactly(TestedModel m) {
        FakeHost h = host(m, 1);
        Rig rig = guestACounting(h, policy.open(h), m);
        rig.runGuest(0, 2, 0); // guest B
        programCounting(rig, 0, m, USR);
        rig.guest(0, 9_000, B_RATES, 3);
        rig.reschedule(0, 1, 0);
        rig.guest(0, 4_000, A_RATES, 3);
        // A stops counter 0, clears it and makes it count cycles at user level only, then restarts it.
        assertTrue(rig.write(0, m.control(0), 0));
        assertTrue(rig.write(0, m.counter(0), 0));
        assertTrue(rig.write(0, m.control(0), m.clkCode() | USR | EN));
        long cyclesSince = 0;
        for (int round = 0; round < 5; round++) {
            rig.guest(0, 3_000, A_RATES, 3);
            cyclesSince += 3_000;
            rig.reschedule(0, 2, 0);
            rig.guest(0, 2_000, B_RATES, 3);
            rig.reschedule(0, 1, 0);
        }
        assertEquals(cyclesSince, rig.read(0, m.counter(0)), "counter 0 counts cycles from the reprogramming");
        assertEquals(4_000 + cyclesSince, rig.read(0, m.counter(1)), "counter 1 went on counting cycles");
        rig.reschedule(0, 2, 0);
        assertEquals(3 * (9_000 + 10_000), rig.read(0, m.counter(0)), "B's instructions are unaffected");
    }

    /** Real hardware, kept: a P6 counter write sign-extends bit 31, so a value in [2^31, 2^40) loses its high bits. */
    @Test
    void aP6CounterPastBit31ComesBackSignExtendedAfterASwitchAsOnHardware() {
        TestedModel m = p6;
        FakeHost h = host(m, 1);
        Rig rig = guestACounting(h, policy.open(h), m);
        assertTrue(rig.write(0, m.counter(0), 0x7FFF_FFF0L));
        rig.guest(0, 0x20, A_RATES, 3);
        assertEquals(0x8000_0010L, rig.read(0, m.counter(0)));
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.runGuest(0, 1, 0);
        assertEquals(0xFF_8000_0010L, rig.read(0, m.counter(0)), "bits 39:32 became copies of bit 31");
    }

    @Test
    void anAmdCounterPastBit31ComesBackWhole() {
        TestedModel m = hammer;
        FakeHost h = host(m, 1);
        Rig rig = guestACounting(h, policy.open(h), m);
        assertTrue(rig.write(0, m.counter(0), 0x7FFF_FFF0L));
        rig.guest(0, 0x20, A_RATES, 3);
        rig.enter(0);
        rig.switchTo(0, 2, 0);
        rig.runGuest(0, 1, 0);
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
        rig.runGuest(0, 1, 0);
        a.program(rig, 0);
        rig.reschedule(0, 4, 1);
        d.program(rig, 0);
        rig.reschedule(0, 2, 0);
        programCounting(rig, 0, m, USR); // B counts, no interrupt enable
        long instA = 0;
        long instD = 0;
        for (int round = 0; round < 30; round++) {
            rig.guest(0, 4_321, B_RATES, 3);
            rig.reschedule(0, 1, 0);
            rig.guest(0, 2_345 + round, A_RATES, 3);
            instA += 2_345 + round;
            rig.trap(0, 500);
            rig.reschedule(0, 4, 1);
            rig.guest(0, 1_111, B_RATES, 3); // D runs at 3 instructions per cycle
            instD += 3 * 1_111;
            rig.reschedule(0, 2, 0);
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
        Rig rig = guestACounting(h, s, m);
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
        rig.runGuest(0, 1, 0);
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

    /** Every hook of a session, called as a guest would; a policy's test adds the hooks its sessions alone answer. */
    protected Stream<Arguments> hooks() {
        return Stream.of(
                Arguments.of("vcpuSwitch", (Consumer<PolicySession>) s -> s.vcpuSwitch(0, IDLE, 0, 1, 0)),
                Arguments.of("hypervisorEntry", (Consumer<PolicySession>) s -> s.hypervisorEntry(0, 1, 0)),
                Arguments.of("hypervisorExit", (Consumer<PolicySession>) s -> s.hypervisorExit(0, 1, 0)),
                Arguments.of("guestRead", (Consumer<PolicySession>) s -> s.guestRead(0, 1, 0, 0xC1)),
                Arguments.of("guestWrite", (Consumer<PolicySession>) s -> s.guestWrite(0, 1, 0, 0xC1, 1)),
                Arguments.of("guestsSeePmu", (Consumer<PolicySession>) PolicySession::guestsSeePmu),
                Arguments.of("pmuInterrupt", (Consumer<PolicySession>) s -> s.pmuInterrupt(0, 1, 0, CpuMode.USER)),
                Arguments.of("overflow", (Consumer<PolicySession>) s -> s.overflow(0, 1, 0, 0, CpuMode.USER)));
    }

    @ParameterizedTest(name = "{0} after close")
    @MethodSource("hooks")
    void everyHookThrowsAfterClose(String hook, Consumer<PolicySession> call) {
        PolicySession s = policy.open(host(p6, 1));
        assertDoesNotThrow(() -> call.accept(s));
        s.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> call.accept(s));
        assertTrue(e.getMessage().contains("session is closed"), e.getMessage());
        assertTrue(e.getMessage().contains("open a new session"), e.getMessage());
    }

    @Test
    void closingTwiceIsHarmlessAndLeavesOtherSessionsOpen() {
        PolicySession s = policy.open(host(p6, 1));
        PolicySession other = policy.open(host(p6, 1));
        s.close();
        assertDoesNotThrow(s::close);
        assertThrows(IllegalStateException.class, s::guestsSeePmu);
        assertTrue(other.guestsSeePmu());
    }

    @Test
    void aPhysicalCpuOutsideTheHostIsRejected() {
        PolicySession s = policy.open(host(p6, 2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> s.vcpuSwitch(2, IDLE, 0, 1, 0));
        assertEquals("physical CPU 2 does not exist: the host has 2 (0 to 1)", e.getMessage());
    }

    @Test
    void statisticsReportEveryKey() {
        PolicySession s = policy.open(host(p6, 1));
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
        FakeHost h = host(m, 2);
        h.options.put("freeze", freeze);
        h.recording = false;
        Rig rig = new Rig(h, policy.open(h));
        GuestProfiler a = new GuestProfiler(m.model(), m.userInstructionsEvery(500));
        rig.profilers[FakeHost.key(1, 0)] = a;
        rig.runGuest(0, 1, 0);
        a.program(rig, 0);
        rig.runGuest(1, 2, 0);
        programCounting(rig, 1, m, USR | OS);
        exercise(rig, m, 20_000); // compile first: JIT tiers and OSR may allocate while they settle
        long allocated = Allocations.leastBytes(() -> exercise(rig, m, 20_000));
        assertTrue(a.samples > 20_000, "the profiler sampled: " + a.samples);
        assertTrue(allocated < 1024, "20 000 rounds of switches, traps, accesses and interrupts allocated "
                + allocated + " bytes");
    }

    Stream<Arguments> allocationCases() {
        return Stream.of(Arguments.of(p6, "running"), Arguments.of(p6, "exit"),
                Arguments.of(hammer, "running"), Arguments.of(hammer, "exit"));
    }

    protected static void exercise(Rig rig, TestedModel m, int rounds) {
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
            rig.reschedule(b, a == 0 ? 1 : 2, 0);
            rig.runGuest(a, a == 0 ? 2 : 1, 0);
        }
    }
}
