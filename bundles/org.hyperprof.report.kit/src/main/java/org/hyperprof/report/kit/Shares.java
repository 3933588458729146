package org.hyperprof.report.kit;

/**
 * Shares of samples compared as {@code hp:diff} compares them: a delta stands out (is marked {@code *})
 * when |Δ| > 3·√(se_A² + se_B²), with se = √(p(1−p)/n) the binomial standard error of a share p of n
 * samples. One rule for a diff of two sessions and of two groups of a fleet's hosts.
 */
public final class Shares {
    /** How many standard errors of the difference make a delta stand out. */
    public static final double STANDARD_ERRORS = 3;

    /** The rule of the mark, as printed under a table. */
    public static final String RULE = "* where |delta| > 3·√(se_A² + se_B²), se = √(p(1−p)/n): the binomial standard"
            + " error of a share p of a session's n samples";

    private Shares() {
    }

    /** {@code part} of {@code whole}, from 0 to 1; 0 of nothing. */
    public static double share(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }

    /** Whether share {@code b} of {@code nB} samples differs from share {@code a} of {@code nA} beyond chance. */
    public static boolean beyondChance(double a, long nA, double b, long nB) {
        double se = Math.sqrt(variance(a, nA) + variance(b, nB));
        return Math.abs(b - a) > STANDARD_ERRORS * se;
    }

    /** se² of a share {@code p} of {@code n} samples. */
    private static double variance(double p, long n) {
        return n == 0 ? 0 : p * (1 - p) / n;
    }
}
