package org.hyperprof.pmu.p4;

import static org.hyperprof.pmu.p4.P4Fixture.CCCR_FSB_ENABLED;
import static org.hyperprof.pmu.p4.P4Fixture.CRU_ESCR0;
import static org.hyperprof.pmu.p4.P4Fixture.FSB_ESCR0;
import static org.hyperprof.pmu.p4.P4Fixture.FSB_ESCR1;
import static org.hyperprof.pmu.p4.P4Fixture.GPE_T0_ALL;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Counting through CCCR and ESCR, thread qualification, the sticky OVF flag, OVF_PMI_T0/T1, FORCE_OVF, the PMI. */
class P4CountingTest {
    private static final long CCCR_ENABLE = 1L << 12;
    private static final long OVF = 1L << 31;
    private static final long OVF_PMI_T0 = 1L << 26;
    private static final long OVF_PMI_T1 = 1L << 27;
    private final P4Pmu pmu = P4Fixture.p4();

    /** Counter 0 counts GLOBAL_POWER_EVENTS (cycles) for thread 0 at every CPL. */
    private void armCounter0(long preload, long extraCccr) {
        pmu.write(0x340, 0x400);
        pmu.write(FSB_ESCR0, GPE_T0_ALL);
        pmu.write(0x300, preload);
        pmu.write(0x360, CCCR_FSB_ENABLED | extraCccr);
    }

    @Test
    void aCounterCountsWhenItsCccrIsEnabledAndSelectsAnEscrWithAnEvent() {
        armCounter0(0, 0);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(100, pmu.read(0x300));
    }

