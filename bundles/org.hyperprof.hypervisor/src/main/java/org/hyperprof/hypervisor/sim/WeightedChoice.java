package org.hyperprof.hypervisor.sim;

/** Picks an index with probability proportional to its integer weight: a cumulative table and a binary search. */
final class WeightedChoice {
    private final long[] cumulative;
    private final long total;

    WeightedChoice(long[] weights) {
        if (weights.length == 0) {
            throw new IllegalArgumentException("a choice needs at least one weight");
        }
        cumulative = new long[weights.length];
        long sum = 0;
        for (int i = 0; i < weights.length; i++) {
            if (weights[i] <= 0) {
                throw new IllegalArgumentException("weight " + i + " is " + weights[i] + "; weights are positive");
            }
            sum = Math.addExact(sum, weights[i]);
            cumulative[i] = sum;
        }
        total = sum;
    }

    int pick(Prng rng) {
        if (cumulative.length == 1) {
            return 0;
        }
        long r = rng.below(total);
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] > r) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    int size() {
        return cumulative.length;
    }
}
