package org.hyperprof.hypervisor.sim;

/**
 * A bound prepared once so that {@code x % bound} of a non-negative long costs two multiplications
 * instead of a 64-bit division (tens of cycles, and the simulation draws several per slice). The
 * result is exactly {@code x % bound}: the reciprocal {@code floor(2^63 / bound)} underestimates the
 * quotient by at most one, and one comparison corrects it. Hot tables keep the bound and its
 * {@link #reciprocal(long)} side by side in primitive arrays and call {@link #remainder(long, long, long)}.
 */
final class Divisor {
    final long bound;
    private final long reciprocal;

    Divisor(long bound) {
        this.reciprocal = reciprocal(bound);
        this.bound = bound;
    }

    /**
     * floor(2^63 / bound) for bounds 1 to 2^62; for a bound of 1, 2^63 - 1 (2^63 does not fit), which
     * still underestimates the quotient by at most one.
     */
    static long reciprocal(long bound) {
        if (bound <= 0 || bound > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("a bound of " + bound + " is outside 1 to 2^62");
        }
        return bound == 1 ? Long.MAX_VALUE : Long.divideUnsigned(Long.MIN_VALUE, bound);
    }

    /** {@code x % bound} for {@code 0 <= x}. */
    long remainder(long x) {
        return remainder(x, bound, reciprocal);
    }

    /** {@code x % bound} for {@code 0 <= x}, given {@code reciprocal(bound)}. */
    static long remainder(long x, long bound, long reciprocal) {
        // x * reciprocal / 2^63 from the 128-bit product: the quotient or one less.
        long quotient = (Math.multiplyHigh(x, reciprocal) << 1) | ((x * reciprocal) >>> 63);
        long r = x - quotient * bound;
        return r >= bound ? r - bound : r;
    }
}
