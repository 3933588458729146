package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.PR;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FC;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCECE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMAO;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC1CE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMCJCE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMXE;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Enabled conditions, PMXE and PMAO, FCECE, and the exception as the CPU sees it. */
class Ppc970AlertTest {
    private final Ppc970Fixture fixture = Ppc970Fixture.create();

    /** All PMCs on cycles with {@code mmcr0Bits}; PMC {@code counter} one event short of negative. */
    private Ppc970Pmu oneShort(int counter, long mmcr0Bits) {
        return oneShort(Map.of(), counter, mmcr0Bits);
    }

    private Ppc970Pmu oneShort(Map<String, String> options, int counter, long mmcr0Bits) {
        Ppc970Pmu pmu = fixture.allCounting(options, mmcr0Bits);
        for (int i = 0; i < 8; i++) {
            pmu.write(pmc(i), i == counter ? 0x7FFF_FFFFL : 0);
        }
        return pmu;
    }

    @Test
    void pmc2TurningNegativeWithPmcjceAndPmxeRaisesTheAlert() {
        Ppc970Pmu pmu = oneShort(1, PMXE | PMCJCE);
        pmu.advance(1, onePerCycle(), PR);
        long mmcr0 = pmu.read(MMCR0);
        assertTrue((mmcr0 & PMAO) != 0, "PMAO set");
        assertEquals(0, mmcr0 & PMXE, "PMXE cleared by the alert");
        assertTrue(pmu.interruptPending());
        assertTrue(pmu.alertPending());
    }

    @ParameterizedTest(name = "PMC{0}")
    @ValueSource(ints = {2, 3, 4, 5, 6, 7, 8})
    void pmcjceEnablesTheConditionForEachOfPmc2To8(int n) {
        Ppc970Pmu pmu = oneShort(n - 1, PMXE | PMCJCE);
        pmu.advance(1, onePerCycle(), PR);
        assertTrue(pmu.interruptPending(), "PMC" + n);
    }

    @ParameterizedTest(name = "PMC{0}")
    @ValueSource(ints = {2, 3, 4, 5, 6, 7, 8})
    void pmc1ceDoesNotCoverPmc2To8(int n) {
        Ppc970Pmu pmu = oneShort(n - 1, PMXE | PMC1CE);
        pmu.advance(1, onePerCycle(), PR);
        assertFalse(pmu.alertPending(), "PMC" + n + " negative with only PMC1CE");
        assertTrue(pmu.read(pmc(n - 1)) >= 0x8000_0000L);
    }

    @Test
    void pmc1NeedsPmc1ceNotPmcjce() {
        Ppc970Pmu withJ = oneShort(0, PMXE | PMCJCE);
        withJ.advance(1, onePerCycle(), PR);
        assertFalse(withJ.alertPending(), "PMCjCE does not cover PMC1");
        Ppc970Pmu with1 = oneShort(0, PMXE | PMC1CE);
        with1.advance(1, onePerCycle(), PR);
        assertTrue(with1.interruptPending());
    }

    @Test
    void withoutPmxeAConditionRaisesNoAlert() {
        Ppc970Pmu pmu = oneShort(1, PMCJCE);
        pmu.advance(1, onePerCycle(), PR);
        assertFalse(pmu.alertPending());
        assertFalse(pmu.interruptPending());
        assertEquals(-1, pmu.sampledCpl(), "nothing latched without an alert");
    }

