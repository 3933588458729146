package org.hyperprof.pmu.p4;

import static org.hyperprof.pmu.p4.P4Fixture.BSU_ESCR1;
import static org.hyperprof.pmu.p4.P4Fixture.CRU_ESCR0;
import static org.hyperprof.pmu.p4.P4Fixture.CRU_ESCR1;
import static org.hyperprof.pmu.p4.P4Fixture.FSB_ESCR0;
import static org.hyperprof.pmu.p4.P4Fixture.FSB_ESCR1;
import static org.hyperprof.pmu.p4.P4Fixture.P4;
import static org.hyperprof.pmu.p4.P4Fixture.P4_HT;
import static org.hyperprof.pmu.p4.P4Fixture.raw;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.hyperprof.testing.pmu.PmuFixtures.onCounter;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.withCount;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;

/** Xen's op_model_p4 steps: setup through the binding table, start, the NMI handler with its double write, stop. */
class P4DriverSequenceTest {
    private static final long ENABLE = 1L << 12;
    private static final long OVF = 1L << 31;
    private static final long MINUS_ONE_40 = (1L << 40) - 1;
    private final P4Pmu pmu = P4Fixture.p4();
    private final List<Integer> overflows = new ArrayList<>();

    @Test
    void setupClearsEachCccrButItsReservedBitsAndSetsActiveThreadAny() throws Exception {
        pmu.write(0x364, 0xCFFF_F000L); // counter 4 (OProfile counter 1), unused by the session
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        assertEquals(0x0803_0000L, pmu.read(0x364), "bits 17:16 set; of the others only OVF_PMI_T1 (27) survives");
    }

    @Test
    void setupZeroesEveryEscrAndWritesMinusOneIntoUnusedCounters() throws Exception {
        pmu.write(BSU_ESCR1, 0x1234);
        pmu.write(CRU_ESCR1, 0x5678);
        pmu.write(0x311, 7);
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        assertEquals(0, pmu.read(BSU_ESCR1));
        assertEquals(0, pmu.read(CRU_ESCR1));
        assertEquals(MINUS_ONE_40, pmu.read(0x311));
    }

