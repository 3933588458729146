package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.ALL_48;
import static org.hyperprof.pmu.amd.AmdFixture.CLK;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.hyperprof.pmu.amd.AmdFixture.INST;
import static org.hyperprof.pmu.amd.AmdFixture.TWO_TO_48;
import static org.hyperprof.pmu.amd.AmdFixture.ctr;
import static org.hyperprof.pmu.amd.AmdFixture.pmu;
import static org.hyperprof.pmu.amd.AmdFixture.sel;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_GUEST_ONLY;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_HOST_ONLY;
import static org.hyperprof.pmu.amd.AmdRegisters.LVTPC;
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

import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Counting, overflow and the PMI: per-counter enable, privilege filters, wrap at 2^48, no auto-mask. */
class AmdCountingTest {

    /** Counter {@code i} counts unhalted cycles at every CPL with interrupt enable, LVTPC routed as NMI. */
    private static void arm(AmdPmu pmu, AmdPmuModel model, int i, long preload) {
        pmu.write(LVTPC, 0x400);
        pmu.write(ctr(model, i), preload);
        pmu.write(sel(model, i), EVTSEL_EN | EVTSEL_INT | EVTSEL_USR | EVTSEL_OS | CLK);
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void eachSelectsEnEnablesOnlyItsOwnCounter(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        for (int i = 0; i < model.counterCount(); i++) {
            pmu.write(sel(model, i), EVTSEL_USR | CLK);
        }
        pmu.write(sel(model, 1), EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(100, onePerCycle(), 3);
        for (int i = 0; i < model.counterCount(); i++) {
            assertEquals(i == 1 ? 100 : 0, pmu.read(ctr(model, i)), "counter " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void enInPerfEvtSel0DoesNotEnableTheOtherCounters(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(sel(model, 0), EVTSEL_EN | EVTSEL_USR | CLK);
        for (int i = 1; i < model.counterCount(); i++) {
            pmu.write(sel(model, i), EVTSEL_USR | INST);
        }
        pmu.advance(100, onePerCycle(), 3);
        assertEquals(100, pmu.read(ctr(model, 0)));
        for (int i = 1; i < model.counterCount(); i++) {
            assertEquals(0, pmu.read(ctr(model, i)), "unlike the P6, counter " + i + " needs its own EN");
        }
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void withoutEnNoCounterCountsOrPredictsAnOverflow(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        for (int i = 0; i < model.counterCount(); i++) {
            pmu.write(sel(model, i), EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | CLK);
        }
        pmu.advance(1000, onePerCycle(), 3);
        for (int i = 0; i < model.counterCount(); i++) {
            assertEquals(0, pmu.read(ctr(model, i)));
        }
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void usrCountsAtEveryCplAbove0AndNotAt0(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(sel(model, 0), EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(10, onePerCycle(), 0);
        assertEquals(0, pmu.read(ctr(model, 0)), "USR alone does not count at CPL 0");
        pmu.advance(10, onePerCycle(), 1);
        pmu.advance(10, onePerCycle(), 2);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(30, pmu.read(ctr(model, 0)));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 0));
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void osCountsOnlyAtCpl0(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(sel(model, 0), EVTSEL_EN | EVTSEL_OS | CLK);
        pmu.advance(10, onePerCycle(), 1);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(0, pmu.read(ctr(model, 0)), "OS alone does not count at CPL 1-3");
        pmu.advance(10, onePerCycle(), 0);
        assertEquals(10, pmu.read(ctr(model, 0)));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    @Test
    void aCounterCountsTheSignalOfItsSelectsEventCode() {
        AmdPmu pmu = pmu(HAMMER);
        pmu.write(sel(HAMMER, 2), EVTSEL_EN | EVTSEL_USR | 0xC3); // RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.BRANCH_MISSES.ordinal()] = 4;
        pmu.advance(10_000, SignalRates.of(r), 3);
        assertEquals(40, pmu.read(ctr(HAMMER, 2)));
    }

    @Test
    void family10CountsATwelveBitEventCodeFromBits35To32() {
        AmdPmu pmu = pmu(FAMILY10);
        // 0x1C0 RETIRED_X87_FLOATING_POINT_OPERATIONS: EventSelect[7:0] = 0xC0, [11:8] = 1 in bits 35:32.
        pmu.write(sel(FAMILY10, 0), (1L << 32) | EVTSEL_EN | EVTSEL_USR | 0xC0);
        long[] r = new long[Signal.COUNT];
        r[Signal.INSTRUCTIONS.ordinal()] = 1000;
        r[Signal.FP_OPERATIONS.ordinal()] = 250;
        pmu.advance(1000, SignalRates.of(r), 3);
        assertEquals(250, pmu.read(ctr(FAMILY10, 0)), "counts FP operations, not the instructions of 0x0C0");
    }

    @Test
    void anEventCodeMissingFromTheTableCountsNothing() {
        AmdPmu pmu = pmu(HAMMER);
        pmu.write(sel(HAMMER, 0), EVTSEL_EN | EVTSEL_USR | EVTSEL_OS | 0x47); // left out: no signal
        long[] all = new long[Signal.COUNT];
        java.util.Arrays.fill(all, 1000);
        pmu.advance(1000, SignalRates.of(all), 3);
        assertEquals(0, pmu.read(ctr(HAMMER, 0)));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(SignalRates.of(all), 3));
    }

    @Test
    void hostAndGuestOnlyBitsAreStoredButDoNotFilter() {
        AmdPmu pmu = pmu(FAMILY10);
        pmu.write(sel(FAMILY10, 0), EVTSEL_HOST_ONLY | EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.write(sel(FAMILY10, 1), EVTSEL_GUEST_ONLY | EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(10, pmu.read(ctr(FAMILY10, 0)));
        assertEquals(10, pmu.read(ctr(FAMILY10, 1)));
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void counterWrapsAt2To48AndRaisesThePmiWhenIntIsSet(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        arm(pmu, model, 0, ALL_48 - 9);
        pmu.advance(9, onePerCycle(), 3);
        assertEquals(ALL_48, pmu.read(ctr(model, 0)));
        assertFalse(pmu.interruptPending());
        pmu.advance(3, onePerCycle(), 3);
        assertEquals(2, pmu.read(ctr(model, 0)), "wrapped through zero and keeps counting");
        assertTrue(pmu.interruptPending());
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void aCounterWithoutIntWrapsSilently(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(LVTPC, 0x400);
        pmu.write(ctr(model, 1), ALL_48);
        pmu.write(sel(model, 1), EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance(5, onePerCycle(), 3);
        assertEquals(4, pmu.read(ctr(model, 1)));
        assertFalse(pmu.interruptPending());
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void theApicNeverAutoMasksLvtpcSoASecondOverflowRaisesAgainWithoutUnmask(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        arm(pmu, model, 0, ALL_48);
        pmu.advance(1, onePerCycle(), 3);
        assertTrue(pmu.interruptPending());
        pmu.acknowledgeInterrupt();
        assertEquals(0x400, pmu.read(LVTPC), "delivery left LVTPC unmasked");
        assertFalse(pmu.interruptPending());
        pmu.write(ctr(model, 0), ALL_48);
        pmu.advance(1, onePerCycle(), 3);
        assertTrue(pmu.interruptPending(), "the next overflow is delivered with no unmask in between");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void aMaskedLvtpcHoldsThePmiUntilUnmasked(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        arm(pmu, model, 0, ALL_48);
        pmu.write(LVTPC, 0x1_0400);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "masked");
        pmu.write(LVTPC, 0x400);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void aFixedLvtpcWithAnIllegalVectorDeliversNothing() {
        AmdPmu pmu = pmu(HAMMER);
        arm(pmu, HAMMER, 0, ALL_48);
        pmu.write(LVTPC, 0x0F);
        pmu.advance(1, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "vectors 0-15 are illegal for fixed delivery");
        pmu.write(LVTPC, 0xEE);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void acknowledgingWithNothingPendingIsRefused() {
        AmdPmu pmu = pmu(HAMMER);
        IllegalStateException e = assertThrows(IllegalStateException.class, pmu::acknowledgeInterrupt);
        assertTrue(e.getMessage().contains("interruptPending()"), e.getMessage());
    }

    @Test
    void countersKeepExactFractionalProgressBetweenAdvances() {
        AmdPmu pmu = pmu(HAMMER);
        pmu.write(sel(HAMMER, 0), EVTSEL_EN | EVTSEL_USR | INST);
        SignalRates ipc = rates(Signal.INSTRUCTIONS, 850);
        for (int i = 0; i < 1000; i++) {
            pmu.advance(7, ipc, 3);
        }
        assertEquals(5950, pmu.read(ctr(HAMMER, 0)), "7000 cycles at 0.85 IPC, however sliced");
    }

    @Test
    void badCplOrNegativeCyclesAreRefused() {
        AmdPmu pmu = pmu(HAMMER);
        assertThrows(IllegalArgumentException.class, () -> pmu.advance(1, onePerCycle(), 4));
        assertThrows(IllegalArgumentException.class, () -> pmu.cyclesUntilOverflow(onePerCycle(), -1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pmu.advance(-1, onePerCycle(), 3));
        assertTrue(e.getMessage().contains("zero or positive"), e.getMessage());
    }

    @Test
    void aWrapOfTheFull48BitsIsNeededNotJust32() {
        AmdPmu pmu = pmu(HAMMER);
        arm(pmu, HAMMER, 0, 0xFFFF_FFFFL);
        pmu.advance(1, onePerCycle(), 3);
        assertEquals(0x1_0000_0000L, pmu.read(ctr(HAMMER, 0)), "carries into bit 32");
        assertFalse(pmu.interruptPending());
        assertEquals(TWO_TO_48 - 0x1_0000_0000L, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }
}
