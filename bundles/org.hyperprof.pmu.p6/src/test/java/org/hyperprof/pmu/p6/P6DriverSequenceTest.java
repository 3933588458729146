package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.p6.P6Fixture.CLK;
import static org.hyperprof.pmu.p6.P6Fixture.TWO_TO_40;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_RESERVED_21;
import static org.hyperprof.pmu.p6.P6Registers.LVTPC;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR0;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR1;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL0;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL1;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;

/** The driver steps Xenoprof runs on a P6 (OProfile 2.6.1x order) and the NMI handler's scan. */
class P6DriverSequenceTest {
    private final P6Fixture fixture = P6Fixture.create();
    private final P6Pmu pmu = fixture.pmu();
    private final List<Integer> overflows = new ArrayList<>();

    private long[] snapshot() {
        return new long[] {pmu.read(PERFCTR0), pmu.read(PERFCTR1), pmu.read(PERFEVTSEL0), pmu.read(PERFEVTSEL1),
            pmu.read(LVTPC)};
    }

    @Test
    void releaseRestoresTheCountersSelectsAndLvtpcSavedByReserve() throws EventSpecException {
        pmu.write(PERFCTR0, 0x1234);
        pmu.write(PERFCTR1, 0x8000_0000L);
        pmu.write(PERFEVTSEL0, 0x0020_00C0L);
        pmu.write(PERFEVTSEL1, 0x0041_0079L);
        pmu.write(LVTPC, 0x1_00EEL);
        long[] before = snapshot();

        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000"));
        pmu.start();
        pmu.advance(50_000, onePerCycle(), 3);
        pmu.stop();
        pmu.release();

        assertArrayEquals(before, snapshot());
    }

