package org.hyperprof.web.session;

/**
 * The figures of a differential row as {@code hp:diff} prints them: shares of each session's samples,
 * the delta in points, and the mark of a delta beyond chance, |Δ| > 3·√(se_A² + se_B²) with
 * se = √(p(1−p)/n), the binomial standard error of a share p of n samples.
 */
public final class DiffShares {
    /** The rule, as the page prints it under the table (hp:diff's words). */
    public static final String RULE = "* where |delta| > 3·√(se_A² + se_B²), se = √(p(1−p)/n): the binomial standard"
            + " error of a share p of a session's n samples";

    private DiffShares() {
    }

    /** A count's share of a total, 0 for an empty total. */
    public static double share(long count, long total) {
        return total <= 0 ? 0 : (double) count / total;
    }

    /** Whether the shares differ by more than three standard errors of their difference. */
    public static boolean beyondChance(double a, long nA, double b, long nB) {
        double varA = nA <= 0 ? 0 : a * (1 - a) / nA;
        double varB = nB <= 0 ? 0 : b * (1 - b) / nB;
        return Math.abs(b - a) > 3 * Math.sqrt(varA + varB);
    }
}