    @Test
    void fceceFreezesEveryPmcAtTheEventThatMadeTheCondition() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMCJCE | FCECE);
        pmu.write(pmc(1), 0x7FFF_FFF0L);
        pmu.advance(100, onePerCycle(), PR);
        assertEquals(0x8000_0000L, pmu.read(pmc(1)), "PMC2 stopped at the 16th event, the one that set bit 31");
        assertEquals(16, pmu.read(pmc(2)), "PMC3 froze at the same moment");
        assertTrue((pmu.read(MMCR0) & FC) != 0, "FCECE set FC");
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), PR));
    }

    @Test
    void fceceFreezesEvenWithoutPmxe() {
        Ppc970Pmu pmu = oneShort(1, PMCJCE | FCECE);
        pmu.advance(10, onePerCycle(), PR);
        assertTrue((pmu.read(MMCR0) & FC) != 0);
        assertFalse(pmu.alertPending());
    }

    @Test
    void withoutFceceThePmcsCountOnAfterTheAlert() {
        Ppc970Pmu pmu = oneShort(1, PMXE | PMCJCE);
        pmu.advance(10, onePerCycle(), PR);
        assertEquals(0x8000_0009L, pmu.read(pmc(1)));
        assertEquals(10, pmu.read(pmc(2)));
    }

    @Test
    void writingANegativeValueIsAnEnabledCondition() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMCJCE | FCECE);
        pmu.write(pmc(4), 0x8000_0000L);
        assertTrue(pmu.interruptPending(), "a negative PMC5 written with PMXE and PMCjCE: alert with no event counted");
        assertTrue((pmu.read(MMCR0) & FC) != 0);
    }

    @Test
    void writingANegativeValueWithoutItsCeBitIsQuiet() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMC1CE);
        pmu.write(pmc(4), 0x8000_0000L);
        assertFalse(pmu.alertPending());
        Ppc970Pmu noCe = fixture.allCounting(PMXE);
        noCe.write(pmc(0), 0xFFFF_FFFFL);
        assertFalse(noCe.alertPending());
    }

    @Test
    void writingMmcr0NeverRaisesAnAlertFromAnAlreadyNegativePmc() {
        Ppc970Pmu pmu = fixture.allCounting(0);
        pmu.write(pmc(3), 0x9000_0000L);
        pmu.write(MMCR0, pmu.read(MMCR0) | PMXE | PMCJCE | PMC1CE);
        assertFalse(pmu.alertPending(), "conditions are events (becoming negative), not levels");
    }

    @Test
    void pmaoWrittenBySoftwareIsAnAlertFlagButNoException() {
        Ppc970Pmu pmu = fixture.pmu();
        pmu.write(MMCR0, PMAO | PMXE);
        assertTrue(pmu.alertPending());
        assertFalse(pmu.interruptPending());
    }

    @Test
    void clearingPmaoWithdrawsThePendingException() {
        Ppc970Pmu pmu = oneShort(1, PMXE | PMCJCE);
        pmu.advance(1, onePerCycle(), PR);
        pmu.write(MMCR0, pmu.read(MMCR0) & ~PMAO);
        assertFalse(pmu.interruptPending());
        assertFalse(pmu.alertPending());
        pmu.write(MMCR0, pmu.read(MMCR0) | PMAO);
        assertFalse(pmu.interruptPending(), "setting PMAO again does not bring the exception back");
    }

    @Test
    void takingTheInterruptConsumesTheExceptionAndLeavesPmaoForTheHandler() {
        Ppc970Pmu pmu = oneShort(1, PMXE | PMCJCE);
        pmu.advance(1, onePerCycle(), PR);
        pmu.acknowledgeInterrupt();
        assertFalse(pmu.interruptPending());
        assertTrue(pmu.alertPending(), "PMAO stays until software clears it");
    }

    @Test
    void takingAnInterruptThatIsNotPendingIsRefused() {
        Ppc970Pmu pmu = fixture.pmu();
        IllegalStateException e = assertThrows(IllegalStateException.class, pmu::acknowledgeInterrupt);
        assertTrue(e.getMessage().contains("interruptPending()"), e.getMessage());
    }

    @Test
    void theExceptionIsGatedByMsrEe() {
        assertTrue(fixture.pmu().gatedByExternalInterruptEnable());
    }

    @Test
    void withPmxeClearedAtAlertALaterConditionRaisesNoNewException() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMCJCE);
        pmu.write(pmc(1), 0x7FFF_FFFFL);
        pmu.write(pmc(2), 0x7FFF_FFFAL);
        pmu.setProgramCounter(0x1000);
        pmu.advance(1, onePerCycle(), PR);
        pmu.acknowledgeInterrupt();
        pmu.setProgramCounter(0x2000);
        pmu.advance(10, onePerCycle(), PR);
        assertFalse(pmu.interruptPending(), "PMXE is clear until the handler sets it again");
        assertEquals(0x1000, pmu.sampledAddress(), "SIAR keeps the first sample");
    }

    @Test
    void withPmxeClearedAtInterruptPmxeStaysSetUntilTheCpuTakesIt() {
        Ppc970Pmu pmu = oneShort(Map.of("pmxe.clear", "interrupt"), 1, PMXE | PMCJCE);
        pmu.advance(1, onePerCycle(), PR);
        assertTrue((pmu.read(MMCR0) & PMXE) != 0, "PMXE still set while the exception waits");
        assertTrue(pmu.interruptPending());
        pmu.acknowledgeInterrupt();
        assertEquals(0, pmu.read(MMCR0) & PMXE, "the interrupt cleared PMXE");
    }

    @Test
    void withPmxeClearedAtInterruptEachConditionLatchesSiarAgain() {
        Ppc970Pmu pmu = fixture.allCounting(Map.of("pmxe.clear", "interrupt"), PMXE | PMCJCE);
        pmu.write(pmc(1), 0x7FFF_FFFFL);
        pmu.write(pmc(2), 0x7FFF_FFFAL);
        pmu.setProgramCounter(0x1000);
        pmu.advance(1, onePerCycle(), PR);
        pmu.setProgramCounter(0x2000);
        pmu.advance(10, onePerCycle(), Ppc970Fixture.HV);
        assertEquals(0x2000, pmu.sampledAddress(), "SIAR is valid until the next perfmon exception");
        assertEquals(Ppc970Fixture.HV, pmu.sampledCpl());
    }
}