    @Test
    void releaseRestoresCountersThroughWrmsrSoBits39To32BecomeCopiesOfBit31() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance((1L << 32) + 5, onePerCycle(), 3);
        assertEquals(0x1_0000_0005L, pmu.read(PERFCTR0));
        pmu.reserve();
        pmu.write(PERFCTR0, 0);
        pmu.release();
        assertEquals(5, pmu.read(PERFCTR0), "the restore writes 32 bits like any WRMSR");
    }

    @Test
    void setupClearsEverySelectExceptReservedBit21() throws EventSpecException {
        pmu.write(PERFEVTSEL0, 0xFFFF_FFFFL);
        pmu.write(PERFEVTSEL1, 0xFFFF_FFFFL);
        pmu.reserve();
        pmu.setup(new CounterConfig[] {null, PmuFixtures.onCounter(fixture.configs("INST_RETIRED:6000")[0], 1)});
        assertEquals(EVTSEL_RESERVED_21, pmu.read(PERFEVTSEL0), "unused select keeps only bit 21");
        assertEquals(EVTSEL_RESERVED_21 | EVTSEL_INT | EVTSEL_USR | EVTSEL_OS | 0xC0, pmu.read(PERFEVTSEL1));
    }

    @Test
    void setupWritesMinusOneIntoEveryCounterItDoesNotUse() throws EventSpecException {
        pmu.write(PERFCTR1, 0x42);
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:100000"));
        assertEquals(0xFF_FFFF_FFFFL, pmu.read(PERFCTR1));
    }

    @Test
    void setupPreloadsMinusCountAndBuildsTheSelectWithoutEn() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:100000:0:1:1", "L2_RQSTS:500:0x0c:1:0"));
        assertEquals(TWO_TO_40 - 100_000, pmu.read(PERFCTR0));
        assertEquals(TWO_TO_40 - 500, pmu.read(PERFCTR1));
        assertEquals(0x0013_0079L, pmu.read(PERFEVTSEL0), "INT | OS | USR | umask 0 | event 0x79");
        assertEquals(0x0012_0C2EL, pmu.read(PERFEVTSEL1), "INT | OS | umask 0x0c | event 0x2e");
        assertEquals(0, pmu.read(PERFEVTSEL0) & EVTSEL_EN, "EN waits for start");
    }

    @Test
    void setupRejectsABadConfigurationWithoutTouchingTheRegisters() throws EventSpecException {
        CounterConfig good = fixture.configs("CPU_CLK_UNHALTED:6000")[0];
        pmu.write(PERFCTR0, 0x77);
        pmu.write(PERFEVTSEL0, 0x0041_0079L);
        long[] before = snapshot();
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> pmu.setup(new CounterConfig[] {good, good}));
        assertTrue(twice.getMessage().contains("configured twice"), twice.getMessage());
        IllegalArgumentException counter2 = assertThrows(IllegalArgumentException.class,
                () -> pmu.setup(new CounterConfig[] {PmuFixtures.onCounter(good, 2)}));
        assertTrue(counter2.getMessage().contains("counters 0 and 1"), counter2.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> pmu.setup(new CounterConfig[] {PmuFixtures.withCount(good, 0)}));
        assertTrue(zero.getMessage().contains("out of range 1..2147483647"), zero.getMessage());
        assertArrayEquals(before, snapshot());
    }

    @Test
    void startRoutesLvtpcToNmiAndSetsEnInPerfEvtSel0Only() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000"));
        pmu.start();
        assertEquals(0x400, pmu.read(LVTPC));
        assertEquals(EVTSEL_EN, pmu.read(PERFEVTSEL0) & EVTSEL_EN);
        assertEquals(0, pmu.read(PERFEVTSEL1) & EVTSEL_EN);
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(TWO_TO_40 - 5000, pmu.read(PERFCTR1), "counter 1 runs on PerfEvtSel0's EN");
    }

    @Test
    void aSessionUsingCounter1AloneNeverCounts() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("FP_ASSIST:500"));
        pmu.start();
        assertEquals(0, pmu.read(PERFEVTSEL0) & EVTSEL_EN, "the 2.6.1x driver sets EN only if counter 0 is used");
        SignalRates fp = rates(Signal.FP_OPERATIONS, 1000);
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(fp, 3));
        pmu.advance(1_000_000, fp, 3);
        assertEquals(TWO_TO_40 - 500, pmu.read(PERFCTR1), "counter 1 never moved");
        assertFalse(pmu.interruptPending());
    }

    @Test
    void stopClearsEnAndRestoresTheLvtpcSavedAtStart() throws EventSpecException {
        pmu.write(LVTPC, 0x1_00EEL);
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.stop();
        assertEquals(0, pmu.read(PERFEVTSEL0) & EVTSEL_EN);
        assertEquals(0x1_00EEL, pmu.read(LVTPC));
        long counter = pmu.read(PERFCTR0);
        pmu.advance(10_000, onePerCycle(), 3);
        assertEquals(counter, pmu.read(PERFCTR0), "stopped counters do not count");
    }

    @Test
    void checkCountersReportsCountersWithBit31ClearAndReloadsMinusCount() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000", "INST_RETIRED:9000"));
        pmu.start();
        pmu.advance(6000, onePerCycle(), 3);
        assertEquals(0, pmu.read(PERFCTR0), "counter 0 wrapped");
        int n = pmu.checkCounters(overflows::add);
        assertEquals(1, n);
        assertEquals(List.of(0), overflows);
        assertEquals(TWO_TO_40 - 6000, pmu.read(PERFCTR0), "re-armed with -count");
        assertEquals(TWO_TO_40 - 3000, pmu.read(PERFCTR1), "counter 1 has bit 31 set and is left alone");
    }

    @Test
    void checkCountersReportsBothCountersWhenBothOverflowed() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000"));
        pmu.start();
        pmu.advance(6001, onePerCycle(), 3);
        assertEquals(2, pmu.checkCounters(overflows::add));
        assertEquals(List.of(0, 1), overflows);
    }

    @Test
    void checkCountersJudgesOverflowByBit31AloneAsOprofileDoes() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000"));
        pmu.write(PERFCTR0, 0x7FFF_FFF0L); // bit 31 clear without any wrap
        assertEquals(1, pmu.checkCounters(overflows::add));
        assertEquals(List.of(0), overflows);
    }

    @Test
    void checkCountersSkipsCountersTheSessionDidNotSetUp() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000"));
        pmu.write(PERFCTR1, 5);
        assertEquals(0, pmu.checkCounters(overflows::add));
        assertEquals(5, pmu.read(PERFCTR1));
    }

    @Test
    void checkCountersUnmasksLvtpcEvenWhenNothingOverflowed() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.write(LVTPC, 0x1_0400);
        assertEquals(0, pmu.checkCounters(overflows::add), "an extra NMI is harmless");
        assertEquals(0x400, pmu.read(LVTPC));
        assertTrue(overflows.isEmpty());
    }

    @Test
    void checkCountersReportsAfterReArmingSoTheSinkSeesTheReloadedCounter() throws EventSpecException {
        pmu.reserve();
        pmu.setup(fixture.configs("CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.advance(6000, onePerCycle(), 3);
        long[] seen = new long[1];
        pmu.checkCounters(counter -> seen[0] = pmu.read(PERFCTR0));
        assertEquals(TWO_TO_40 - 6000, seen[0]);
    }

    @Test
    void samplingLoopCountsExactlyWhatTheSignalArithmeticSays() throws EventSpecException {
        long count = 6000;
        long rate = 853; // instructions per 1000 cycles, fractional per cycle
        SignalRates r = rates(Signal.INSTRUCTIONS, rate);
        pmu.reserve();
        pmu.setup(fixture.configs("INST_RETIRED:" + count + ":0:1:1"));
        pmu.start();
        long elapsed = 0;
        int samples = 0;
        long segmentEnd = 5_000_000;
        while (elapsed < segmentEnd) {
            long step = Math.min(pmu.cyclesUntilOverflow(r, 1), segmentEnd - elapsed);
            pmu.advance(step, r, 1);
            elapsed += step;
            if (pmu.interruptPending()) {
                pmu.acknowledgeInterrupt();
                samples += pmu.checkCounters(c -> { });
            }
        }
        long truth = rate * segmentEnd / SignalRates.SCALE;
        long sinceLastSample = pmu.read(PERFCTR0) - (TWO_TO_40 - count);
        assertEquals(truth, samples * count + sinceLastSample);
        assertEquals(truth / count, samples);
    }

    @Test
    void driverStepsOutOfOrderAreRejectedWithTheNextStep() {
        IllegalStateException stop = assertThrows(IllegalStateException.class, pmu::stop);
        assertTrue(stop.getMessage().contains("stop without start"), stop.getMessage());
        IllegalStateException release = assertThrows(IllegalStateException.class, pmu::release);
        assertTrue(release.getMessage().contains("release without reserve"), release.getMessage());
        pmu.reserve();
        IllegalStateException twice = assertThrows(IllegalStateException.class, pmu::reserve);
        assertTrue(twice.getMessage().contains("release them first"), twice.getMessage());
        pmu.start();
        IllegalStateException startTwice = assertThrows(IllegalStateException.class, pmu::start);
        assertTrue(startTwice.getMessage().contains("stop them first"), startTwice.getMessage());
    }
}