    @Test
    void withoutCccrEnableTheCounterDoesNotCount() {
        armCounter0(0, 0);
        pmu.write(0x360, CCCR_FSB_ENABLED & ~CCCR_ENABLE);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(0x300));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void anEscrFeedsOnlyTheCountersOfItsHalf() {
        pmu.write(FSB_ESCR1, GPE_T0_ALL); // FSB_ESCR1 feeds counters 2 and 3
        pmu.write(0x360, CCCR_FSB_ENABLED); // counter 0, select 6: FSB_ESCR0, which is empty
        pmu.write(0x362, CCCR_FSB_ENABLED); // counter 2, select 6: FSB_ESCR1
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(0x300));
        assertEquals(100, pmu.read(0x302));
    }

    @Test
    void twoCountersOfAHalfMaySelectTheSameEscrAndCountTheSameEvent() {
        armCounter0(0, 0);
        pmu.write(0x361, CCCR_FSB_ENABLED);
        pmu.advance(40, onePerCycle(), 3);
        assertEquals(40, pmu.read(0x300));
        assertEquals(40, pmu.read(0x301), "counters 0 and 1 share FSB_ESCR0");
    }

    @Test
    void theEscrSelectsTheEventByItsEventSelectWithinItsUnit() {
        long[] r = new long[Signal.COUNT];
        r[Signal.INSTRUCTIONS.ordinal()] = 850;
        r[Signal.UOPS.ordinal()] = 1200;
        r[Signal.BRANCH_MISSES.ordinal()] = 5;
        pmu.write(CRU_ESCR0, (0x02L << 25) | (1L << 9) | 0b1100); // INSTR_RETIRED
        pmu.write(0x370, CCCR_ENABLE | (4L << 13) | (3L << 16)); // counter 16, select 4: CRU_ESCR0
        pmu.advance(1000, SignalRates.of(r), 3);
        assertEquals(850, pmu.read(0x310));
        pmu.write(CRU_ESCR0, (0x01L << 25) | (1L << 9) | 0b1100); // UOPS_RETIRED
        pmu.advance(1000, SignalRates.of(r), 3);
        assertEquals(850 + 1200, pmu.read(0x310));
        pmu.write(CRU_ESCR0, (0x03L << 25) | (1L << 9) | 0b1100); // MISPRED_BRANCH_RETIRED
        pmu.advance(1000, SignalRates.of(r), 3);
        assertEquals(850 + 1200 + 5, pmu.read(0x310));
    }

    @Test
    void anEmptyEventMaskCountsNothing() {
        armCounter0(0, 0);
        pmu.write(FSB_ESCR0, GPE_T0_ALL & ~(0xFFFFL << 9));
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(0x300));
    }

    @Test
    void anEventSelectTheUnitDoesNotHaveCountsNothing() {
        armCounter0(0, 0);
        pmu.write(FSB_ESCR0, (0x3FL << 25) | (1L << 9) | 0b1100);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(0x300));
    }

    @Test
    void escrT0UsrCountsAboveCpl0AndT0OsAtCpl0() {
        armCounter0(0, 0);
        pmu.write(FSB_ESCR0, (GPE_T0_ALL & ~0xF) | 0b0100); // T0_USR only
        pmu.advance(10, onePerCycle(), 0);
        pmu.advance(20, onePerCycle(), 1);
        assertEquals(20, pmu.read(0x300));
        pmu.write(FSB_ESCR0, (GPE_T0_ALL & ~0xF) | 0b1000); // T0_OS only
        pmu.advance(10, onePerCycle(), 0);
        pmu.advance(20, onePerCycle(), 3);
        assertEquals(30, pmu.read(0x300));
    }

    @Test
    void threadOneBitsDoNotCountTheOnlyThreadOfANonHtPackage() {
        armCounter0(0, 0);
        pmu.write(FSB_ESCR0, (GPE_T0_ALL & ~0xF) | 0b0011); // T1_OS and T1_USR
        pmu.advance(100, onePerCycle(), 0);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(0x300));
    }

    @Test
    void onHtThread1TheT1BitsCountAndTheT0BitsDoNot() {
        P4Pmu t1 = P4Fixture.ht(1);
        t1.write(FSB_ESCR1, (GPE_T0_ALL & ~0xF) | 0b1100); // T0 bits
        t1.write(0x362, CCCR_FSB_ENABLED);
        t1.advance(100, onePerCycle(), 3);
        assertEquals(0, t1.read(0x302));
        t1.write(FSB_ESCR1, (GPE_T0_ALL & ~0xF) | 0b0011); // T1 bits
        t1.advance(100, onePerCycle(), 0);
        t1.advance(100, onePerCycle(), 3);
        assertEquals(200, t1.read(0x302));
    }

    @ParameterizedTest(name = "active thread {0}: non-HT counts {1}, HT counts {2}")
    @CsvSource({"0, false, false", "1, true, false", "2, false, true", "3, true, true"})
    void theCccrActiveThreadFieldMustHold(int activeThread, boolean nonHtCounts, boolean htCounts) {
        long cccr = CCCR_ENABLE | (6L << 13) | ((long) activeThread << 16);
        pmu.write(FSB_ESCR0, GPE_T0_ALL);
        pmu.write(0x360, cccr);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(nonHtCounts ? 10 : 0, pmu.read(0x300), "one thread runs on a non-HT package");
        P4Pmu t0 = P4Fixture.ht(0);
        t0.write(FSB_ESCR0, GPE_T0_ALL);
        t0.write(0x360, cccr);
        t0.advance(10, onePerCycle(), 3);
        assertEquals(htCounts ? 10 : 0, t0.read(0x300), "the HT sibling is taken to be running");
    }

    @Test
    void overflowSetsTheStickyCccrOvfFlagWithoutPmiBitAndCountingGoesOn() {
        armCounter0(-10L, 0);
        pmu.advance(9, onePerCycle(), 3);
        assertEquals(0, pmu.read(0x360) & OVF);
        pmu.advance(5, onePerCycle(), 3);
        assertEquals(OVF, pmu.read(0x360) & OVF);
        assertEquals(4, pmu.read(0x300), "wrapped past 2^40 and counted on");
        assertFalse(pmu.interruptPending(), "no OVF_PMI bit: no PMI");
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(OVF, pmu.read(0x360) & OVF, "set until software clears it");
    }

    @Test
    void softwareClearsOvfByWritingTheCccrWithoutIt() {
        armCounter0(-1L, 0);
        pmu.advance(1, onePerCycle(), 3);
        pmu.write(0x360, pmu.read(0x360) & ~OVF);
        assertEquals(0, pmu.read(0x360) & OVF);
    }

    @Test
    void ovfPmiT0RaisesThePmiOfThread0() {
        armCounter0(-3L, OVF_PMI_T0);
        pmu.advance(2, onePerCycle(), 3);
        assertFalse(pmu.interruptPending());
        pmu.advance(1, onePerCycle(), 3);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void ovfPmiT1DoesNotInterruptThread0() {
        armCounter0(-3L, OVF_PMI_T1);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(OVF, pmu.read(0x360) & OVF);
        assertFalse(pmu.interruptPending());
    }

    @Test
    void onHtThread1OnlyOvfPmiT1Interrupts() {
        P4Pmu t1 = P4Fixture.ht(1);
        t1.write(0x340, 0x400);
        t1.write(FSB_ESCR1, (GPE_T0_ALL & ~0xF) | 0b0011);
        t1.write(0x302, -1L);
        t1.write(0x362, CCCR_FSB_ENABLED | OVF_PMI_T0);
        t1.advance(1, onePerCycle(), 3);
        assertFalse(t1.interruptPending(), "OVF_PMI_T0 interrupts the other sibling");
        t1.write(0x302, -1L);
        t1.write(0x362, CCCR_FSB_ENABLED | OVF_PMI_T1);
        t1.advance(1, onePerCycle(), 3);
        assertTrue(t1.interruptPending());
    }

    @Test
    void forceOvfMakesEveryIncrementAnOverflow() {
        armCounter0(0, OVF_PMI_T0 | (1L << 25));
        assertEquals(1, pmu.cyclesUntilOverflow(onePerCycle(), 3));
        pmu.advance(1, onePerCycle(), 3);
        assertEquals(OVF, pmu.read(0x360) & OVF);
        assertTrue(pmu.interruptPending());
        assertEquals(1, pmu.read(0x300), "the counter itself just counts");
        assertEquals(3, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 400), 3), "next increment after 2.5 cycles");
    }

    @Test
    void takingThePmiAutoMasksLvtpc() {
        armCounter0(-1L, OVF_PMI_T0);
        pmu.advance(1, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        assertEquals(0x10400, pmu.read(0x340));
        assertFalse(pmu.interruptPending());
    }

    @Test
    void aMaskedOrIllegallyRoutedLvtpcHoldsThePmi() {
        armCounter0(-1L, OVF_PMI_T0);
        pmu.write(0x340, 0x10400);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending());
        pmu.write(0x340, 0x0F);
        assertFalse(pmu.interruptPending(), "fixed delivery with vector 15 is illegal");
        pmu.write(0x340, 0x400);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void acknowledgingWithoutAPendingInterruptIsAnError() {
        assertThrows(IllegalStateException.class, pmu::acknowledgeInterrupt);
    }

    @ParameterizedTest(name = "count {0} at {1} events per 1000 cycles after {2} cycles")
    @CsvSource({"100000, 1000, 0", "100000, 999, 3", "3000, 333, 1", "6000, 7, 0", "4, 2999, 0"})
    void cyclesUntilOverflowIsExactlyTheCycleOfTheWrap(long count, long rate, long warmup) {
        armCounter0(-count, OVF_PMI_T0);
        SignalRates r = rates(Signal.CYCLES, rate);
        pmu.advance(warmup, r, 3);
        long until = pmu.cyclesUntilOverflow(r, 3);
        pmu.advance(until - 1, r, 3);
        assertEquals(0, pmu.read(0x360) & OVF, "one cycle short of the wrap");
        assertFalse(pmu.interruptPending());
        pmu.advance(1, r, 3);
        assertEquals(OVF, pmu.read(0x360) & OVF, "the wrap happens on the predicted cycle");
        assertTrue(pmu.interruptPending());
    }

    @Test
    void badCplAndNegativeCyclesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> pmu.advance(1, onePerCycle(), 4));
        assertThrows(IllegalArgumentException.class, () -> pmu.cyclesUntilOverflow(onePerCycle(), -1));
        assertThrows(IllegalArgumentException.class, () -> pmu.advance(-5, onePerCycle(), 3));
    }
}
