package org.hyperprof.pmu.ppc970;

/**
 * Which of MMCRA's IBM bits 35 and 36 holds the sampled MSR[HV] and which the sampled MSR[PR].
 * The sources disagree (pmu-facts 6.4): Xen-PPC (written for 970 blades) and Linux say 35 = HV,
 * 36 = PR; Apple's XNU header says the opposite.
 */
enum MmcraSampledBits {
    /** Xen-PPC {@code SAMPHV}/{@code SAMPPR} and Linux {@code MMCRA_SIHV}/{@code MMCRA_SIPR}: 35 = HV, 36 = PR. */
    LINUX("linux", Ppc970Registers.MMCRA_BIT35, Ppc970Registers.MMCRA_BIT36),
    /** Apple XNU's {@code hw_perfmon_mmcr.h}: 35 = problem state, 36 = hypervisor state. */
    XNU("xnu", Ppc970Registers.MMCRA_BIT36, Ppc970Registers.MMCRA_BIT35);

    private final String optionValue;
    private final long hypervisorBit;
    private final long problemStateBit;

    MmcraSampledBits(String optionValue, long hypervisorBit, long problemStateBit) {
        this.optionValue = optionValue;
        this.hypervisorBit = hypervisorBit;
        this.problemStateBit = problemStateBit;
    }

    String optionValue() {
        return optionValue;
    }

    /** The MMCRA bit that holds MSR[HV] at sample time under this assignment. */
    long hypervisorBit() {
        return hypervisorBit;
    }

    /** The MMCRA bit that holds MSR[PR] at sample time under this assignment. */
    long problemStateBit() {
        return problemStateBit;
    }

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
        for (MmcraSampledBits b : values()) {
            if (b.optionValue.equals(value)) {
                return b;
            }
        }
        throw new IllegalArgumentException("PowerPC 970 option " + key + "=" + value
                + " is not a known MMCRA bit assignment; allowed values: linux (bit 35 = HV, bit 36 = PR, as"
                + " Xen-PPC and Linux read them), xnu (bit 35 = PR, bit 36 = HV, as Apple's XNU reads them)");
    }
}
