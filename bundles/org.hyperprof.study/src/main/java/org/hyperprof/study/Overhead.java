package org.hyperprof.study;

import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;

/**
 * The host-wide figures of one run. "All cycles" are the unhalted cycles of every domain, the idle
 * domain's hypervisor work included, from the ground truth; halted cycles (which the ground truth
 * does not hold) are reported beside them and excluded. Figures the host did not report are null
 * and print as {@code n/a}.
 *
 * @param allCycles         unhalted cycles of all physical CPUs
 * @param haltedCycles      halted cycles ({@value StudyKeys#HALTED_CYCLES}), or null
 * @param hypervisorCycles  cycles in hypervisor mode, for any domain
 * @param policyCycles      cycles the counter-virtualization policy caused, or null
 * @param switches          vCPU switches the policy saw, or null
 * @param switchAccesses    physical PMU accesses it made at those switches, or null
 */
record Overhead(long allCycles, Long haltedCycles, long hypervisorCycles, Long policyCycles, Long switches,
        Long switchAccesses) {

    /** From a run's ground truth and host counters. */
    static Overhead of(GroundTruth truth, Map<String, Long> counters) {
        long all = 0;
        long hypervisor = 0;
        for (GroundTruth.Row r : truth.rows()) {
            long c = r.milli(Signal.CYCLES);
            all += c;
            if (r.mode() == CpuMode.HYPERVISOR) {
                hypervisor += c;
            }
        }
        return new Overhead(all / 1000, counters.get(StudyKeys.HALTED_CYCLES), hypervisor / 1000,
                policyCycles(counters), counters.get(StudyKeys.POLICY_SWITCHES),
                counters.get(StudyKeys.POLICY_SWITCH_ACCESSES));
    }

    /**
     * {@value StudyKeys#POLICY_CYCLES} when the host reports it; else the sum of its parts the host
     * reports ({@value StudyKeys#POLICY_CHARGED_CYCLES}, {@value StudyKeys#GUEST_TRAP_CYCLES}) when
     * it reports the charged part; else null.
     */
    static Long policyCycles(Map<String, Long> counters) {
        Long total = counters.get(StudyKeys.POLICY_CYCLES);
        if (total != null) {
            return total;
        }
        Long charged = counters.get(StudyKeys.POLICY_CHARGED_CYCLES);
        if (charged == null) {
            return null;
        }
        Long traps = counters.get(StudyKeys.GUEST_TRAP_CYCLES);
        return charged + (traps == null ? 0 : traps);
    }

    /** Hypervisor cycles as % of all cycles; null when no cycle ran. */
    Double hypervisorPercent() {
        return percent(hypervisorCycles, allCycles);
    }

    /** The policy's cycles as % of all cycles; null when unknown. */
    Double policyPercent() {
        return policyCycles == null ? null : percent(policyCycles, allCycles);
    }

    /** Physical PMU accesses per vCPU switch; null when unknown or without switches. */
    Double accessesPerSwitch() {
        if (switches == null || switchAccesses == null || switches == 0) {
            return null;
        }
        return switchAccesses / (double) switches;
    }

    private static Double percent(long part, long whole) {
        return whole <= 0 ? null : 100.0 * part / whole;
    }
}
