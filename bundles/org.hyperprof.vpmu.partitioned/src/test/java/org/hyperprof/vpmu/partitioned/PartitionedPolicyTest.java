package org.hyperprof.vpmu.partitioned;

import static org.hyperprof.testing.vpmu.VirtualPmuPolicyContract.stat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventDescriptor;
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

class PartitionedPolicyTest {
    static final long EN = 1L << 22;
    static final long INT = 1L << 20;
    static final long OS = 1L << 17;
    static final long USR = 1L << 16;

    /** A real model, its cycles event, the default Xenoprof share, and a sampling period its table allows. */
    record Kind(String name, PmuModel model, long cycles, int xenoprof, long period) {
        @Override
        public String toString() {
            return name;
        }

        EventDescriptor cyclesEvent() {
            return model.events().find("CPU_CLK_UNHALTED").orElseThrow();
        }
    }

    static final Kind P6 = new Kind("P6", new P6PmuModel(), 0x79, 1, 6000);
    static final Kind HAMMER = new Kind("AMD hammer", new HammerPmuModel(), 0x76, 2, 3000);

    static Stream<Arguments> models() {
        return Stream.of(Arguments.of(P6), Arguments.of(HAMMER));
    }

    private CountingHost host;
    private PartitionedSession session;
    private Machine machine;
    private int[] counters;
    private int[] selects;

    private void boot(Kind kind, int pcpus, Map<String, String> options) {
        host = new CountingHost(kind.model(), pcpus);
        host.options = options;
        session = (PartitionedSession) new PartitionedPolicy().open(host);
        machine = new Machine(host, session, Machine.rates(1000, 500));
        counters = host.pmus[0].counterRegisters().clone();
        selects = host.pmus[0].controlRegisters().clone();
    }

    /** Xenoprof's own session on every CPU: its driver programs and starts its counters (0 .. share-1) with kernel+user cycles. */
    private void startXenoprof(Kind kind, long period) {
        startXenoprof(kind, period, true);
    }

    private void startXenoprof(Kind kind, long period, boolean kernel) {
        CounterConfig[] configs = new CounterConfig[counters.length];
        for (int i = 0; i < kind.xenoprof(); i++) {
            configs[i] = new CounterConfig(i, kind.cyclesEvent(), period, 0, kernel, true);
        }
        for (CountingPmu pmu : host.pmus) {
            pmu.real.setup(configs);
            pmu.real.start();
        }
    }

    /**
     * A user profiles the same host again: Xenoprof's driver stops, sets up and starts every CPU's
     * counters while whatever share is loaded stays loaded. Its setup clears every event select and
     * writes -1 into every counter, the guests' share included (the driver knows no partition).
     */
    private void restartXenoprof(Kind kind, long period, boolean kernel) {
        for (CountingPmu pmu : host.pmus) {
            pmu.real.stop();
        }
        startXenoprof(kind, period, kernel);
    }

    /** The guest's own profiler: user cycles every {@code period} on the first counter of its share. */
    private void startGuestProfiler(Kind kind, long period) {
        CounterConfig[] configs = new CounterConfig[counters.length];
        int g0 = kind.xenoprof();
        configs[g0] = new CounterConfig(g0, kind.cyclesEvent(), period, 0, false, true);
        machine.startProfiler(0, configs);
    }

    private int[] shareCounters(Kind kind) {
        return java.util.Arrays.copyOfRange(counters, kind.xenoprof(), counters.length);
    }

    // ------------------------------------------------------------------ identity and the option

