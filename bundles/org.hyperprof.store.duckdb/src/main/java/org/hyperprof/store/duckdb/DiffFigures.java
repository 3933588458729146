package org.hyperprof.store.duckdb;

import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.report.kit.Shares;

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

    /** The rule of the mark, as printed under the table. */
    static final String RULE = Shares.RULE;

    static DiffFigures of(DiffRow row, SessionDiff diff) {
        double a = Shares.share(row.baselineSamples(), diff.baselineSamples());
        double b = Shares.share(row.comparedSamples(), diff.comparedSamples());
        return new DiffFigures(row, a, b, rate(row.baselineWeight(), diff.baselineNanos()),
                rate(row.comparedWeight(), diff.comparedNanos()),
                Shares.beyondChance(a, diff.baselineSamples(), b, diff.comparedSamples()));
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
