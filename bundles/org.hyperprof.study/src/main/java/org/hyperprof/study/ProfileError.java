package org.hyperprof.study;

import java.util.Map;
import java.util.TreeSet;

/**
 * How far a profile's shares are from the truth's: the total-variation distance in percentage
 * points, {@code 50 * sum over symbols |sampled share - true share|} (0: identical distributions,
 * 100: disjoint), and the symbol with the largest single error.
 *
 * @param totalPoints     the total-variation distance, 0 to 100 percentage points
 * @param maxSymbolPoints the largest {@code |sampled share - true share|} of one symbol, in points
 * @param maxSymbol       that symbol ({@code image:symbol}); the first in name order on a tie
 */
record ProfileError(double totalPoints, double maxSymbolPoints, String maxSymbol) {

    /**
     * The error of {@code sampled} (samples per symbol) against {@code truth} (true amounts per
     * symbol, any unit). Symbols are compared by their key: a profile that shows a symbol under
     * another name (a coarse {@code domain3-kernel}) is wrong by that symbol's whole share.
     *
     * @return the error, or null when either side is empty (no profile, or no truth to compare with)
     */
    static ProfileError of(Map<SymbolKey, Long> sampled, Map<SymbolKey, Long> truth) {
        long sampledTotal = total(sampled);
        long trueTotal = total(truth);
        if (sampledTotal <= 0 || trueTotal <= 0) {
            return null;
        }
        TreeSet<SymbolKey> keys = new TreeSet<>(sampled.keySet());
        keys.addAll(truth.keySet());
        double sum = 0;
        double max = -1;
        SymbolKey worst = null;
        for (SymbolKey k : keys) {
            double p = sampled.getOrDefault(k, 0L) / (double) sampledTotal;
            double q = truth.getOrDefault(k, 0L) / (double) trueTotal;
            double d = Math.abs(p - q);
            sum += d;
            if (d > max) {
                max = d;
                worst = k;
            }
        }
        return new ProfileError(50 * sum, 100 * max, worst.toString());
    }

    private static long total(Map<SymbolKey, Long> m) {
        long t = 0;
        for (long v : m.values()) {
            t += v;
        }
        return t;
    }
}
