package org.hyperprof.study;

import java.util.Arrays;

/**
 * The statistics a study over several seeds needs, written from the math so the bundle needs no
 * library: Student's t distribution through the regularized incomplete beta function (continued
 * fraction, as in Numerical Recipes' betacf), its quantiles by bisection, Holm's step-down
 * correction, and the normal approximation of how many paired seeds settle a difference.
 */
final class Stats {
    /** The normal quantiles of 97.5 % (two-sided 95 %) and 80 % (power). */
    static final double Z_975 = 1.959963984540054;
    static final double Z_80 = 0.8416212335729143;

    private Stats() {
    }

    static double mean(double[] x) {
        double s = 0;
        for (double v : x) {
            s += v;
        }
        return s / x.length;
    }

    /** The sample standard deviation (n - 1); 0 for fewer than two values. */
    static double sd(double[] x) {
        if (x.length < 2) {
            return 0;
        }
        double m = mean(x);
        double s = 0;
        for (double v : x) {
            s += (v - m) * (v - m);
        }
        return Math.sqrt(s / (x.length - 1));
    }

    /** The half-width of the Student-t 95 % confidence interval of the mean; NaN for fewer than two values. */
    static double halfWidth95(double[] x) {
        if (x.length < 2) {
            return Double.NaN;
        }
        return tQuantile(0.975, x.length - 1) * sd(x) / Math.sqrt(x.length);
    }

    /**
     * The two-sided p-value of a one-sample t test of mean 0: the chance under the null of a |t|
     * at least this large. 1 when the values do not vary and their mean is 0; 0 when they do not
     * vary and it is not.
     */
    static double pairedP(double[] differences) {
        if (differences.length < 2) {
            return 1;
        }
        double m = mean(differences);
        double s = sd(differences);
        if (s == 0) {
            return m == 0 ? 1 : 0;
        }
        return twoSidedP(m / (s / Math.sqrt(differences.length)), differences.length - 1);
    }

    /** P(|T| >= |t|) for Student's t with {@code df} degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2). */
    static double twoSidedP(double t, double df) {
        return regularizedBeta(df / (df + t * t), df / 2, 0.5);
    }

    /** The quantile of Student's t: the t with P(T <= t) = p, by bisection on the distribution (0.5 < p < 1). */
    static double tQuantile(double p, double df) {
        double tail = 2 * (1 - p);
        double lo = 0;
        double hi = 1;
        while (twoSidedP(hi, df) > tail) {
            hi *= 2;
        }
        for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
            double mid = (lo + hi) / 2;
            if (twoSidedP(mid, df) > tail) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    /** The regularized incomplete beta function I_x(a, b). */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) {
            return 0;
        }
        if (x >= 1) {
            return 1;
        }
        double front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
        // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
        if (x < (a + 1) / (a + b + 2)) {
            return front * betaFraction(x, a, b) / a;
        }
        return 1 - front * betaFraction(1 - x, b, a) / b;
    }

    /** The continued fraction of the incomplete beta function, by the modified Lentz method. */
    private static double betaFraction(double x, double a, double b) {
        final double tiny = 1e-300;
        double c = 1;
        double d = 1 - (a + b) * x / (a + 1);
        d = Math.abs(d) < tiny ? tiny : d;
        d = 1 / d;
        double h = d;
        for (int m = 1; m <= 500; m++) {
            int m2 = 2 * m;
            double even = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
            d = 1 + even * d;
            d = Math.abs(d) < tiny ? tiny : d;
            c = 1 + even / c;
            c = Math.abs(c) < tiny ? tiny : c;
            d = 1 / d;
            h *= d * c;
            double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
            d = 1 + odd * d;
            d = Math.abs(d) < tiny ? tiny : d;
            c = 1 + odd / c;
            c = Math.abs(c) < tiny ? tiny : c;
            d = 1 / d;
            double step = d * c;
            h *= step;
            if (Math.abs(step - 1) < 1e-15) {
                break;
            }
        }
        return h;
    }

    /** ln Γ(x) for x > 0, by the Lanczos approximation (g = 7, nine coefficients). */
    static double logGamma(double x) {
        if (x < 0.5) {
            // Reflection: Γ(x) Γ(1 - x) = π / sin(πx).
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double[] g = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7};
        double y = x - 1;
        double sum = g[0];
        for (int i = 1; i < g.length; i++) {
            sum += g[i] / (y + i);
        }
        double t = y + 7.5;
        return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(sum);
    }

    /**
     * Holm's step-down adjustment: the p-values, each multiplied by the number of hypotheses not yet
     * rejected before it in ascending order, kept monotone and at most 1; compare them with 0.05.
     */
    static double[] holm(double[] p) {
        int n = p.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (i, j) -> Double.compare(p[i], p[j]));
        double[] adjusted = new double[n];
        double running = 0;
        for (int k = 0; k < n; k++) {
            running = Math.max(running, Math.min(1, (n - k) * p[order[k]]));
            adjusted[order[k]] = running;
        }
        return adjusted;
    }

    /**
     * How many paired seeds a two-sided 5 % test needs to detect this standardized difference
     * (|mean| / sd of the differences) with 80 % power, by the normal approximation; 0 when the
     * difference is 0 (no number of seeds settles it).
     */
    static long seedsToSettle(double standardizedDifference) {
        double d = Math.abs(standardizedDifference);
        if (d == 0 || Double.isNaN(d)) {
            return 0;
        }
        double n = Math.pow((Z_975 + Z_80) / d, 2);
        return (long) Math.ceil(Math.min(n, 1e12));
    }
}
