package org.hyperprof.store.duckdb;

import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.SessionDiff;

/**
 * One row of a differential profile in figures, as {@code perf diff} prints them: its share of each
 * session's samples, the delta in points and the ratio; the same per second of profiled time, where
 * a uniform slowdown shows (it leaves the shares as they were); and whether the delta is beyond
 * chance: |Δ| > 3·√(se_A² + se_B²), with se = √(p(1−p)/n) the binomial standard error of a share p
 * of n samples.
 *
 * @param row    the row's names and counts
 * @param shareA its share of A's samples, from 0 to 1
 * @param shareB its share of B's samples
 * @param rateA  A's events (the samples' weight) per second of profiled time; NaN when A's time is unknown
 * @param rateB  the same for B
 * @param marked whether |shareB − shareA| exceeds three standard errors of the difference
 */
record DiffFigures(DiffRow row, double shareA, double shareB, double rateA, double rateB, boolean marked) {

    /** How many standard errors of the difference make a delta stand out. */
    static final double STANDARD_ERRORS = 3;

    /** The rule of the mark, as printed under the table. */
    static final String RULE = "* where |delta| > 3·√(se_A² + se_B²), se = √(p(1−p)/n): the binomial standard error"
            + " of a share p of a session's n samples";

    static DiffFigures of(DiffRow row, SessionDiff diff) {
        double a = share(row.baselineSamples(), diff.baselineSamples());
        double b = share(row.comparedSamples(), diff.comparedSamples());
        double se = Math.sqrt(variance(a, diff.baselineSamples()) + variance(b, diff.comparedSamples()));
        return new DiffFigures(row, a, b, rate(row.baselineWeight(), diff.baselineNanos()),
                rate(row.comparedWeight(), diff.comparedNanos()), Math.abs(b - a) > STANDARD_ERRORS * se);
    }

    private static double share(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }

    /** se² of a share {@code p} of {@code n} samples. */
    private static double variance(double p, long n) {
        return n == 0 ? 0 : p * (1 - p) / n;
    }

    private static double rate(long events, long nanos) {
        return nanos <= 0 ? Double.NaN : events * 1e9 / nanos;
    }

    /** B's share minus A's, in points (percent). */
    double deltaPoints() {
        return 100 * (shareB - shareA);
    }

    /** B's share over A's; NaN when A has none of it. */
    double ratio() {
        return shareA == 0 ? Double.NaN : shareB / shareA;
    }

    /** B's rate over A's; NaN when A has none or a time is unknown. */
    double rateRatio() {
        return rateA == 0 ? Double.NaN : rateB / rateA;
    }
}