    @Test
    void setupProgramsTheBoundEscrAndCccrAndPreloadsMinusCount() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000:1:1:0"));
        // FSB_ESCR0: event select 0x13, event mask 0x0001, T0_OS only (kernel=1, user=0).
        assertEquals((0x13L << 25) | (1L << 9) | (1L << 3), pmu.read(FSB_ESCR0));
        // CCCR0: ESCR-select 6, active thread 11b, OVF_PMI_T0; not enabled yet.
        assertEquals((6L << 13) | (3L << 16) | (1L << 26), pmu.read(0x360));
        assertEquals((1L << 40) - 100000, pmu.read(0x300));
        pmu.advance(1000, onePerCycle(), 0);
        assertEquals((1L << 40) - 100000, pmu.read(0x300), "setup does not start counting");
    }

    @Test
    void setupUsesTheSecondBindingForTheSecondCounterOfAPair() throws Exception {
        CounterConfig[] c = configs(P4, "INSTR_RETIRED:3000", "UOPS_RETIRED:3000");
        assertEquals(3, c[0].counter());
        assertEquals(7, c[1].counter());
        pmu.setup(c);
        assertEquals(0x02L, pmu.read(CRU_ESCR0) >>> 25, "counter 3 (IQ_COUNTER4): CRU_ESCR0");
        assertEquals(0x01L, pmu.read(CRU_ESCR1) >>> 25, "counter 7 (IQ_COUNTER5): CRU_ESCR1");
        assertEquals(4L, (pmu.read(0x371) >>> 13) & 7);
    }

    @Test
    void startEnablesTheConfiguredCccrsAndRoutesLvtpcToNmi() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        pmu.start();
        assertEquals(ENABLE, pmu.read(0x360) & ENABLE);
        assertEquals(0, pmu.read(0x364) & ENABLE, "unused counters stay off");
        assertEquals(0x400, pmu.read(0x340));
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals((1L << 40) - 99000, pmu.read(0x300));
    }

    @Test
    void stopClearsEnableAndRestoresLvtpc() throws Exception {
        pmu.write(0x340, 0x100EF);
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        pmu.start();
        pmu.stop();
        assertEquals(0, pmu.read(0x360) & ENABLE);
        assertEquals(0x100EF, pmu.read(0x340));
    }

    @Test
    void handlerDetectsTheOvfFlagEvenWithBit31Set() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        pmu.write(0x360, pmu.read(0x360) | OVF);
        assertEquals(1, pmu.checkCounters(overflows::add));
        assertEquals(List.of(0), overflows);
        assertEquals(0, pmu.read(0x360) & OVF, "the handler clears OVF");
    }

    @Test
    void handlerDetectsAnUnflaggedOverflowByBit31Clear() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        pmu.write(0x300, 5);
        assertEquals(0, pmu.read(0x360) & OVF);
        assertEquals(1, pmu.checkCounters(overflows::add));
        assertEquals((1L << 40) - 100000, pmu.read(0x300));
    }

    @Test
    void handlerWritesMinusCountClearsOvfAndWritesMinusCountASecondTime() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:100000"));
        pmu.start();
        pmu.advance(100000, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        List<String> writes = new ArrayList<>();
        pmu.observeWrites((reg, value) -> writes.add(String.format("0x%X=0x%X", reg, value)));
        pmu.checkCounters(overflows::add);
        long cccr = (6L << 13) | (3L << 16) | (1L << 26) | ENABLE;
        assertEquals(List.of("0x300=0x" + Long.toHexString(-100000L).toUpperCase(), "0x360=0x" + Long.toHexString(cccr)
                .toUpperCase(), "0x300=0x" + Long.toHexString(-100000L).toUpperCase()), writes);
    }

    @Test
    void handlerUnmasksLvtpcAtTheEnd() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:3000"));
        pmu.start();
        pmu.advance(3000, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        assertEquals(0x10400, pmu.read(0x340));
        pmu.checkCounters(overflows::add);
        assertEquals(0x400, pmu.read(0x340));
    }

    @Test
    void anExtraNmiWithNothingOverflowedIsHarmless() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:3000"));
        pmu.start();
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(0, pmu.checkCounters(overflows::add));
        assertEquals((1L << 40) - 2990, pmu.read(0x300));
    }

    @Test
    void samplingLoopOverflowsOncePerCountEventsOnEveryCounter() throws Exception {
        pmu.setup(configs(P4, "GLOBAL_POWER_EVENTS:3000", "INSTR_RETIRED:3000"));
        pmu.start();
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 750;
        SignalRates rates = SignalRates.of(r);
        long cycles = 0;
        while (cycles < 300_000) {
            long step = Math.min(pmu.cyclesUntilOverflow(rates, 3), 300_000 - cycles);
            pmu.advance(step, rates, 3);
            cycles += step;
            if (pmu.interruptPending()) {
                pmu.acknowledgeInterrupt();
                pmu.checkCounters(overflows::add);
            }
        }
        assertEquals(100, overflows.stream().filter(c -> c == 0).count(), "300000 cycles / 3000");
        assertEquals(75, overflows.stream().filter(c -> c == 3).count(), "225000 instructions / 3000");
    }

    @Test
    void anEventNumberOutsideTheTableIsLoggedAndSkippedLikeXen() throws Exception {
        CounterConfig gpe = configs(P4, "GLOBAL_POWER_EVENTS:3000")[0];
        for (int number : new int[] {0, 40, 0x79}) {
            P4Pmu p = P4Fixture.p4();
            p.setup(new CounterConfig[] {raw(gpe, number)});
            assertEquals(1, p.setupErrors().size());
            assertTrue(p.setupErrors().get(0).contains(String.format("P4 event code 0x%x out of range", number)),
                    p.setupErrors().get(0));
            assertEquals(3L << 16, p.read(0x360), "CCCR left cleared: no ESCR-select, no PMI bit");
            assertEquals((1L << 40) - 3000, p.read(0x300), "the counter is still preloaded");
            p.start();
            p.advance(10_000, onePerCycle(), 3);
            assertEquals((1L << 40) - 3000, p.read(0x300), "enabled, but selecting an empty ESCR it counts nothing");
            assertEquals(0, p.checkCounters(overflows::add));
        }
    }

    @Test
    void anEventWithNoBindingForTheCounterIsLoggedAndSkipped() throws Exception {
        CounterConfig gpe = configs(P4, "GLOBAL_POWER_EVENTS:3000")[0];
        pmu.setup(new CounterConfig[] {onCounter(gpe, 1)}); // GLOBAL_POWER_EVENTS binds to counters 0 and 4
        assertEquals(1, pmu.setupErrors().size());
        assertTrue(pmu.setupErrors().get(0).contains("has no binding for counter 1"), pmu.setupErrors().get(0));
        assertEquals(0, pmu.read(FSB_ESCR0));
    }

    @Test
    void htThread1ProgramsTheOddEscrWithT1BitsAndOvfPmiT1OnHardwareCounter2() throws Exception {
        P4Pmu t1 = P4Fixture.ht(1);
        assertEquals(2, t1.hardwareCounter(0));
        t1.setup(configs(P4_HT, "GLOBAL_POWER_EVENTS:6000:1:0:1"));
        assertEquals((0x13L << 25) | (1L << 9) | (1L << 0), t1.read(FSB_ESCR1), "T1_USR only");
        assertEquals((6L << 13) | (3L << 16) | (1L << 27), t1.read(0x362), "OVF_PMI_T1");
        assertEquals((1L << 40) - 6000, t1.read(0x302));
        t1.start();
        t1.advance(6000, onePerCycle(), 3);
        assertTrue(t1.interruptPending());
        t1.acknowledgeInterrupt();
        assertEquals(1, t1.checkCounters(overflows::add));
        assertEquals(List.of(0), overflows, "reported as the thread's own counter 0");
    }

    @Test
    void htThread0LeavesTheOddEscrsToItsSibling() throws Exception {
        P4Pmu t0 = P4Fixture.ht(0);
        t0.write(FSB_ESCR1, 0x1234);
        t0.setup(configs(P4_HT, "GLOBAL_POWER_EVENTS:6000"));
        assertEquals(0x1234, t0.read(FSB_ESCR1));
        assertEquals((0x13L << 25) | (1L << 9) | 0b1100, t0.read(FSB_ESCR0));
    }

    @Test
    void ioqAllocationHasNoBindingForTheSecondSibling() throws Exception {
        CounterConfig gpe = configs(P4_HT, "GLOBAL_POWER_EVENTS:6000")[0];
        P4Pmu t0 = P4Fixture.ht(0);
        P4Pmu t1 = P4Fixture.ht(1);
        t0.setup(new CounterConfig[] {raw(gpe, 0x0D)});
        t1.setup(new CounterConfig[] {raw(gpe, 0x0D)});
        assertTrue(t0.setupErrors().isEmpty(), "FSB_ESCR0 on virtual counter 0");
        assertEquals(1, t1.setupErrors().size());
        assertTrue(t1.setupErrors().get(0).contains("stagger 1 (OProfile virtual counter 4)"), t1.setupErrors().get(0));
    }

    @Test
    void aBadConfigurationLeavesTheRegistersUntouched() throws Exception {
        pmu.write(0x360, 0x1000);
        pmu.write(0x300, 77);
        CounterConfig good = configs(P4, "GLOBAL_POWER_EVENTS:3000")[0];
        for (CounterConfig[] bad : List.of(
                new CounterConfig[] {good, good},
                new CounterConfig[] {onCounter(good, 8)},
                new CounterConfig[] {withCount(good, 0x8000_0000L)},
                new CounterConfig[] {new CounterConfig(0, good.event(), 3000, 0x10000, true, true)},
                new CounterConfig[] {new CounterConfig(0, good.event(), 3000, 1, false, false)})) {
            assertThrows(IllegalArgumentException.class, () -> pmu.setup(bad));
        }
        assertThrows(IllegalArgumentException.class, () -> pmu.setup(null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> P4Fixture.ht(0).setup(new CounterConfig[] {onCounter(good, 4)}));
        assertTrue(e.getMessage().contains("has counters 0..3"), e.getMessage());
        assertEquals(0x1000, pmu.read(0x360));
        assertEquals(77, pmu.read(0x300));
    }

    @Test
    void reserveAndReleaseRestoreCountersCccrsEscrsAndLvtpc() throws Exception {
        pmu.write(0x311, 0x12_3456_789AL);
        pmu.write(0x371, 0x3000_0000L | ENABLE);
        pmu.write(CRU_ESCR1, 0x4321);
        pmu.reserve();
        pmu.setup(configs(P4, "INSTR_RETIRED:3000", "UOPS_RETIRED:3000"));
        pmu.start();
        pmu.stop();
        pmu.release();
        assertEquals(0x12_3456_789AL, pmu.read(0x311), "all 40 bits come back");
        assertEquals(0x3000_0000L & 0xCFFF_F000L | ENABLE, pmu.read(0x371));
        assertEquals(0x4321, pmu.read(CRU_ESCR1));
        assertEquals(0x10000, pmu.read(0x340));
    }

    @Test
    void driverStepsOutOfOrderAreRefused() {
        assertThrows(IllegalStateException.class, pmu::stop);
        assertThrows(IllegalStateException.class, pmu::release);
        pmu.reserve();
        assertThrows(IllegalStateException.class, pmu::reserve);
        pmu.start();
        assertThrows(IllegalStateException.class, pmu::start);
        assertFalse(pmu.interruptPending());
    }
}
