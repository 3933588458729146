package org.hyperprof.hypervisor.sim;

/**
 * A small seeded pseudo-random generator (SplitMix64) with its state in one long: every choice of
 * the simulation draws from one of these, so a seed fixes the whole run. No allocation.
 */
final class Prng {
    private long state;

    Prng(long seed) {
        this.state = seed;
    }

    /** A generator for stream {@code stream} of a seed, independent of the other streams. */
    static Prng stream(long seed, long stream) {
        return new Prng(mix(seed ^ mix(stream + 0x632BE59BD9B4E019L)));
    }

    /** What each draw adds to the state: the k-th draw after state x is mix(x + k * GAMMA). */
    static final long GAMMA = 0x9E3779B97F4A7C15L;

    long nextLong() {
        state += GAMMA;
        return mix(state);
    }

    /**
     * Where the stream stands: {@link #drawAfter} computes the draws after it later, so a choice
     * nobody reads need not be made (its draws skipped with {@link #skip}).
     */
    long position() {
        return state;
    }

    /** Passes over {@code n} draws, as if they were made and not used. */
    void skip(int n) {
        state += n * GAMMA;
    }

    /** The draw {@link #below(long, long)} made from {@code position}: the stream's next there, uniform in [0, bound). */
    static long drawAfter(long position, long bound, long reciprocal) {
        return Divisor.remainder(mix(position + GAMMA) >>> 1, bound, reciprocal);
    }

    /** Uniform in [0, bound); bound must be positive. */
    long below(long bound) {
        return (nextLong() >>> 1) % bound;
    }

    /** Uniform in [0, bound): the same value as {@code below(bound.bound)}, without a division. */
    long below(Divisor bound) {
        return bound.remainder(nextLong() >>> 1);
    }

    /** Uniform in [0, bound), given {@code Divisor.reciprocal(bound)}: the same value as {@code below(bound)}. */
    long below(long bound, long reciprocal) {
        return Divisor.remainder(nextLong() >>> 1, bound, reciprocal);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
