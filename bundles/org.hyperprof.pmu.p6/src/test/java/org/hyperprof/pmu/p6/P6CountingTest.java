package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.p6.P6Fixture.CLK;
import static org.hyperprof.pmu.p6.P6Fixture.INST;
import static org.hyperprof.pmu.p6.P6Fixture.TWO_TO_40;
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

/** Counting, overflow and the PMI: enable, privilege filters, wrap at 2^40, LVTPC routing. */
class P6CountingTest {
    private final P6Fixture fixture = P6Fixture.create();
    private final P6Pmu pmu = fixture.pmu();

    /** Counter 0 counts unhalted cycles at every CPL with interrupt enable, routed as NMI. */
    private void armCounter0(long preload) {
        pmu.write(LVTPC, 0x400);
        pmu.write(PERFCTR0, preload);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | EVTSEL_USR | EVTSEL_OS | CLK);
    }

    @Test
    void enInPerfEvtSel0EnablesBothCounters() {
        pmu.write(PERFEVTSEL1, EVTSEL_USR | INST);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(100, pmu.read(PERFCTR0));
        assertEquals(100, pmu.read(PERFCTR1), "counter 1 counts on PerfEvtSel0's EN though its own EN is clear");
    }

    @Test
    void withoutEnInPerfEvtSel0NeitherCounterCounts() {
        pmu.write(PERFEVTSEL0, EVTSEL_USR | CLK);
        pmu.write(PERFEVTSEL1, EVTSEL_USR | INST);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(PERFCTR0));
        assertEquals(0, pmu.read(PERFCTR1));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void enInPerfEvtSel1IsSilentlyIgnored() {
        pmu.write(PERFEVTSEL0, EVTSEL_USR | CLK);
        pmu.write(PERFEVTSEL1, EVTSEL_EN | EVTSEL_USR | INST);
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(0, pmu.read(PERFCTR0));
        assertEquals(0, pmu.read(PERFCTR1), "EN in PerfEvtSel1 does not enable counter 1");
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void usrCountsAtEveryCplAbove0AndNotAt0() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(10, onePerCycle(), 0);
        assertEquals(0, pmu.read(PERFCTR0), "USR alone does not count at CPL 0");
        pmu.advance(10, onePerCycle(), 1);
        pmu.advance(10, onePerCycle(), 2);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(30, pmu.read(PERFCTR0));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 0));
    }

    @Test
    void osCountsOnlyAtCpl0() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | CLK);
        pmu.advance(10, onePerCycle(), 1);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(0, pmu.read(PERFCTR0), "OS alone does not count at CPL 1-3");
        pmu.advance(10, onePerCycle(), 0);
        assertEquals(10, pmu.read(PERFCTR0));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void eachCounterFiltersByItsOwnUsrAndOsBits() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_OS | CLK);
        pmu.write(PERFEVTSEL1, EVTSEL_USR | CLK);
        pmu.advance(7, onePerCycle(), 0);
        pmu.advance(11, onePerCycle(), 3);
        assertEquals(7, pmu.read(PERFCTR0));
        assertEquals(11, pmu.read(PERFCTR1));
    }

    @Test
    void aCounterCountsTheSignalOfItsSelectsEventCode() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | 0xC5); // BR_MISS_PRED_RETIRED
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.BRANCH_MISSES.ordinal()] = 4;
        pmu.advance(10_000, SignalRates.of(r), 3);
        assertEquals(40, pmu.read(PERFCTR0));
    }

    @Test
    void anEventCodeMissingFromTheTableCountsNothing() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | 0x01);
        long[] all = new long[Signal.COUNT];
        java.util.Arrays.fill(all, 1000);
        pmu.advance(1000, SignalRates.of(all), 3);
        assertEquals(0, pmu.read(PERFCTR0));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(SignalRates.of(all), 3));
    }

    @Test
    void haltedTimeCountsNothing() {
        armCounter0(-10);
        pmu.advance(1_000_000, SignalRates.HALTED, 3);
        assertEquals(TWO_TO_40 - 10, pmu.read(PERFCTR0));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(SignalRates.HALTED, 3));
    }

    @Test
    void overflowWrapsFrom0xFF_FFFF_FFFFToZero() {
        armCounter0(-1);
        assertEquals(0xFF_FFFF_FFFFL, pmu.read(PERFCTR0));
        pmu.advance(1, onePerCycle(), 3);
        assertEquals(0, pmu.read(PERFCTR0));
    }

    @Test
    void countersKeepCountingAfterOverflow() {
        armCounter0(-1);
        pmu.advance(5, onePerCycle(), 3);
        assertEquals(4, pmu.read(PERFCTR0), "no freeze on overflow");
    }

    @Test
    void intRaisesThePmiWhenTheCounterOverflows() {
        armCounter0(-10);
        pmu.advance(9, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "no PMI before the wrap");
        pmu.advance(1, onePerCycle(), 3);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void noPmiWhenIntIsClear() {
        armCounter0(-10);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(20, onePerCycle(), 3);
        assertEquals(10, pmu.read(PERFCTR0), "the counter wrapped");
        assertFalse(pmu.interruptPending());
    }

    @Test
    void theIntBitOfTheOverflowingCounterDecides() {
        pmu.write(LVTPC, 0x400);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | EVTSEL_USR | CLK);
        pmu.write(PERFCTR0, -1000);
        pmu.write(PERFEVTSEL1, EVTSEL_USR | CLK); // INT clear
        pmu.write(PERFCTR1, -10);
        pmu.advance(10, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "counter 1 overflowed but has INT clear");
    }

    @Test
    void noPmiDeliveredWhileLvtpcIsMaskedButItStaysPendingUntilUnmasked() {
        armCounter0(-10);
        pmu.write(LVTPC, 0x1_0400);
        pmu.advance(10, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "masked LVTPC delivers nothing");
        pmu.write(LVTPC, 0x400);
        assertTrue(pmu.interruptPending(), "the PMI is delivered once LVTPC is unmasked");
    }

    @Test
    void fixedDeliveryWithALegalVectorIsDeliverable() {
        armCounter0(-1);
        pmu.write(LVTPC, 0xEE);
        pmu.advance(1, onePerCycle(), 3);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void fixedDeliveryWithAnIllegalVectorBelow16IsNotDelivered() {
        armCounter0(-1);
        pmu.write(LVTPC, 0x00);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "vector 0 in fixed mode is an APIC illegal-vector error");
    }

    @Test
    void smiDeliveryModeDoesNotRaiseThePmi() {
        armCounter0(-1);
        pmu.write(LVTPC, 0x200);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending());
    }

    @Test
    void acknowledgeTakesTheInterruptAndLeavesLvtpcUnmaskedWithoutAutoMask() {
        armCounter0(-1);
        pmu.advance(1, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        assertFalse(pmu.interruptPending());
        assertEquals(0x400, pmu.read(LVTPC), "PPro/PII/PIII never auto-mask LVTPC");
    }

    @Test
    void autoMaskOptionSetsLvtpcMaskOnDelivery() {
        P6Pmu pentiumM = fixture.pmu(Map.of("lvtpc.automask", "true"));
        pentiumM.write(LVTPC, 0x400);
        pentiumM.write(PERFCTR0, -1);
        pentiumM.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | EVTSEL_USR | CLK);
        pentiumM.advance(1, onePerCycle(), 3);
        pentiumM.acknowledgeInterrupt();
        assertEquals(0x1_0400, pentiumM.read(LVTPC), "the APIC set LVTPC.mask when it delivered the PMI");
        pentiumM.write(PERFCTR0, -1);
        pentiumM.advance(1, onePerCycle(), 3);
        assertFalse(pentiumM.interruptPending(), "a second overflow waits until the handler unmasks LVTPC");
        pentiumM.checkCounters(counter -> { });
        assertTrue(pentiumM.interruptPending());
    }

    @Test
    void acknowledgeWithoutAPendingInterruptIsRejected() {
        IllegalStateException e = assertThrows(IllegalStateException.class, pmu::acknowledgeInterrupt);
        assertTrue(e.getMessage().contains("no PMU interrupt is pending"), e.getMessage());
    }

    @ParameterizedTest(name = "rate {0}/kc, preload -{1}, warm-up {2} cycles")
    @CsvSource({"1000, 100000, 0", "850, 6000, 0", "333, 6000, 7", "7, 500, 0", "2500, 100000, 3", "999, 1, 1",
        "1, 6000, 999", "3000, 1, 0"})
    void cyclesUntilOverflowIsExactlyTheCycleOfTheWrap(long rate, long count, long warmUp) {
        SignalRates r = rates(Signal.INSTRUCTIONS, rate);
        pmu.write(LVTPC, 0x400);
        pmu.write(PERFCTR0, 0);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | EVTSEL_USR | INST);
        pmu.advance(warmUp, r, 3); // leaves a fractional residue for the odd rates
        pmu.write(PERFCTR0, -count);
        long cycles = pmu.cyclesUntilOverflow(r, 3);
        pmu.advance(cycles - 1, r, 3);
        assertFalse(pmu.interruptPending(), "one cycle early there is no overflow");
        assertTrue(pmu.read(PERFCTR0) > 0xFF_0000_0000L, "not yet wrapped: " + Long.toHexString(pmu.read(PERFCTR0)));
        pmu.advance(1, r, 3);
        assertTrue(pmu.interruptPending(), "the last cycle wraps the counter");
        assertTrue(pmu.read(PERFCTR0) < 4, "just past the wrap: " + pmu.read(PERFCTR0));
    }

    @Test
    void cyclesUntilOverflowIsTheSoonerOfTheCountingCounters() {
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.write(PERFCTR0, -5000);
        pmu.write(PERFEVTSEL1, EVTSEL_USR | INST);
        pmu.write(PERFCTR1, -600);
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 200; // 600 instructions take 3000 cycles
        assertEquals(3000, pmu.cyclesUntilOverflow(SignalRates.of(r), 3));
        pmu.write(PERFEVTSEL1, EVTSEL_OS | INST);
        assertEquals(5000, pmu.cyclesUntilOverflow(SignalRates.of(r), 3), "counter 1 does not count at CPL 3");
    }

    @Test
    void fractionalRatesCarryTheirResidueAcrossAdvances() {
        SignalRates r = rates(Signal.INSTRUCTIONS, 333);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | INST);
        pmu.advance(1, r, 3);
        pmu.advance(1, r, 3);
        assertEquals(0, pmu.read(PERFCTR0), "666 thousandths are not an event yet");
        pmu.advance(2, r, 3);
        assertEquals(1, pmu.read(PERFCTR0), "1332 thousandths make one event");
        for (int i = 0; i < 1000; i++) {
            pmu.advance(7, r, 3);
        }
        assertEquals(333L * 7004 / 1000, pmu.read(PERFCTR0), "many small steps count what one long step counts");
    }

    @Test
    void changingTheEventDropsTheResidueOfTheOldSignal() {
        SignalRates r = rates(Signal.INSTRUCTIONS, 500);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | INST);
        pmu.advance(1, r, 3); // half an instruction
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | 0xD0); // INST_DECODED
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | INST);
        pmu.advance(1, r, 3);
        assertEquals(0, pmu.read(PERFCTR0));
    }

    @Test
    void advanceRejectsNegativeCyclesAndCplOutside0To3() {
        assertThrows(IllegalArgumentException.class, () -> pmu.advance(-1, onePerCycle(), 3));
        IllegalArgumentException cpl = assertThrows(IllegalArgumentException.class,
                () -> pmu.cyclesUntilOverflow(onePerCycle(), 4));
        assertTrue(cpl.getMessage().contains("CPL"), cpl.getMessage());
    }
}
