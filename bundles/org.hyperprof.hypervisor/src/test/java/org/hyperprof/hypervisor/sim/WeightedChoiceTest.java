package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The guided pick gives the index a search of the whole cumulative table gives, draw for draw. */
class WeightedChoiceTest {

    @Property(tries = 300)
    void thePickIsTheFirstSumAboveTheDraw(@ForAll @Size(min = 1, max = 40) long[] raw, @ForAll long seed) {
        long[] weights = new long[raw.length];
        for (int i = 0; i < raw.length; i++) {
            weights[i] = 1 + Math.floorMod(raw[i], 50_000_000L);
        }
        assertPicksAsTheFullSearch(weights, seed, 2_000);
    }

    @Property(tries = 100)
    void smallAndLopsidedWeights(@ForAll @Size(min = 1, max = 30) long[] raw, @ForAll @LongRange(min = 1, max = 5) long big,
            @ForAll long seed) {
        long[] weights = new long[raw.length];
        for (int i = 0; i < raw.length; i++) {
            weights[i] = i == 0 ? big * 1_000_000_000L : 1 + Math.floorMod(raw[i], 3);
        }
        assertPicksAsTheFullSearch(weights, seed, 2_000);
    }

    @Test
    void aScenarioLikeTable() {
        long[] weights = { 11_890_000, 10_030_000, 7_220_000, 2_200_000, 3_310_000, 4_750_000, 170_000, 80_000, 1 };
        assertPicksAsTheFullSearch(weights, 20060117, 100_000);
    }

    private static void assertPicksAsTheFullSearch(long[] weights, long seed, int draws) {
        WeightedChoice choice = new WeightedChoice(weights);
        long[] cumulative = new long[weights.length];
        long sum = 0;
        for (int i = 0; i < weights.length; i++) {
            sum += weights[i];
            cumulative[i] = sum;
        }
        Prng a = new Prng(seed);
        Prng b = new Prng(seed);
        for (int n = 0; n < draws; n++) {
            long r = b.below(sum);
            int expected = 0;
            while (cumulative[expected] <= r) {
                expected++;
            }
            assertEquals(expected, choice.pick(a), "draw " + n); // a one-way choice draws nothing: 0 all the same
        }
    }
}
