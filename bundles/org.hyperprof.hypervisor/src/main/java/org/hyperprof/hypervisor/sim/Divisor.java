package org.hyperprof.hypervisor.sim;

/**
 * A bound prepared once so that {@code x % bound} of a non-negative long costs two multiplications
 * instead of a 64-bit division (tens of cycles, and the simulation draws several per slice). The
 * result is exactly {@code x % bound}: the reciprocal {@code floor(2^63 / bound)} underestimates the
 * quotient by at most one, and one comparison corrects it.
 */
final class Divisor {
    final long bound;
    /** floor(2^63 / bound); 0 for a bound of 1, whose remainders are all 0. */
    private final long reciprocal;

    Divisor(long bound) {
        if (bound <= 0 || bound > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("a bound of " + bound + " is outside 1 to 2^62");
        }
        this.bound = bound;
        this.reciprocal = bound == 1 ? 0 : Long.divideUnsigned(Long.MIN_VALUE, bound);
    }

    /** {@code x % bound} for {@code 0 <= x}. */
    long remainder(long x) {
        if (reciprocal == 0) {
            return 0;
        }
        // x * reciprocal / 2^63 from the 128-bit product: the quotient or one less.
        long quotient = (Math.multiplyHigh(x, reciprocal) << 1) | ((x * reciprocal) >>> 63);
        long r = x - quotient * bound;
        return r >= bound ? r - bound : r;
    }
}
