package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;
import static org.hyperprof.pmu.x86_64.ArchFixture.CLK;
import static org.hyperprof.pmu.x86_64.ArchFixture.INST;
import static org.hyperprof.pmu.x86_64.ArchFixture.LLC;
import static org.hyperprof.pmu.x86_64.ArchRegisters.DEBUGCTL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_OVF_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_STATUS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.LVTPC;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERFEVTSEL0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PMC0;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Counting, overflow, GLOBAL_STATUS, freeze and the PMI. */
class ArchCountingTest {
    private static final long ALL_CPL = EVTSEL_USR | EVTSEL_OS;
    private final ArchPerfmonPmu pmu = ArchFixture.arch();

    @Test
    void aGeneralPurposeCounterCountsWithEnAndItsGlobalCtrlBit() {
        pmu.write(PERFEVTSEL0 + 2, EVTSEL_EN | ALL_CPL | CLK);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(100, pmu.read(PMC0 + 2), "GLOBAL_CTRL's reset value enables it");
    }

    @Test
    void withoutEnInItsOwnSelectACounterDoesNotCount() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        pmu.write(PERFEVTSEL0 + 1, ALL_CPL | CLK);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(100, pmu.read(PMC0));
        assertEquals(0, pmu.read(PMC0 + 1), "each select has its own EN; counter 0's does not enable counter 1");
    }

    @Test
    void clearingItsGlobalCtrlBitStopsACounterDespiteEn() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        pmu.write(PERFEVTSEL0 + 1, EVTSEL_EN | ALL_CPL | CLK);
        pmu.write(GLOBAL_CTRL, 0b10);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(PMC0), "EN set, GLOBAL_CTRL bit 0 clear");
        assertEquals(100, pmu.read(PMC0 + 1));
        pmu.write(GLOBAL_CTRL, 0);
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void version1CountsWithEnAloneBecauseItHasNoGlobalCtrl() {
        ArchPerfmonPmu v1 = ArchFixture.arch(Map.of("cpuid.version", "1"));
        v1.write(PERFEVTSEL0 + 3, EVTSEL_EN | ALL_CPL | INST);
        v1.advance(50, onePerCycle(), 0);
        assertEquals(50, v1.read(PMC0 + 3));
    }

    @Test
    void usrCountsAboveCpl0AndOsAtCpl0() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.write(PERFEVTSEL0 + 1, EVTSEL_EN | EVTSEL_OS | CLK);
        pmu.advance(10, onePerCycle(), 0);
        pmu.advance(20, onePerCycle(), 1);
        pmu.advance(30, onePerCycle(), 3);
        assertEquals(50, pmu.read(PMC0), "USR: CPL 1 and 3");
        assertEquals(10, pmu.read(PMC0 + 1), "OS: CPL 0 only");
    }

    @Test
    void theEventCodeAndUnitMaskTogetherSelectTheSignal() {
        long[] r = new long[Signal.COUNT];
        r[Signal.L2_REQUESTS.ordinal()] = 30;
        r[Signal.L2_MISSES.ordinal()] = 7;
        SignalRates rates = SignalRates.of(r);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | 0x4F00 | LLC); // LLC_REFS
        pmu.write(PERFEVTSEL0 + 1, EVTSEL_EN | ALL_CPL | 0x4100 | LLC); // LLC_MISSES
        pmu.advance(1000, rates, 3);
        assertEquals(30, pmu.read(PMC0));
        assertEquals(7, pmu.read(PMC0 + 1));
    }

    @Test
    void anExactUnitMaskMatchWinsOverABitMaskThatAlsoAllowsTheValue() {
        // Core 2: L2_RQSTS (0x2E, bit mask 0x00-0xFF) comes first in the table, but 0x41 is LLC_MISSES.
        ArchPerfmonPmu c2 = ArchFixture.core2();
        long[] r = new long[Signal.COUNT];
        r[Signal.L2_REQUESTS.ordinal()] = 30;
        r[Signal.L2_MISSES.ordinal()] = 7;
        c2.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | 0x4100 | LLC);
        c2.write(PERFEVTSEL0 + 1, EVTSEL_EN | ALL_CPL | 0x7F00 | LLC);
        c2.advance(1000, SignalRates.of(r), 3);
        assertEquals(7, c2.read(PMC0), "LLC_MISSES");
        assertEquals(30, c2.read(PMC0 + 1), "L2_RQSTS");
    }

    @Test
    void unhaltedReferenceCyclesIsEventCodeCpuClkUnhaltedWithUnitMask1() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | 0x0100 | CLK);
        pmu.advance(1000, rates(Signal.CYCLES, 1000), 3);
        assertEquals(1000, pmu.read(PMC0));
    }

    @Test
    void anEventCodeMissingFromTheTableCountsNothing() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | 0x01);
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(0, pmu.read(PMC0));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void fixedCountersCountInstructionsCoreCyclesAndReferenceCycles() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 850;
        pmu.write(FIXED_CTR_CTRL, 0x333); // OS and USR for all three
        pmu.write(GLOBAL_CTRL, 0x7_0000_0000L);
        pmu.advance(1000, SignalRates.of(r), 3);
        assertEquals(850, pmu.read(FIXED_CTR0), "FIXED_CTR0: INST_RETIRED.ANY");
        assertEquals(1000, pmu.read(FIXED_CTR0 + 1), "FIXED_CTR1: CPU_CLK_UNHALTED.CORE");
        assertEquals(1000, pmu.read(FIXED_CTR0 + 2), "FIXED_CTR2: CPU_CLK_UNHALTED.REF");
    }

    @Test
    void aFixedCounterNeedsItsGlobalCtrlBitAndItsCplBits() {
        pmu.write(FIXED_CTR_CTRL, 0x0_2_1); // FIXED0: OS only; FIXED1: USR only
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(0, pmu.read(FIXED_CTR0), "GLOBAL_CTRL's fixed bits are clear after reset");
        pmu.write(GLOBAL_CTRL, 0x3_0000_0000L);
        pmu.advance(10, onePerCycle(), 0);
        pmu.advance(20, onePerCycle(), 3);
        assertEquals(10, pmu.read(FIXED_CTR0), "OS bit: CPL 0");
        assertEquals(20, pmu.read(FIXED_CTR0 + 1), "USR bit: CPL above 0");
    }

    @Test
    void overflowSetsTheCountersGlobalStatusBitEvenWithoutInt() {
        pmu.write(PMC0 + 1, -10L);
        pmu.write(PERFEVTSEL0 + 1, EVTSEL_EN | ALL_CPL | CLK);
        pmu.advance(9, onePerCycle(), 3);
        assertEquals(0, pmu.read(GLOBAL_STATUS));
        pmu.advance(1, onePerCycle(), 3);
        assertEquals(0b10, pmu.read(GLOBAL_STATUS));
        assertFalse(pmu.interruptPending(), "INT is clear: no PMI");
    }

    @Test
    void aFixedCounterOverflowSetsStatusBit32PlusIndex() {
        pmu.write(FIXED_CTR0 + 2, (1L << 48) - 5);
        pmu.write(FIXED_CTR_CTRL, 0x300);
        pmu.write(GLOBAL_CTRL, 1L << 34);
        pmu.advance(5, onePerCycle(), 3);
        assertEquals(1L << 34, pmu.read(GLOBAL_STATUS));
    }

    @Test
    void globalStatusBitsAreStickyUntilWrittenToGlobalOvfCtrl() {
        pmu.write(PMC0, -1L);
        pmu.write(PMC0 + 3, -1L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        pmu.write(PERFEVTSEL0 + 3, EVTSEL_EN | ALL_CPL | CLK);
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(0b1001, pmu.read(GLOBAL_STATUS), "still set long after the overflow");
        pmu.write(GLOBAL_OVF_CTRL, 0b1000);
        assertEquals(0b0001, pmu.read(GLOBAL_STATUS), "only the written bit is cleared");
        pmu.write(GLOBAL_OVF_CTRL, 0b0001);
        assertEquals(0, pmu.read(GLOBAL_STATUS));
    }

    @Test
    void overflowWithIntRaisesThePmiThroughAnUnmaskedNmiLvtpc() {
        pmu.write(LVTPC, 0x400);
        pmu.write(PMC0, -3L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | ALL_CPL | CLK);
        pmu.advance(2, onePerCycle(), 3);
        assertFalse(pmu.interruptPending());
        pmu.advance(1, onePerCycle(), 3);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void aFixedCounterRaisesThePmiOnlyWithItsPmiBit() {
        pmu.write(LVTPC, 0x400);
        pmu.write(GLOBAL_CTRL, 0x3_0000_0000L);
        pmu.write(FIXED_CTR0, (1L << 48) - 1);
        pmu.write(FIXED_CTR0 + 1, (1L << 48) - 1);
        pmu.write(FIXED_CTR_CTRL, 0x03 | 0xB0); // FIXED0 without PMI, FIXED1 with PMI
        pmu.advance(1, rates(Signal.INSTRUCTIONS, 1000), 3);
        assertFalse(pmu.interruptPending(), "FIXED0 overflowed without its PMI bit");
        pmu.advance(1, rates(Signal.CYCLES, 1000), 3);
        assertTrue(pmu.interruptPending(), "FIXED1 overflowed with its PMI bit");
    }

    @Test
    void aCounterWrapsAtItsCpuidWidthAndKeepsCounting() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        pmu.write(PMC0, -10L);
        pmu.advance(25, onePerCycle(), 3);
        assertEquals(15, pmu.read(PMC0), "wrapped past 2^48 and counted on: no freeze");
        ArchPerfmonPmu c2 = ArchFixture.core2();
        c2.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        c2.write(PMC0, -10L);
        assertEquals((1L << 40) - 10, c2.read(PMC0));
        c2.advance(12, onePerCycle(), 3);
        assertEquals(2, c2.read(PMC0), "wrapped past 2^40");
    }

    @Test
    void freezePerfmonOnPmiClearsGlobalCtrlAtTheOverflowingCycle() {
        pmu.write(DEBUGCTL, 1L << 12);
        pmu.write(PMC0, -100L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | ALL_CPL | CLK);
        pmu.write(PERFEVTSEL0 + 1, EVTSEL_EN | ALL_CPL | INST);
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(0, pmu.read(GLOBAL_CTRL), "the PMI cleared every enable bit");
        assertEquals(0, pmu.read(PMC0), "counter 0 froze right after its wrap");
        assertEquals(100, pmu.read(PMC0 + 1), "counter 1 froze at the same cycle");
        pmu.write(GLOBAL_CTRL, 0b11);
        pmu.advance(5, onePerCycle(), 3);
        assertEquals(5, pmu.read(PMC0), "software re-enables");
    }

    @Test
    void withoutFreezeBitAPmiLeavesGlobalCtrlAlone() {
        pmu.write(PMC0, -100L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | ALL_CPL | CLK);
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(0xF, pmu.read(GLOBAL_CTRL));
        assertEquals(900, pmu.read(PMC0));
    }

    @Test
    void anOverflowWithoutIntDoesNotFreeze() {
        pmu.write(DEBUGCTL, 1L << 12);
        pmu.write(PMC0, -100L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(0xF, pmu.read(GLOBAL_CTRL));
    }

    @Test
    void aMaskedLvtpcHoldsThePmiUntilUnmasked() {
        pmu.write(LVTPC, 0x10400);
        pmu.write(PMC0, -1L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | ALL_CPL | CLK);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending());
        pmu.write(LVTPC, 0x400);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void aFixedDeliveryWithAnIllegalVectorIsNotDelivered() {
        pmu.write(LVTPC, 0x0F);
        pmu.write(PMC0, -1L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | ALL_CPL | CLK);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending());
        pmu.write(LVTPC, 0xEF);
        assertTrue(pmu.interruptPending(), "vector 0xEF, fixed delivery");
    }

    @Test
    void takingThePmiAutoMasksLvtpc() {
        pmu.write(LVTPC, 0x400);
        pmu.write(PMC0, -1L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | ALL_CPL | CLK);
        pmu.advance(1, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        assertEquals(0x10400, pmu.read(LVTPC));
        assertFalse(pmu.interruptPending());
        pmu.write(PMC0, -1L);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "a second overflow waits behind the mask");
    }

    @Test
    void acknowledgingWithoutAPendingInterruptIsAnError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, pmu::acknowledgeInterrupt);
        assertTrue(e.getMessage().contains("no PMU interrupt is pending"), e.getMessage());
    }

    @ParameterizedTest(name = "count {0} at {1} events per 1000 cycles, residue after {2} cycles")
    @CsvSource({"100000, 1000, 0", "100000, 850, 7", "6000, 333, 1", "12345, 1, 0", "3, 2999, 0"})
    void cyclesUntilOverflowIsExactlyTheCycleOfTheWrap(long count, long rate, long warmup) {
        pmu.write(PMC0, -count);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | INST);
        SignalRates r = rates(Signal.INSTRUCTIONS, rate);
        pmu.advance(warmup, r, 3);
        long status = pmu.read(GLOBAL_STATUS);
        long until = pmu.cyclesUntilOverflow(r, 3);
        pmu.advance(until - 1, r, 3);
        assertEquals(status, pmu.read(GLOBAL_STATUS), "one cycle short of the wrap");
        assertTrue(pmu.read(PMC0) > (1L << 47));
        pmu.advance(1, r, 3);
        assertEquals(1, pmu.read(GLOBAL_STATUS) & 1, "the wrap happens on the predicted cycle");
    }

    @Test
    void cyclesUntilOverflowIsTheSoonestOfAllCountingCountersFixedOnesIncluded() {
        pmu.write(PMC0, -500L);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | ALL_CPL | CLK);
        pmu.write(FIXED_CTR0, (1L << 48) - 300);
        pmu.write(FIXED_CTR_CTRL, 0x3);
        pmu.write(GLOBAL_CTRL, 0x1_0000_0001L);
        assertEquals(300, pmu.cyclesUntilOverflow(onePerCycle(), 3));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(SignalRates.HALTED, 3));
    }

    @Test
    void badCplAndNegativeCyclesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> pmu.advance(1, onePerCycle(), 4));
        assertThrows(IllegalArgumentException.class, () -> pmu.cyclesUntilOverflow(onePerCycle(), -1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pmu.advance(-1, onePerCycle(), 3));
        assertTrue(e.getMessage().contains("zero or positive"), e.getMessage());
    }
}
