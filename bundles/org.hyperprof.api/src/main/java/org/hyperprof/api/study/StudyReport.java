package org.hyperprof.api.study;

import java.util.List;

/**
 * One study, as its table and chart show it: each variant's host-wide figures and each guest's profile error
 * against both truths, each figure a mean over the seeds with its 95 % interval.
 *
 * @param scenario the scenario studied
 * @param seed     its first seed, or null when the host does not report it
 * @param seeds    how many seeds ran (the figures are over these)
 * @param ms       simulated milliseconds per run
 * @param chartSvg the chart {@code hp:study} writes (a self-contained SVG, no script)
 * @param variants one per policy variant, in the order run
 */
public record StudyReport(String scenario, Long seed, int seeds, long ms, String chartSvg, List<Variant> variants) {
    public StudyReport {
        variants = List.copyOf(variants);
    }

    /**
     * A mean over the seeds' values with the half-width of its Student-t 95 % interval.
     *
     * @param halfWidth NaN with fewer than two values
     * @param n         the values it is over; 0 when none could be computed (then the mean is NaN)
     */
    public record Figure(double mean, double halfWidth, int n) {
    }

    /**
     * One policy variant.
     *
     * @param label             the table's name for it ({@code saverestore/frozen})
     * @param ran               seeds it ran on to the end
     * @param failures          why other runs failed, one line each
     * @param hypervisorPercent the hypervisor's share of the host's time, %
     * @param policyPercent     the share the policy's own work caused, %
     * @param accessesPerSwitch PMU register accesses per vCPU switch
     * @param lost              samples lost
     * @param guests            each guest's profile under it
     */
    public record Variant(String label, int ran, List<String> failures, Figure hypervisorPercent,
            Figure policyPercent, Figure accessesPerSwitch, Figure lost, List<Guest> guests) {
        public Variant {
            failures = List.copyOf(failures);
            guests = List.copyOf(guests);
        }
    }

    /**
     * One guest's profile under a variant, its errors in percentage points.
     *
     * @param sources    whose samples made it ({@code own}, {@code xenoprof}, {@code none}; several joined by /)
     * @param errorA     total error against truth A (the guest's own work)
     * @param maxA       the largest error of one symbol against truth A
     * @param errorB     total error against truth B (with the hypervisor's work on its behalf)
     * @param maxB       the largest of one symbol against truth B
     * @param differsA   whether error A differs from systemwide's (paired over seeds, Holm-corrected)
     * @param differsB   the same for error B
     */
    public record Guest(String name, String sources, Figure samples, Figure errorA, Figure maxA, Figure errorB,
            Figure maxB, boolean differsA, boolean differsB) {
    }
}
