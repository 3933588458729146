package org.hyperprof.pmu.ppc970;

import java.util.List;

/**
 * Which of MMCRA's IBM bits 35 and 36 holds the sampled MSR[HV] and which the sampled MSR[PR].
 * The sources disagree (pmu-facts 6.4): Xen-PPC (written for 970 blades) and Linux say 35 = HV,
 * 36 = PR; Apple's XNU header says the opposite.
 *
 * @param optionValue     what {@code mmcra.hvpr} and {@code mmcra.hvpr.hardware} call it
 * @param hypervisorBit   the MMCRA bit that holds MSR[HV] at sample time under this assignment
 * @param problemStateBit the MMCRA bit that holds MSR[PR] at sample time under this assignment
 */
record MmcraSampledBits(String optionValue, long hypervisorBit, long problemStateBit) {
    /** Xen-PPC {@code SAMPHV}/{@code SAMPPR} and Linux {@code MMCRA_SIHV}/{@code MMCRA_SIPR}: 35 = HV, 36 = PR. */
    static final MmcraSampledBits LINUX = new MmcraSampledBits("linux", Ppc970Registers.MMCRA_BIT35,
            Ppc970Registers.MMCRA_BIT36);
    /** Apple XNU's {@code hw_perfmon_mmcr.h}: 35 = problem state, 36 = hypervisor state. */
    static final MmcraSampledBits XNU = new MmcraSampledBits("xnu", Ppc970Registers.MMCRA_BIT36,
            Ppc970Registers.MMCRA_BIT35);

    /** The two sampled bits as this assignment writes them for code at {@code cpl}. */
    long encode(int cpl) {
        return cpl == Ppc970Pmu.CPL_HYPERVISOR ? hypervisorBit
                : cpl == Ppc970Pmu.CPL_PROBLEM_STATE ? problemStateBit : 0;
    }

    /**
     * The CPL the sampled bits of {@code mmcra} describe, read with this assignment: PR set is
     * problem state (3) whatever HV says, HV alone is the hypervisor (0), neither is supervisor (1).
     */
    int decode(long mmcra) {
        if ((mmcra & problemStateBit) != 0) {
            return Ppc970Pmu.CPL_PROBLEM_STATE;
        }
        return (mmcra & hypervisorBit) != 0 ? Ppc970Pmu.CPL_HYPERVISOR : Ppc970Pmu.CPL_SUPERVISOR;
    }

    static MmcraSampledBits ofOption(String key, String value) {
        return Ppc970Options.choose(key, value, List.of(LINUX, XNU), MmcraSampledBits::optionValue,
                "a known MMCRA bit assignment", "linux (bit 35 = HV, bit 36 = PR, as Xen-PPC and Linux read them),"
                        + " xnu (bit 35 = PR, bit 36 = HV, as Apple's XNU reads them)");
    }
}
