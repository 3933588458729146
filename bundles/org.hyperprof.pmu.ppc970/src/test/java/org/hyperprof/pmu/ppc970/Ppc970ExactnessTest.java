package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.NOTHING;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.PR;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.SUP;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCECE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMCJCE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMXE;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** cyclesUntilOverflow predicts advance to the cycle, and advance is exact however it is sliced. */
class Ppc970ExactnessTest {
    private final Ppc970Fixture fixture = Ppc970Fixture.create();

    @ParameterizedTest(name = "count {0} at {1} cycles/kc after {2} warm-up cycles")
    @CsvSource({"100000, 1000, 0", "100000, 333, 7", "10000, 2500, 3", "1000, 1, 0", "2147483648, 1000, 0",
            "12345, 999, 1"})
    void theAlertComesExactlyAtTheCycleCyclesUntilOverflowNames(long count, long rate, long warmUp)
            throws EventSpecException {
        Ppc970Pmu pmu = fixture.pmu();
        pmu.setup(fixture.configs("CYCLES:" + Math.max(count, 10000)));
        pmu.start();
        pmu.write(pmc(1), 0x8000_0000L - count);
        SignalRates r = rates(Signal.CYCLES, rate);
        pmu.advance(warmUp, r, SUP);
        long before = pmu.read(pmc(1));
        long t = pmu.cyclesUntilOverflow(r, SUP);
        if (t > 1) {
            pmu.advance(t - 1, r, SUP);
            assertFalse(pmu.alertPending(), "one cycle early");
        }
        pmu.advance(1, r, SUP);
        assertTrue(pmu.interruptPending(), "at the predicted cycle");
        assertTrue(Ppc970Registers.negative(pmu.read(pmc(1))), "PMC2 counted into bit 31");
        assertTrue(before < 0x8000_0000L);
    }

    @Test
    void oneLongAdvanceEqualsTheSameSpanCutAtEveryPrediction() {
        long mmcr0 = PMXE | PMCJCE | FCECE;
        Ppc970Pmu whole = fixture.allCounting(mmcr0);
        Ppc970Pmu sliced = fixture.allCounting(mmcr0);
        for (Ppc970Pmu p : new Ppc970Pmu[] {whole, sliced}) {
            p.write(pmc(1), 0x7FFF_0000L);
            p.write(pmc(4), 0x7FFF_8000L);
        }
        SignalRates r = rates(Signal.CYCLES, 750);
        whole.advance(1_000_000, r, PR);
        long left = 1_000_000;
        while (left > 0) {
            long step = Math.min(left, sliced.cyclesUntilOverflow(r, PR));
            sliced.advance(step, r, PR);
            left -= step;
        }
        for (int i = 0; i < 8; i++) {
            assertEquals(sliced.read(pmc(i)), whole.read(pmc(i)), "PMC" + (i + 1));
        }
        assertEquals(sliced.read(MMCR0), whole.read(MMCR0));
        assertEquals(0x8000_0000L, whole.read(pmc(4)), "PMC5 turned negative first and FCECE froze all at that event");
    }

    @Test
    void nothingCountingMeansNoOverflowEver() {
        Ppc970Pmu pmu = fixture.allCounting(0);
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(SignalRates.HALTED, PR));
        assertEquals(Long.MAX_VALUE, fixture.pmu().cyclesUntilOverflow(rates(Signal.CYCLES, 1000), PR),
                "power-on selectors count nothing that runs at cycle rate");
    }

    @Test
    void aPmcAlreadyNegativeOverflowsOnlyAfterWrappingAndClimbingBack() {
        Ppc970Pmu pmu = fixture.pmu();
        pmu.write(Ppc970Registers.MMCR1, Ppc970Fixture.mmcr1Selectors(NOTHING, NOTHING, NOTHING, NOTHING, NOTHING,
                NOTHING));
        pmu.write(MMCR0, Ppc970Fixture.mmcr0Selectors(Ppc970Fixture.CYC, NOTHING));
        pmu.write(pmc(0), 0xFFFF_FFF0L);
        assertEquals(0x10L + 0x8000_0000L, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), PR));
    }

    @Test
    void manyEventsPerCycleCanCarryAPmcPastTheBoundaryInOneCycle() {
        Ppc970Pmu pmu = fixture.allCounting(PMXE | PMCJCE);
        pmu.write(pmc(1), 0x7FFF_FFFEL);
        SignalRates r = rates(Signal.CYCLES, 5000);
        assertEquals(1, pmu.cyclesUntilOverflow(r, PR));
        pmu.advance(1, r, PR);
        assertEquals(0x8000_0003L, pmu.read(pmc(1)));
        assertTrue(pmu.interruptPending());
    }

    @Test
    void badArgumentsAreRefused() {
        Ppc970Pmu pmu = fixture.pmu();
        IllegalArgumentException cpl = assertThrows(IllegalArgumentException.class,
                () -> pmu.advance(1, SignalRates.HALTED, 4));
        assertTrue(cpl.getMessage().contains("3 (problem state)"), cpl.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pmu.cyclesUntilOverflow(SignalRates.HALTED, -1));
        assertThrows(IllegalArgumentException.class, () -> pmu.advance(-1, SignalRates.HALTED, 0));
    }
}
