package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** A prepared divisor gives exactly the remainder the division gives, so the draws stay as they were. */
class DivisorTest {

    @Property(tries = 2000)
    void theRemainderIsTheDivisionsRemainder(@ForAll @LongRange(min = 0) long x,
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long bound) {
        assertEquals(x % bound, new Divisor(bound).remainder(x));
    }

    @Property(tries = 2000)
    void smallBoundsAsTheSimulationUsesThem(@ForAll @LongRange(min = 0) long x,
            @ForAll @LongRange(min = 1, max = 1 << 20) long bound) {
        assertEquals(x % bound, new Divisor(bound).remainder(x));
    }

    @Test
    void theEdgesOfTheRange() {
        long[] bounds = { 1, 2, 3, 7, 1000, 6001, (1L << 31) - 1, 1L << 32, (1L << 32) + 1, Long.MAX_VALUE / 2 - 1,
                Long.MAX_VALUE / 2 };
        long[] xs = { 0, 1, 2, 999, 1000, 1001, Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE / 2,
                (1L << 62) + 12345 };
        for (long bound : bounds) {
            Divisor d = new Divisor(bound);
            for (long x : xs) {
                assertEquals(x % bound, d.remainder(x), () -> x + " % " + bound);
                long multiple = x - x % bound;
                assertEquals(0, d.remainder(multiple), () -> multiple + " % " + bound);
                if (multiple > 0) {
                    assertEquals(bound - 1, d.remainder(multiple - 1), () -> (multiple - 1) + " % " + bound);
                }
            }
        }
    }

    @Test
    void aBoundOutsideTheRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Divisor(0));
        assertThrows(IllegalArgumentException.class, () -> new Divisor(Long.MAX_VALUE));
    }

    @Test
    void aStreamDrawsTheSameValuesThroughADivisor() {
        Prng a = new Prng(42);
        Prng b = new Prng(42);
        Divisor d = new Divisor(6001);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(a.below(6001), b.below(d));
        }
    }
}
