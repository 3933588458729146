package org.hyperprof.hypervisor.sim;

/**
 * Picks an index with probability proportional to its integer weight: a uniform draw below the
 * total, and the index is the first whose cumulative sum exceeds it. A guide table finds it in
 * about one step: the draw's high bits name a bucket, the bucket holds the first index that can
 * answer for any draw in it, and the search goes on from there (Chen and Asau's indexed search).
 * The index is the one a search of the whole table finds, so the runs are those of the seed.
 */
final class WeightedChoice {
    private final long[] cumulative;
    private final long total;
    private final long reciprocal;
    /** Draws are bucketed by {@code r >>> shift}. */
    private final int shift;
    /** Per bucket: the first index whose cumulative sum exceeds the bucket's lowest draw. */
    private final int[] guide;

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
        reciprocal = Divisor.reciprocal(sum);
        // About eight buckets per index: a draw seldom needs more than the bucket's first index.
        int bits = 64 - Long.numberOfLeadingZeros(sum - 1); // draws are below 2^bits
        int bucketBits = Math.min(bits, 3 + 32 - Integer.numberOfLeadingZeros(weights.length));
        shift = bits - bucketBits;
        guide = new int[(int) ((sum - 1) >>> shift) + 1];
        int i = 0;
        for (int b = 0; b < guide.length; b++) {
            long lowest = (long) b << shift;
            while (cumulative[i] <= lowest) {
                i++;
            }
            guide[b] = i;
        }
    }

    int pick(Prng rng) {
        long[] c = cumulative;
        if (c.length == 1) {
            return 0;
        }
        long r = rng.below(total, reciprocal);
        int i = guide[(int) (r >>> shift)];
        while (c[i] <= r) {
            i++;
        }
        return i;
    }

    int size() {
        return cumulative.length;
    }
}
