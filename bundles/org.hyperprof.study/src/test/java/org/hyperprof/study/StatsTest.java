package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The statistics against published table values (Student's t tables, Holm's 1979 rule). */
class StatsTest {

    @Test
    void tQuantilesMatchTheTables() {
        // Two-sided 95 % critical values: df 1, 2, 4, 9, 30, and large df tends to 1.960.
        assertEquals(12.706, Stats.tQuantile(0.975, 1), 0.001);
        assertEquals(4.303, Stats.tQuantile(0.975, 2), 0.001);
        assertEquals(2.776, Stats.tQuantile(0.975, 4), 0.001);
        assertEquals(2.262, Stats.tQuantile(0.975, 9), 0.001);
        assertEquals(2.042, Stats.tQuantile(0.975, 30), 0.001);
        assertEquals(1.960, Stats.tQuantile(0.975, 100_000), 0.001);
        // One-sided 99 % at df 5.
        assertEquals(3.365, Stats.tQuantile(0.99, 5), 0.001);
    }

    @Test
    void twoSidedPValuesMatchTheTables() {
        assertEquals(0.05, Stats.twoSidedP(2.262157, 9), 1e-6);
        assertEquals(0.01, Stats.twoSidedP(3.249836, 9), 1e-6);
        assertEquals(0.5, Stats.twoSidedP(1, 1), 1e-12, "Cauchy: P(|T| >= 1) = 1/2");
        assertEquals(1, Stats.twoSidedP(0, 7), 1e-12);
    }

    @Test
    void theIncompleteBetaMatchesClosedForms() {
        // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b.
        assertEquals(0.3, Stats.regularizedBeta(0.3, 1, 1), 1e-12);
        assertEquals(Math.pow(0.4, 3.5), Stats.regularizedBeta(0.4, 3.5, 1), 1e-12);
        assertEquals(1 - Math.pow(0.2, 2.5), Stats.regularizedBeta(0.8, 1, 2.5), 1e-12);
        assertEquals(0.5, Stats.regularizedBeta(0.5, 4, 4), 1e-12, "symmetric");
        assertEquals(Math.log(24), Stats.logGamma(5), 1e-12);
        assertEquals(Math.log(Math.sqrt(Math.PI)), Stats.logGamma(0.5), 1e-12);
    }

    @Test
    void meanSdAndHalfWidthOfKnownValues() {
        double[] x = {2, 4, 4, 4, 5, 5, 7, 9};
        assertEquals(5, Stats.mean(x), 1e-12);
        assertEquals(Math.sqrt(32.0 / 7), Stats.sd(x), 1e-12);
        assertEquals(2.364624 * Math.sqrt(32.0 / 7) / Math.sqrt(8), Stats.halfWidth95(x), 1e-5);
    }

    @Test
    void pairedDifferencesThatDoNotVaryAreCertainOrNothing() {
        assertEquals(0, Stats.pairedP(new double[] {1.5, 1.5, 1.5}));
        assertEquals(1, Stats.pairedP(new double[] {0, 0, 0}));
        assertEquals(1, Stats.pairedP(new double[] {3}), "one seed tests nothing");
    }

    @Test
    void holmMultipliesByTheHypothesesLeftAndStaysMonotone() {
        // Sorted 0.01, 0.02, 0.03, 0.04 -> 0.04, 0.06, 0.06, 0.06 (monotone), in the input's order.
        assertArrayEquals(new double[] {0.06, 0.04, 0.06, 0.06}, Stats.holm(new double[] {0.03, 0.01, 0.04, 0.02}),
                1e-12);
        assertArrayEquals(new double[] {1, 1}, Stats.holm(new double[] {0.6, 0.9}), 1e-12);
    }

    @Test
    void seedsToSettleFollowTheNormalApproximation() {
        // (1.96 + 0.8416)^2 / 0.5^2 = 31.4 -> 32 seeds; a difference of one sd needs 8.
        assertEquals(32, Stats.seedsToSettle(0.5));
        assertEquals(8, Stats.seedsToSettle(1));
        assertEquals(0, Stats.seedsToSettle(0));
    }
}
