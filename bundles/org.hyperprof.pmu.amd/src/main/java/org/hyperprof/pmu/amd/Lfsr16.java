package org.hyperprof.pmu.amd;

/**
 * A 16-bit maximal-length Fibonacci linear-feedback shift register (polynomial
 * x^16 + x^14 + x^13 + x^11 + 1: the bit shifted in at the top is the XOR of bits 0, 2, 3 and 5).
 * Deterministic, so a simulated run repeats exactly; it never reaches zero from a non-zero seed.
 *
 * <p>Used for the randomisation of IBS periods: Xenoprof's driver randomises the op max count on
 * every (re)arm with such a register seeded with 0xF00D (facts: xenoprof section 6.7; the facts
 * give the seed, the taps are the textbook maximal-length choice), and the simulated hardware uses
 * a second one for IbsRandEn's four random low bits of the fetch counter.
 */
final class Lfsr16 {
    private int value;

    Lfsr16(int seed) {
        if (seed == 0 || (seed & ~0xFFFF) != 0) {
            throw new IllegalArgumentException(String.format("LFSR seed 0x%X must be a non-zero 16-bit value", seed));
        }
        this.value = seed;
    }

    /** Shifts once and returns the new 16-bit state. */
    int next() {
        int bit = (value ^ (value >>> 2) ^ (value >>> 3) ^ (value >>> 5)) & 1;
        value = (value >>> 1) | (bit << 15);
        return value;
    }

    /** The current state, without shifting. */
    int value() {
        return value;
    }
}
