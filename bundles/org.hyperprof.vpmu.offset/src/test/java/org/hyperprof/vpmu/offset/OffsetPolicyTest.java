package org.hyperprof.vpmu.offset;

import static org.hyperprof.testing.vpmu.VirtualPmuPolicyContract.stat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.testing.alloc.Allocations;
import org.hyperprof.testing.vpmu.VirtualPmuPolicyContract;
import org.hyperprof.testing.vpmu.truth.CountingHost;
import org.hyperprof.testing.vpmu.truth.CountingPmu;
import org.hyperprof.testing.vpmu.truth.Machine;
import org.hyperprof.vpmu.kit.PmuContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class OffsetPolicyTest {
    static final long EN = 1L << 22;
    static final long INT = 1L << 20;
    static final long OS = 1L << 17;
    static final long USR = 1L << 16;

    /** A real model with its cycles and instructions event codes and a user-only cycles sampling spec. */
    record Kind(String name, PmuModel model, long cycles, long instructions, String sampling, long period) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final Kind P6 = new Kind("P6", new P6PmuModel(), 0x79, 0xC0, "CPU_CLK_UNHALTED:6000:0:0:1", 6000);
    static final Kind HAMMER = new Kind("AMD hammer", new HammerPmuModel(), 0x76, 0xC0, "CPU_CLK_UNHALTED:3000:0:0:1",
            3000);

    static Stream<Arguments> models() {
        return Stream.of(Arguments.of(P6), Arguments.of(HAMMER));
    }

    private CountingHost host;
    private PolicySession session;
    private Machine machine;
    private int[] counters;
    private int[] selects;

    private void boot(Kind kind, int pcpus) {
        host = new CountingHost(kind.model(), pcpus);
        session = new OffsetPolicy().open(host);
        machine = new Machine(host, session, Machine.rates(1000, 500));
        counters = host.pmus[0].counterRegisters().clone();
        selects = host.pmus[0].controlRegisters().clone();
    }

    /** Counting (no interrupt) select for an event; EN on every select (P6 needs it on select 0, ignores it on 1). */
    private static long counting(long event, long privilege) {
        return event | privilege | EN;
    }

    // ------------------------------------------------------------------ identity

    @Test
    void isRegisteredAsOffsetWithAOneLineDescription() {
        OffsetPolicy policy = new OffsetPolicy();
        VirtualPmuPolicyContract.assertRegisteredAs("offset", policy);
        assertTrue(policy.description().startsWith("Perfctr-Xen"), policy.description());
        NullPointerException e = assertThrows(NullPointerException.class, () -> policy.open(null));
        assertTrue(e.getMessage().contains("host"));
    }

    // ------------------------------------------------------------------ exact counts

    /**
     * Two guests with different events and different code alternate, migrate between two CPUs and
     * pass through idle; each guest's logical counters equal exactly what it ran (its preload plus
     * the events of its own stints, computed by the machine independently of any counter).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void countsAreExactAcrossSwitchesMigrationsAndIdle(Kind kind) {
        boot(kind, 2);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 300));
        machine.switchTo(0, a);
        machine.write(0, counters[0], 1000);
        machine.write(0, selects[0], counting(kind.cycles(), OS | USR));
        machine.write(0, selects[1], counting(kind.instructions(), USR));
        machine.switchTo(1, b);
        machine.write(1, selects[0], counting(kind.instructions(), OS | USR));
        machine.write(1, selects[1], counting(kind.cycles(), USR));
        for (int round = 0; round < 6; round++) {
            machine.guestCode(0, 20_000);
            machine.guestCode(1, 30_000);
            machine.hypervisor(0, 3_000); // work for A, inside its stint
            machine.hypervisor(1, 1_000);
            machine.read(0, counters[0]); // a guest read in mid-run (charged, counted as A's hypervisor work)
            machine.guestCode(0, 10_000);
            // A leaves CPU 0 for idle, takes B's place on CPU 1; B moves to CPU 0.
            machine.switchTo(0, null);
            machine.switchTo(1, round % 2 == 0 ? a : b);
            machine.switchTo(0, round % 2 == 0 ? b : a);
            machine.guestCode(0, 5_000);
            machine.guestCode(1, 5_000);
            machine.switchTo(0, round % 2 == 0 ? a : b);
            machine.switchTo(1, round % 2 == 0 ? b : a);
        }
        // A is on CPU 0 and B on CPU 1, both armed: reads are live (sum + raw - start).
        Machine.Guest onZero = machine.current[0];
        assertTrue(onZero == a || onZero == b);
        int pa = onZero == a ? 0 : 1;
        int pb = 1 - pa;
        long a0 = 1000 + a.user(Signal.CYCLES) + a.kernel(Signal.CYCLES);
        long a1 = a.user(Signal.INSTRUCTIONS);
        long b0 = b.user(Signal.INSTRUCTIONS) + b.kernel(Signal.INSTRUCTIONS);
        long b1 = b.user(Signal.CYCLES);
        assertEquals(a0, session.guestRead(pa, 1, 0, counters[0]), "A's cycles (OS+USR), live");
        assertEquals(a1, session.guestRead(pa, 1, 0, counters[1]), "A's user instructions, live");
        assertEquals(b0, session.guestRead(pb, 2, 0, counters[0]), "B's instructions (OS+USR), live");
        assertEquals(b1, session.guestRead(pb, 2, 0, counters[1]), "B's user cycles, live");
        assertTrue(a.kernel(Signal.CYCLES) > 0 && b.kernel(Signal.INSTRUCTIONS) > 0, "hypervisor work was counted");
        // Switched out, the logical values are the sums folded at switch-out: the same numbers.
        machine.switchTo(0, null);
        machine.switchTo(1, null);
        assertEquals(a0, session.guestRead(0, 1, 0, counters[0]));
        assertEquals(a1, session.guestRead(0, 1, 0, counters[1]));
        assertEquals(b0, session.guestRead(1, 2, 0, counters[0]));
        assertEquals(b1, session.guestRead(1, 2, 0, counters[1]));
    }

    /** A vCPU that never set up its PMU sees power-on registers however much others counted, and costs nothing. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aGuestWithoutCountersSeesNoneOfTheOthersEvents(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest quiet = machine.guest(3, 0, Machine.rates(1000, 900));
        Machine.Guest other = machine.guest(4, 0, Machine.rates(1000, 900));
        machine.switchTo(0, a);
        machine.write(0, selects[0], counting(kind.cycles(), OS | USR));
        machine.guestCode(0, 50_000);
        machine.switchTo(0, quiet);
        machine.guestCode(0, 70_000);
        for (int c : counters) {
            assertEquals(0, machine.read(0, c), "counter 0x" + Integer.toHexString(c));
        }
        for (int s : selects) {
            assertEquals(0, machine.read(0, s));
        }
        // Between two vCPUs that never touched their PMU, a switch makes no access at all.
        machine.switchTo(0, other);
        long before = host.physicalAccesses();
        machine.switchTo(0, quiet);
        machine.switchTo(0, other);
        assertEquals(0, host.physicalAccesses() - before);
        machine.switchTo(0, a);
        assertEquals(a.user(Signal.CYCLES) + a.kernel(Signal.CYCLES), machine.read(0, counters[0]));
    }

    // ------------------------------------------------------------------ reprogramming skipped, figures

    /**
     * Consecutive vCPUs counting the same events: the switch reads each used counter at switch-out
     * and takes each start at the exit, and writes no select. Compared with a full save/restore of
     * the same registers (PmuContext.save + restore on the same register file).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void sameEventsSkipReprogrammingAndCostFewerAccessesThanAFullSaveRestore(Kind kind) {
        boot(kind, 1);
        int used = counters.length; // P6: both counters, hammer: all four
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 400));
        for (Machine.Guest g : new Machine.Guest[] {a, b}) {
            machine.switchTo(0, g);
            for (int i = 0; i < used; i++) {
                machine.write(0, selects[i], counting(i % 2 == 0 ? kind.cycles() : kind.instructions(), OS | USR));
            }
        }
        long skippedBefore = stat(session, PolicySession.STAT_REPROGRAM_SKIPPED);
        long statBefore = stat(session, PolicySession.STAT_SWITCH_ACCESSES);
        long reads = host.pmus[0].reads;
        long writes = host.pmus[0].writes;
        long saveCycles = host.charged("vpmu_save");
        int switches = 10;
        for (int n = 0; n < switches; n++) {
            machine.guestCode(0, 10_000);
            machine.switchTo(0, n % 2 == 0 ? a : b);
        }
        long offsetPerSwitch = (host.pmus[0].reads - reads + host.pmus[0].writes - writes) / switches;
        assertEquals(switches, stat(session, PolicySession.STAT_REPROGRAM_SKIPPED) - skippedBefore);
        assertEquals(2L * used, offsetPerSwitch, "a read per used counter at switch-out, one more at the exit");
        assertEquals(0, host.pmus[0].writes - writes,
                "no writes at all: the selects are the same and the counters count (not sampling)");
        assertEquals(switches * used * CountingHost.READ, host.charged("vpmu_save") - saveCycles,
                "switch-out makes reads only");
        assertEquals(switches * 2L * used, stat(session, PolicySession.STAT_SWITCH_ACCESSES) - statBefore,
                "statistics report the accesses the register file saw");

        CountingPmu full = new CountingPmu(kind.model().createPmu(0, Map.of()));
        PmuContext context = new PmuContext(kind.model().createPmu(1, Map.of()));
        context.save(full);
        context.restore(full);
        long fullPerSwitch = full.accesses();
        assertEquals(2L * (counters.length + selects.length + 1), fullPerSwitch, "counters, controls and LVTPC");
        assertTrue(offsetPerSwitch < fullPerSwitch);
        System.out.printf("offset %s: %d accesses per switch (same events, %d counters used) vs full save/restore %d%n",
                kind, offsetPerSwitch, used, fullPerSwitch);
    }

    /** One select differs between the two vCPUs: that one is written at every switch-in, nothing is skipped. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void differingEventsAreReprogrammedSelectBySelect(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 400));
        machine.switchTo(0, a);
        machine.write(0, selects[0], counting(kind.cycles(), OS | USR));
        machine.write(0, selects[1], counting(kind.instructions(), USR));
        machine.switchTo(0, b);
        machine.write(0, selects[0], counting(kind.cycles(), OS | USR));
        machine.write(0, selects[1], counting(kind.instructions(), OS | USR)); // differs from A's
        long skipped = stat(session, PolicySession.STAT_REPROGRAM_SKIPPED);
        long writes = host.pmus[0].writes;
        long accesses = host.physicalAccesses();
        for (int n = 0; n < 4; n++) {
            machine.guestCode(0, 10_000);
            machine.switchTo(0, n % 2 == 0 ? a : b);
        }
        assertEquals(0, stat(session, PolicySession.STAT_REPROGRAM_SKIPPED) - skipped);
        assertEquals(4, host.pmus[0].writes - writes, "exactly the one differing select per switch");
        assertEquals(4 * (2 * 2 + 1), host.physicalAccesses() - accesses);
        assertEquals(kind.instructions() | OS | USR | EN, host.pmus[0].real.read(selects[1]),
                "B is current: its select is on the hardware");
    }

    // ------------------------------------------------------------------ the switch path is excluded

    /**
     * The counters go on counting through the switch path (here 5000 cycles of hypervisor work plus
     * the policy's own charged accesses), but that belongs to no guest: the guests' counts are exact
     * and the excluded events are reported, to the event.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void eventsOfTheSwitchPathAreExcludedAndReported(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 400));
        for (Machine.Guest g : new Machine.Guest[] {a, b}) {
            machine.switchTo(0, g);
            machine.write(0, selects[0], counting(kind.cycles(), OS | USR)); // counts the hypervisor's cycles too
            machine.write(0, selects[1], counting(kind.instructions(), USR)); // never sees hypervisor code
        }
        long subtracted = stat(session, PolicySession.STAT_CYCLES_SUBTRACTED);
        long policyCycles = host.charged("vpmu_save") + host.charged("vpmu_load");
        int switches = 8;
        for (int n = 0; n < switches; n++) {
            machine.guestCode(0, 12_000);
            machine.hypervisor(0, 2_000);
            machine.switchTo(0, n % 2 == 0 ? a : b);
        }
        long policyPerSwitch = (host.charged("vpmu_save") + host.charged("vpmu_load") - policyCycles) / switches;
        assertEquals(2 * CountingHost.READ + 2 * CountingHost.READ, policyPerSwitch, "2 reads at switch-out, 2 at the exit");
        assertEquals(switches * (machine.switchPathCycles + policyPerSwitch),
                stat(session, PolicySession.STAT_CYCLES_SUBTRACTED) - subtracted,
                "every cycle of the switch path and of the policy's own work, on the cycles counter");
        for (Machine.Guest g : new Machine.Guest[] {a, b}) {
            machine.switchTo(0, g);
            assertEquals(g.user(Signal.CYCLES) + g.kernel(Signal.CYCLES), machine.read(0, counters[0]));
            assertEquals(g.user(Signal.INSTRUCTIONS), machine.read(0, counters[1]));
        }
    }

    // ------------------------------------------------------------------ a guest reprograms mid-run

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aGuestReprogrammingMidRunCountsTheNewEventFromThen(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 700));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 200));
        machine.switchTo(0, b);
        machine.write(0, selects[0], counting(kind.cycles(), OS | USR));
        machine.switchTo(0, a);
        machine.write(0, selects[0], counting(kind.cycles(), OS | USR));
        machine.guestCode(0, 20_000);
        machine.switchTo(0, b);
        machine.guestCode(0, 20_000);
        machine.switchTo(0, a);
        machine.guestCode(0, 10_000);
        long cyclesBefore = a.user(Signal.CYCLES) + a.kernel(Signal.CYCLES);
        assertEquals(cyclesBefore, machine.read(0, counters[0]));
        // Mid-run: stop, switch counter 0 to user instructions, clear it, start again.
        machine.write(0, selects[0], 0);
        machine.write(0, counters[0], 0);
        long instructionsAtChange = a.user(Signal.INSTRUCTIONS);
        machine.write(0, selects[0], counting(kind.instructions(), USR));
        machine.guestCode(0, 30_000);
        machine.switchTo(0, b); // B's select differs now: reprogrammed, not skipped
        machine.guestCode(0, 40_000);
        machine.switchTo(0, a);
        machine.guestCode(0, 10_000);
        assertEquals(a.user(Signal.INSTRUCTIONS) - instructionsAtChange, machine.read(0, counters[0]));
        machine.switchTo(0, b);
        assertEquals(b.user(Signal.CYCLES) + b.kernel(Signal.CYCLES), machine.read(0, counters[0]),
                "B's counts were untouched by A's reprogramming");
    }

    // ------------------------------------------------------------------ sampling

    /**
     * A guest samples user cycles with its model's own driver while another guest counts a different
     * event on the same counter; every overflow its handler finds comes when its true user cycles
     * are an exact multiple of the period, across switches, and none is lost or invented.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void samplingCountersOverflowAtTheRightLogicalCount(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 500));
        machine.switchTo(0, b);
        machine.write(0, selects[0], counting(kind.instructions(), OS | USR));
        machine.switchTo(0, a);
        machine.startProfiler(0, kind.sampling());
        assertEquals(0, a.refused);
        long[] stints = {1_234, 4_567, 8_910, 2_345, 17_001, 333, 6_000, 9_999};
        for (int n = 0; n < 24; n++) {
            machine.guestCode(0, stints[n % stints.length]);
            machine.hypervisor(0, 700);
            machine.switchTo(0, b);
            machine.guestCode(0, 3_000 + n * 12); // whole instructions: the select change drops fractions
            machine.switchTo(0, a);
        }
        long period = kind.period();
        long userCycles = a.user(Signal.CYCLES);
        assertEquals(userCycles / period, a.overflows.size(), "one overflow per period of A's user cycles");
        for (int k = 0; k < a.overflows.size(); k++) {
            assertArrayEquals(new long[] {0, (k + 1) * period}, a.overflows.get(k), "overflow " + (k + 1));
        }
        assertEquals(a.overflows.size(), host.injections[1 * 16], "an injection per overflow");
        assertEquals(0, host.injections[2 * 16], "B samples nothing and gets nothing");
        assertEquals(a.overflows.size(), stat(session, PolicySession.STAT_INJECTED));
        // B's counts were not disturbed by A's sampling counter on the same register.
        machine.switchTo(0, b);
        assertEquals(b.user(Signal.INSTRUCTIONS) + b.kernel(Signal.INSTRUCTIONS), machine.read(0, counters[0]));
    }

    /** Guest reads of a sampling counter show the model's semantics: a P6 -count preload reads sign-extended. */
    @Test
    void guestReadsUseTheModelsCounterSemantics() {
        boot(P6, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.write(0, counters[0], -6000);
        assertEquals(0xFF_FFFF_FFFFL - 6000 + 1, machine.read(0, counters[0]));
        machine.write(0, selects[0], counting(P6.cycles(), USR) | INT);
        machine.guestCode(0, 5_999);
        assertEquals(0xFF_FFFF_FFFFL, machine.read(0, counters[0]), "one event short: bit 31 still set");
    }

    /** Leaving a sampling vCPU for idle stops its interrupting select: idle gets no stray interrupt. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void samplingSelectsStopWhenNoOneSamples(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.startProfiler(0, kind.sampling());
        machine.guestCode(0, 1_000);
        machine.switchTo(0, null);
        assertEquals(0, host.pmus[0].real.read(selects[0]) & INT);
        long injected = stat(session, PolicySession.STAT_INJECTED);
        machine.hypervisor(0, 1_000_000);
        assertEquals(injected, stat(session, PolicySession.STAT_INJECTED));
        assertEquals(0, machine.xenoprofChecks);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void anInterruptWithNoSamplingVcpuIsLeftToXenoprof(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.write(0, selects[0], counting(kind.cycles(), USR)); // counting, no INT
        assertTrue(session.pmuInterrupt(0, 1, 0, CpuMode.USER));
        assertEquals(1, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
        assertEquals(0, host.injections[16]);
    }

    // ------------------------------------------------------------------ routing, refusal, lifecycle

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void overflowOfACounterTheCurrentVcpuUsesIsTheGuests(Kind kind) {
        boot(kind, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.write(0, selects[0], counting(kind.cycles(), USR));
        assertEquals(OverflowRoute.GUEST, session.overflow(0, 1, 0, 0, CpuMode.USER));
        assertEquals(OverflowRoute.XENOPROF, session.overflow(0, 1, 0, 1, CpuMode.USER));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> session.overflow(0, 1, 0, counters.length, CpuMode.USER));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void whileXenoprofHoldsThePmuGuestWritesAreRefusedWithAReason() {
        boot(P6, 1);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        host.xenoprofOwns = true;
        assertFalse(machine.write(0, selects[0], counting(P6.cycles(), USR)));
        assertEquals(1, stat(session, PolicySession.STAT_GUEST_REFUSED));
        String why = session.refusal(1, 0, selects[0]);
        assertTrue(why.contains("Xenoprof holds the PMU") && why.contains("vpmu.policy=partitioned"), why);
        assertEquals(0, host.pmus[0].real.read(selects[0]));
    }

    @Test
    void lifecycleAndBadArgumentsGiveClearErrors() {
        boot(P6, 2);
        assertTrue(session.guestsSeePmu());
        IllegalArgumentException cpu = assertThrows(IllegalArgumentException.class,
                () -> session.vcpuSwitch(2, -1, 0, 1, 0));
        assertEquals("physical CPU 2 does not exist: the host has 2 (0 to 1)", cpu.getMessage());
        IllegalArgumentException reg = assertThrows(IllegalArgumentException.class,
                () -> session.guestRead(0, 1, 0, 0x999));
        assertFalse(reg.getMessage().isBlank());
        session.close();
        session.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> session.hypervisorExit(0, 1, 0));
        assertTrue(closed.getMessage().contains("session is closed"));
    }

    // ------------------------------------------------------------------ no allocation

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void hooksDoNotAllocate(Kind kind) {
        boot(kind, 2);
        long[] sink = {exercise(kind, 20_000)};
        long allocated = Allocations.leastBytes(() -> sink[0] += exercise(kind, 50_000));
        assertTrue(allocated < 1024, "50 000 rounds of offset hooks allocated " + allocated + " bytes");
        assertTrue(sink[0] != 42);
    }

    private long exercise(Kind kind, int rounds) {
        long sink = 0;
        long sampling = kind.cycles() | USR | EN | INT;
        for (int i = 0; i < rounds; i++) {
            int p = i & 1;
            int d = 1 + (i % 3);
            session.vcpuSwitch(p, -1, 0, d, 0);
            session.hypervisorExit(p, d, 0);
            session.hypervisorEntry(p, d, 0);
            session.guestWrite(p, d, 0, selects[0], (i & 2) == 0 ? sampling : counting(kind.instructions(), USR));
            session.guestWrite(p, d, 0, counters[0], -3000);
            sink += session.guestRead(p, d, 0, counters[0]);
            sink += session.pmuInterrupt(p, d, 0, CpuMode.USER) ? 1 : 0;
            sink += session.overflow(p, d, 0, 0, CpuMode.USER).ordinal();
            session.hypervisorExit(p, d, 0);
            session.vcpuSwitch(p, d, 0, -1, 0);
            host.pending[p] = 0;
        }
        return sink;
    }
}