    @Test
    void isRegisteredAsPartitionedAndSharesThePmuWithXenoprof() {
        PartitionedPolicy policy = new PartitionedPolicy();
        VirtualPmuPolicyContract.assertRegisteredAs("partitioned", policy);
        boot(P6, 1, Map.of());
        assertTrue(session.sharesPmuWithXenoprof());
        assertTrue(session.guestsSeePmu());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void xenoprofKeepsTheLowerHalfByDefault(Kind kind) {
        boot(kind, 1, Map.of());
        assertEquals(kind.xenoprof(), session.xenoprofCounters());
        for (int i = 0; i < counters.length; i++) {
            assertEquals(i < kind.xenoprof() ? PartitionedSession.XENOPROF : PartitionedSession.FREE,
                    session.owner(0, i));
        }
    }

    @Test
    void theXenoprofShareIsAnOptionCheckedAtOpen() {
        boot(HAMMER, 1, Map.of("xenoprof-counters", "3"));
        assertEquals(3, session.xenoprofCounters());
        for (String bad : new String[] {"0", "5", "two"}) {
            CountingHost h = new CountingHost(HAMMER.model(), 1);
            h.options = Map.of("xenoprof-counters", bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new PartitionedPolicy().open(h));
            assertTrue(e.getMessage().contains("vpmu.xenoprof-counters=" + bad) && e.getMessage().contains("1 to 4"),
                    e.getMessage());
        }
    }

    // ------------------------------------------------------------------ refusals

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void writesBeyondTheGuestsShareAreRefusedWithAReasonToActOn(Kind kind) {
        boot(kind, 1, Map.of());
        startXenoprof(kind, 100_000, false); // user cycles only: the traps below (hypervisor code) leave it still
        long xenoSelect = host.pmus[0].real.read(selects[0]);
        long xenoCounter = host.pmus[0].real.read(counters[0]);
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        for (int i = 0; i < kind.xenoprof(); i++) {
            assertFalse(machine.write(0, counters[i], 0), "counter " + i + " is Xenoprof's");
            assertFalse(machine.write(0, selects[i], kind.cycles() | USR | EN), "select " + i + " is Xenoprof's");
        }
        assertTrue(machine.write(0, counters[kind.xenoprof()], 0));
        assertTrue(machine.write(0, selects[kind.xenoprof()], kind.cycles() | USR | EN));
        assertTrue(machine.write(0, 0x340, 0x400), "LVTPC is virtual");
        assertEquals(2L * kind.xenoprof(), stat(session, PolicySession.STAT_GUEST_REFUSED));
        assertEquals(xenoSelect, host.pmus[0].real.read(selects[0]), "Xenoprof's select untouched");
        assertEquals(xenoCounter, host.pmus[0].real.read(counters[0]), "Xenoprof's counter untouched");
        assertEquals(0x400 | 0, host.pmus[0].real.read(0x340) & 0x700, "LVTPC still routes to NMI for Xenoprof");

        String why = session.refusal(1, 0, counters[0]);
        assertTrue(why.contains("counter 0") && why.contains("belongs to Xenoprof")
                && why.contains("vpmu.xenoprof-counters=" + kind.xenoprof()), why);
        if (kind == P6) {
            assertTrue(why.contains("guests may use counter 1 (register 0xC2/0x187)")
                    && why.contains("profile at most 1 event"), why);
        } else {
            assertTrue(why.contains("guests may use counters 2..3") && why.contains("profile at most 2 events"), why);
        }
        assertTrue(session.refusal(1, 0, selects[0]).startsWith("event select register 0x"), "names the select");
    }

    @Test
    void whenXenoprofTakesEveryCounterTheRefusalSaysToLowerTheOption() {
        boot(P6, 1, Map.of("xenoprof-counters", "2"));
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        assertFalse(machine.write(0, counters[1], 0));
        String why = session.refusal(1, 0, counters[1]);
        assertTrue(why.contains("the guests get no counters") && why.contains("lower vpmu.xenoprof-counters"), why);
    }

    // ------------------------------------------------------------------ the share across switches

    /**
     * Two guests count user cycles and instructions on their share while Xenoprof runs on its own
     * counters; after many switches and a migration each share holds exactly its preload plus what
     * its guest ran, and the hardware share holds the current vCPU's registers.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void sharesAreSavedAndRestoredExactly(Kind kind) {
        boot(kind, 2, Map.of());
        startXenoprof(kind, 0x7FFF_FFFFL); // counting, far from overflowing
        int g0 = kind.xenoprof();
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 300));
        machine.switchTo(0, a);
        machine.write(0, counters[g0], 7_000);
        machine.write(0, selects[g0], kind.cycles() | USR | EN);
        machine.switchTo(1, b);
        machine.write(1, counters[g0], 123);
        machine.write(1, selects[g0], 0xC0 | USR | EN);
        for (int round = 0; round < 5; round++) {
            machine.guestCode(0, 20_000);
            machine.guestCode(1, 10_000);
            machine.switchTo(0, null);
            machine.switchTo(1, round % 2 == 0 ? a : b);
            machine.switchTo(0, round % 2 == 0 ? b : a);
            assertEquals(kind.cycles() | USR | EN, host.pmus[round % 2 == 0 ? 1 : 0].real.read(selects[g0]),
                    "A's select is on the CPU A runs on");
            machine.guestCode(0, 4_000);
            machine.guestCode(1, 6_000);
        }
        machine.switchTo(0, null);
        machine.switchTo(1, null);
        assertEquals(0, host.pmus[0].real.read(selects[g0]), "idle: the share's selects at power-on");
        assertEquals(0, host.pmus[1].real.read(selects[g0]));
        assertEquals(7_000 + a.user(Signal.CYCLES), session.guestRead(0, 1, 0, counters[g0]));
        assertEquals(123 + b.user(Signal.INSTRUCTIONS), session.guestRead(0, 2, 0, counters[g0]));
        assertTrue(a.user(Signal.CYCLES) > 0 && b.user(Signal.INSTRUCTIONS) > 0);
    }

    /** P6 restores a counter through a write, which sign-extends bit 31: exact only when bits 39:31 agree. */
    @Test
    void aP6ShareValueIsRestoredWithTheHardwaresWriteSemantics() {
        boot(P6, 1, Map.of());
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.write(0, counters[1], -6000);
        assertEquals(0xFF_FFFF_FFFFL - 5999, machine.read(0, counters[1]));
        machine.switchTo(0, b);
        machine.switchTo(0, a);
        assertEquals(0xFF_FFFF_FFFFL - 5999, machine.read(0, counters[1]), "bits 39:31 agree: exact");
        host.pmus[0].real.write(selects[0], P6.cycles() | USR | EN); // Xenoprof's EN lets counter 1 count
        machine.write(0, selects[1], P6.cycles() | USR);
        machine.write(0, counters[1], 0x7FFF_FFF0L);
        machine.guestCode(0, 0x20);
        assertEquals(0x8000_0010L, machine.read(0, counters[1]), "counted past bit 31 on the hardware");
        machine.switchTo(0, b);
        machine.switchTo(0, a);
        assertEquals(0xFF_8000_0010L, machine.read(0, counters[1]), "restored by a write: bit 31 sign-extended");
    }

    /**
     * The allocator's cost per switch between two guests, against a full save/restore of every
     * register: as Xen's vPMU, a save reads the share's counters only (the share's selects are the
     * guest's, recorded at its writes), a restore writes the share's counters and selects.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aSwitchReadsOnlyTheSharesCountersAndRestoresTheShare(Kind kind) {
        boot(kind, 1, Map.of());
        int g0 = kind.xenoprof();
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.write(0, selects[g0], kind.cycles() | USR | EN);
        machine.switchTo(0, b);
        machine.write(0, selects[g0], 0xC0 | USR | EN);
        long before = host.physicalAccesses();
        long reads = host.pmus[0].reads;
        long stat = stat(session, PolicySession.STAT_SWITCH_ACCESSES);
        long saved = host.charged("vpmu_save");
        host.pmus[0].clearReadLog();
        for (int n = 0; n < 10; n++) {
            machine.switchTo(0, n % 2 == 0 ? a : b);
        }
        long perSwitch = (host.physicalAccesses() - before) / 10;
        int share = counters.length - kind.xenoprof();
        assertTrue(host.pmus[0].readOnly(shareCounters(kind)), "no select, LVTPC or Xenoprof counter read at a save");
        assertEquals(10L * share, host.pmus[0].reads - reads, "one read per share counter per switch");
        assertEquals(3L * share, perSwitch, "read each share counter; write each share counter and select");
        assertEquals(kind == P6 ? 3 : 6, perSwitch, "P6: share of 1; hammer: share of 2");
        assertEquals(10 * perSwitch, stat(session, PolicySession.STAT_SWITCH_ACCESSES) - stat);
        assertEquals(10 * share * CountingHost.READ, host.charged("vpmu_save") - saved, "the reads charged as vpmu_save");
        before = host.physicalAccesses();
        machine.switchTo(0, null);
        long toIdle = host.physicalAccesses() - before;
        assertEquals(2L * share, toIdle, "to idle: read each share counter, write each share select power-on");
        assertTrue(host.pmus[0].readOnly(shareCounters(kind)));
        CountingPmu full = new CountingPmu(kind.model().createPmu(0, Map.of()));
        PmuContext context = new PmuContext(kind.model().createPmu(1, Map.of()));
        context.save(full);
        context.restore(full);
        assertTrue(perSwitch < full.accesses());
        System.out.printf("partitioned %s: %d accesses per switch (share of %d), %d to idle, vs full save/restore %d%n",
                kind, perSwitch, share, toIdle, full.accesses());
    }

    /**
     * The case that matters for a partitioned PMU: a user profiles the same host twice, and the
     * hypervisor runs Xenoprof's driver setup while guest A's share is loaded, which clears A's select
     * and writes -1 into A's counter on the hardware. A's counter stops; at A's next switch-in its own
     * select is written back (the save did not read the cleared one), the counter at -1 wraps after one
     * event, the interrupt sees it wrapped and injects, A's handler finds the overflow and re-arms it,
     * and A samples at its period again, with no spurious injection.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void xenoprofsSetupRewritingALoadedShareIsPutRightAtTheNextSwitchInAndTheGuestsSamplingHeals(Kind kind) {
        boot(kind, 1, Map.of());
        startXenoprof(kind, 1_000_000, false);
        machine.xenoprofHandler = true;
        int g0 = kind.xenoprof();
        long period = kind.period();
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 300));
        machine.switchTo(0, a);
        startGuestProfiler(kind, period);
        machine.guestCode(0, 3 * period + period / 2);
        assertEquals(3, a.overflows.size(), "A samples before the second session");

        restartXenoprof(kind, 1_000_000, false);
        long width = kind == P6 ? 0xFF_FFFF_FFFFL : 0xFFFF_FFFF_FFFFL;
        assertEquals(0, host.pmus[0].real.read(selects[g0]), "Xenoprof's setup cleared A's select on the hardware");
        assertEquals(width, host.pmus[0].real.read(counters[g0]), "and wrote -1 into A's counter");
        machine.guestCode(0, 2 * period);
        assertEquals(3, a.overflows.size(), "A's counter is stopped until its select is back");

        machine.switchTo(0, b);
        machine.guestCode(0, 1_000);
        machine.switchTo(0, a);
        assertEquals(a.picture.read(selects[g0]), host.pmus[0].real.read(selects[g0]),
                "A's own select is back at its switch-in");
        assertEquals(width, host.pmus[0].real.read(counters[g0]), "its counter restored at -1");
        long healedAt = a.user(Signal.CYCLES) + 1;
        machine.guestCode(0, 1);
        assertEquals(4, a.overflows.size(), "the counter at -1 wrapped after one event: seen as overflowed");
        assertEquals(healedAt, a.overflows.get(3)[1]);
        machine.guestCode(0, 3 * period);
        assertEquals(7, a.overflows.size(), "A's handler re-armed it: A samples at its period again");
        for (int k = 4; k < 7; k++) {
            assertEquals(healedAt + (k - 3) * period, a.overflows.get(k)[1], "overflow " + (k + 1));
        }
        assertEquals(a.overflows.size(), host.injections[16], "one injection per overflow of A's, none spurious");
        assertEquals(0, host.injections[32]);
    }

    // ------------------------------------------------------------------ interrupts

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void overflowsAreRoutedByShare(Kind kind) {
        boot(kind, 1, Map.of());
        for (int i = 0; i < counters.length; i++) {
            assertEquals(i < kind.xenoprof() ? OverflowRoute.XENOPROF : OverflowRoute.GUEST,
                    session.overflow(0, 1, 0, i, CpuMode.USER), "counter " + i);
        }
        assertThrows(IllegalArgumentException.class, () -> session.overflow(0, 1, 0, counters.length, CpuMode.USER));
    }

    /**
     * Xenoprof samples on its counters and a guest samples user cycles on its share with its own
     * driver: every interrupt reaches Xenoprof's handler too, Xenoprof's overflows are its own, and
     * the guest's handler finds its overflows exactly every period of its user cycles.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void interruptsAreInjectedIntoTheGuestAndXenoprofChecksItsCountersToo(Kind kind) {
        boot(kind, 1, Map.of());
        startXenoprof(kind, 50_000);
        machine.xenoprofHandler = true;
        int g0 = kind.xenoprof();
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 300));
        machine.switchTo(0, a);
        CounterConfig[] guestConfigs = new CounterConfig[counters.length];
        guestConfigs[g0] = new CounterConfig(g0, kind.cyclesEvent(), kind.period(), 0, false, true);
        machine.startProfiler(0, guestConfigs);
        assertEquals(2 * kind.xenoprof(), a.refused, "its driver's writes to counter/select 0.. were refused");
        for (int n = 0; n < 20; n++) {
            machine.guestCode(0, 7_000 + 13 * n);
            machine.switchTo(0, b);
            machine.guestCode(0, 9_000);
            machine.switchTo(0, a);
        }
        long overflows = a.overflows.size();
        assertEquals(a.user(Signal.CYCLES) / kind.period(), overflows);
        for (int k = 0; k < overflows; k++) {
            assertEquals(g0, a.overflows.get(k)[0]);
            assertEquals((k + 1) * kind.period(), a.overflows.get(k)[1], "overflow " + (k + 1));
        }
        assertTrue(machine.routes[OverflowRoute.XENOPROF.ordinal()] > 0, "Xenoprof sampled too");
        assertEquals(0, machine.routes[OverflowRoute.GUEST.ordinal()], "Xenoprof never finds a guest's counter");
        assertEquals(
                stat(session, PolicySession.STAT_INJECTED) + stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST),
                machine.xenoprofChecks, "every interrupt went to Xenoprof's handler as well");
        assertEquals(overflows, host.injections[16], "each guest overflow injected, and nothing else");
        assertTrue(stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST) > 0,
                "Xenoprof's own overflows were told apart");
        assertEquals(0, host.injections[32], "B's share counts nothing: nothing injected into B");
    }

    /**
     * Xenoprof samples user cycles every period on its counters; the guest's share counts with a
     * period it never reaches. Every interrupt is Xenoprof's: nothing is injected (the old rule
     * injected whenever the share counted), each one costs a read of every share counter.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void noInjectionWhenOnlyXenoprofsCounterOverflowed(Kind kind) {
        boot(kind, 1, Map.of());
        startXenoprof(kind, kind.period(), false);
        machine.xenoprofHandler = true;
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        startGuestProfiler(kind, 1_000_000);
        long charged = host.charged("vpmu_do_interrupt");
        machine.guestCode(0, 10 * kind.period());
        int share = counters.length - kind.xenoprof();
        assertEquals(10, machine.xenoprofChecks, "ten interrupts, all left to Xenoprof's handler");
        assertEquals(10 * kind.xenoprof(), machine.routes[OverflowRoute.XENOPROF.ordinal()], "Xenoprof's overflows");
        assertEquals(0, host.injections[16], "nothing injected into A");
        assertEquals(0, a.overflows.size());
        assertEquals(10, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
        assertEquals(0, stat(session, PolicySession.STAT_INJECTED));
        assertEquals(10L * share, stat(session, PartitionedSession.STAT_INTERRUPT_ACCESSES),
                "the share's counters read");
        assertEquals(10L * share * CountingHost.READ, host.charged("vpmu_do_interrupt") - charged,
                "each read charged to vpmu_do_interrupt");
    }

    /** Only the guest's counter overflows: every interrupt is injected, and Xenoprof's handler finds nothing. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void injectionWhenTheGuestsCounterOverflowed(Kind kind) {
        boot(kind, 1, Map.of());
        startXenoprof(kind, 1_000_000, false); // running (on P6 its EN lets the guest's counter count), never overflowing
        machine.xenoprofHandler = true;
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        startGuestProfiler(kind, kind.period());
        long charged = host.charged("vpmu_do_interrupt");
        machine.guestCode(0, 10 * kind.period());
        int share = counters.length - kind.xenoprof();
        assertEquals(10, a.overflows.size(), "A's handler found an overflow every period");
        for (int k = 0; k < 10; k++) {
            assertEquals((k + 1) * kind.period(), a.overflows.get(k)[1], "overflow " + (k + 1));
        }
        assertEquals(10, host.injections[16]);
        assertEquals(10, stat(session, PolicySession.STAT_INJECTED));
        assertEquals(0, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
        assertEquals(10, machine.xenoprofChecks, "Xenoprof's handler still runs: it checks its own counters");
        assertEquals(0, machine.routes[OverflowRoute.XENOPROF.ordinal()], "and finds none overflowed");
        assertEquals(10L * share * CountingHost.READ + 10 * CountingHost.INJECT, host.charged("vpmu_do_interrupt") - charged,
                "the share's counters read and one injection per interrupt");
    }

    /**
     * Xenoprof's counters and the guest's count the same user cycles with the same period from the
     * same moment: every interrupt is both, injected into the guest and sampled by Xenoprof.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void bothAtOnceInjectsAndXenoprofSamples(Kind kind) {
        boot(kind, 1, Map.of());
        startXenoprof(kind, kind.period(), false);
        machine.xenoprofHandler = true;
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        startGuestProfiler(kind, kind.period());
        machine.guestCode(0, 10 * kind.period());
        assertEquals(10, machine.xenoprofChecks, "ten interrupts");
        assertEquals(10, a.overflows.size(), "each one the guest's");
        assertEquals(10, host.injections[16]);
        assertEquals(10 * kind.xenoprof(), machine.routes[OverflowRoute.XENOPROF.ordinal()], "and Xenoprof's");
        assertEquals(0, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
    }

    /** The armed value follows the guest's writes and the switch-in restore; an interrupt reads only the share. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void aShareCounterIsOverflowedWhenBelowTheValueItWasArmedWithUnsignedWithinItsWidth(Kind kind) {
        boot(kind, 1, Map.of());
        int last = counters.length - 1;
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        Machine.Guest b = machine.guest(2, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        machine.write(0, selects[last], kind.cycles() | USR | EN | INT);
        machine.write(0, counters[last], -3000); // armed: -3000 within the width
        host.pmus[0].real.write(counters[last], -2000); // counted up, not wrapped
        host.pmus[0].clearReadLog();
        assertTrue(session.pmuInterrupt(0, 1, 0, CpuMode.USER));
        assertTrue(host.pmus[0].readOnly(shareCounters(kind)), "the interrupt reads the share's counters only");
        assertEquals(0, host.injections[16], "-2000 is above -3000: not wrapped");
        host.pmus[0].real.write(counters[last], 5); // wrapped past zero
        assertTrue(session.pmuInterrupt(0, 1, 0, CpuMode.USER), "Xenoprof checks its counters in any case");
        assertEquals(1, host.injections[16], "5 is below -3000 unsigned: wrapped");
        assertTrue(session.pmuInterrupt(0, 1, 0, CpuMode.USER));
        assertEquals(1, host.injections[16], "a wrap injects once");
        machine.write(0, counters[last], 0x7FFF_0000L); // the guest's write re-arms
        host.pmus[0].real.write(counters[last], 0x7FFF_0001L);
        session.pmuInterrupt(0, 1, 0, CpuMode.USER);
        assertEquals(1, host.injections[16]);
        machine.switchTo(0, b);
        machine.switchTo(0, a); // restored at 0x7FFF_0001: the new armed value
        host.pmus[0].real.write(counters[last], 0x7FFF_0000L);
        session.pmuInterrupt(0, 1, 0, CpuMode.USER);
        assertEquals(2, host.injections[16], "below the value restored at switch-in");
        assertEquals(2, stat(session, PolicySession.STAT_INJECTED));
        assertEquals(3, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
    }

    @Test
    void anInterruptWhileTheCurrentShareCountsNothingIsXenoprofsAlone() {
        boot(HAMMER, 1, Map.of());
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        assertTrue(session.pmuInterrupt(0, 1, 0, CpuMode.KERNEL));
        assertEquals(0, host.injections[16]);
        assertEquals(1, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST));
    }

    // ------------------------------------------------------------------ P6: EVNTSEL0.EN

    /**
     * On a P6 the guest's counter 1 counts only while Xenoprof's PerfEvtSel0 has EN set: it counts
     * exactly the guest's events while Xenoprof's session runs, stops when Xenoprof stops, and the
     * guest cannot set EN itself.
     */
    @Test
    void onP6TheGuestsCounterCountsOnlyWhileXenoprofsSelect0HasEn() {
        boot(P6, 1, Map.of());
        Machine.Guest a = machine.guest(1, 0, Machine.rates(1000, 800));
        machine.switchTo(0, a);
        assertTrue(machine.write(0, selects[1], P6.cycles() | USR | EN), "EN in PerfEvtSel1 is accepted but inert");
        machine.guestCode(0, 10_000);
        assertEquals(0, machine.read(0, counters[1]), "Xenoprof not started: EVNTSEL0.EN clear, nothing counts");
        assertFalse(machine.write(0, selects[0], EN), "the guest cannot set EN in Xenoprof's select");
        startXenoprof(P6, 1_000_000);
        // Xenoprof's driver setup clears every select and writes -1 into every counter, the guest's
        // share included (the hardware driver knows no partition): the guest programs its share again.
        assertEquals(0xFF_FFFF_FFFFL, machine.read(0, counters[1]));
        machine.write(0, counters[1], 0);
        machine.write(0, selects[1], P6.cycles() | USR);
        long userBefore = a.user(Signal.CYCLES);
        machine.guestCode(0, 10_000);
        assertEquals(a.user(Signal.CYCLES) - userBefore, machine.read(0, counters[1]), "counts with Xenoprof running");
        long value = machine.read(0, counters[1]);
        host.pmus[0].real.stop();
        machine.guestCode(0, 10_000);
        assertEquals(value, machine.read(0, counters[1]), "Xenoprof stopped: the guest's counter stops too");
    }

    // ------------------------------------------------------------------ lifecycle, allocation

    @Test
    void lifecycleAndBadArgumentsGiveClearErrors() {
        boot(P6, 2, Map.of());
        assertEquals("physical CPU 2 does not exist: the host has 2 (0 to 1)",
                assertThrows(IllegalArgumentException.class, () -> session.vcpuSwitch(2, -1, 0, 1, 0)).getMessage());
        session.vcpuSwitch(0, -1, 0, 1, 0);
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> session.vcpuSwitch(1, -1, 0, 1, 0));
        assertTrue(twice.getMessage().contains("still loaded on physical CPU 0"), twice.getMessage());
        session.close();
        session.close();
        assertTrue(assertThrows(IllegalStateException.class, () -> session.guestRead(0, 1, 0, 0xC1)).getMessage()
                .contains("session is closed"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void hooksDoNotAllocate(Kind kind) {
        // Switches, guest accesses, and interrupts both told apart as Xenoprof's and injected.
        boot(kind, 2, Map.of());
        long[] sink = {exercise(kind, 20_000)};
        long allocated = Allocations.leastBytes(() -> sink[0] += exercise(kind, 50_000));
        assertTrue(allocated < 1024, "50 000 rounds of partitioned hooks allocated " + allocated + " bytes");
        long rounds = 20_000 + Allocations.WINDOWS * 50_000;
        assertEquals(rounds, stat(session, PolicySession.STAT_INJECTED), "one injection per round");
        assertEquals(rounds, stat(session, PolicySession.STAT_INTERRUPTS_NOT_GUEST),
                "one interrupt per round left to Xenoprof");
        assertTrue(sink[0] != 42);
    }

    private long exercise(Kind kind, int rounds) {
        long sink = 0;
        int last = counters.length - 1;
        for (int i = 0; i < rounds; i++) {
            int p = i & 1;
            int d = 1 + (i % 3);
            session.vcpuSwitch(p, -1, 0, d, 0);
            session.hypervisorExit(p, d, 0);
            session.hypervisorEntry(p, d, 0);
            sink += session.guestWrite(p, d, 0, selects[last], kind.cycles() | USR | EN | INT) ? 1 : 0;
            sink += session.guestWrite(p, d, 0, counters[0], -3000) ? 1 : 0;
            sink += session.guestWrite(p, d, 0, counters[last], -3000) ? 1 : 0;
            sink += session.pmuInterrupt(p, d, 0, CpuMode.USER) ? 1 : 0; // not wrapped: Xenoprof's
            host.pmus[p].real.write(counters[last], i & 0xFF); // wrapped: injected
            sink += session.guestWrite(p, d, 0, 0x340, 0x400) ? 1 : 0;
            sink += session.guestRead(p, d, 0, counters[last]);
            sink += session.pmuInterrupt(p, d, 0, CpuMode.USER) ? 1 : 0;
            sink += session.overflow(p, d, 0, last, CpuMode.USER).ordinal();
            session.hypervisorExit(p, d, 0);
            session.vcpuSwitch(p, d, 0, -1, 0);
            host.pending[p] = 0;
        }
        return sink;
    }
}
