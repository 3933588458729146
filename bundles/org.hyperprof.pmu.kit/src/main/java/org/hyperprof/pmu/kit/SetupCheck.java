package org.hyperprof.pmu.kit;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.PhysicalPmu;

/**
 * The rules every register file holds a {@link PhysicalPmu#setup} to before it changes a register,
 * so that a bad configuration leaves no half-written PMU: an array (null entries for unused
 * counters), each counter present and configured once, each count a sampling period the counter can
 * be preloaded with; then the model's own rules for each configuration.
 */
public final class SetupCheck {
    private SetupCheck() {
    }

    /** A model's own rules for one configuration, after the shared ones. */
    @FunctionalInterface
    public interface Rule {
        /**
         * @param i the configuration's counter, present and configured once
         * @throws IllegalArgumentException naming the CPU, the counter and what to give instead
         */
        void check(int i, CounterConfig config);
    }

    /**
     * Checks {@code configs} for the register file of CPU {@code cpu}.
     *
     * @param counters     the counters a configuration may name, 0 to {@code counters - 1} (at most 32)
     * @param counterRange which counters there are, for the message ({@code the 970 has counters 0..7 (PMC1..PMC8)})
     * @param maxCount     the largest count the counters are preloaded with
     * @param preloadRule  why no larger count works, for the message
     * @param rule         the model's own rules, or null for none
     * @throws IllegalArgumentException for the first configuration that breaks a rule
     */
    public static void check(int cpu, CounterConfig[] configs, int counters, String counterRange, long maxCount,
            String preloadRule, Rule rule) {
        if (configs == null) {
            throw new IllegalArgumentException("CPU " + cpu + ": setup needs an array of counter configurations"
                    + " (null entries for unused counters), got null");
        }
        int seen = 0; // bit i: counter i already configured
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            int i = c.counter();
            if (i < 0 || i >= counters) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i + " does not exist; " + counterRange);
            }
            if ((seen & (1 << i)) != 0) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i
                        + " is configured twice; give each counter at most one configuration");
            }
            seen |= 1 << i;
            if (c.count() <= 0 || c.count() > maxCount) {
                throw new IllegalArgumentException("CPU " + cpu + ": count " + c.count() + " for counter " + i
                        + " is out of range 1.." + maxCount + " (" + preloadRule + ")");
            }
            if (rule != null) {
                rule.check(i, c);
            }
        }
    }
}
