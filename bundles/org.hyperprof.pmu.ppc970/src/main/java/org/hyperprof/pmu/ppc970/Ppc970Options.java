package org.hyperprof.pmu.ppc970;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The options of {@link Ppc970PmuModel#createPmu}: the points on which the sources disagree or
 * the facts leave open (pmu-facts section 8), so that a host can choose.
 *
 * @param mmcraRead     how software reads MMCRA's sampled HV/PR bits ({@code mmcra.hvpr}); what
 *                      {@link Ppc970Pmu#sampledCpl()} reports
 * @param mmcraHardware which bits the simulated part actually sets ({@code mmcra.hvpr.hardware});
 *                      when it differs from {@code mmcraRead}, hypervisor and problem-state samples
 *                      are read as each other, as software built on the wrong source would
 * @param fcsStates     what MMCR0[FCS] freezes ({@code fcs.states})
 * @param pmxeClear     when the hardware clears MMCR0[PMXE] ({@code pmxe.clear})
 * @param msrPmm        MSR[PMM] of the profiled code ({@code msr.pmm}): the "marked context" bit
 *                      that FCM0/FCM1 test
 */
record Ppc970Options(MmcraSampledBits mmcraRead, MmcraSampledBits mmcraHardware, FcsStates fcsStates,
        PmxeClear pmxeClear, boolean msrPmm) {

    static final String MMCRA_HVPR = "mmcra.hvpr";
    static final String MMCRA_HVPR_HARDWARE = "mmcra.hvpr.hardware";
    static final String FCS_STATES = "fcs.states";
    static final String PMXE_CLEAR = "pmxe.clear";
    static final String MSR_PMM = "msr.pmm";

    static final String ALLOWED = MMCRA_HVPR + " (linux or xnu), " + MMCRA_HVPR_HARDWARE + " (linux or xnu), "
            + FCS_STATES + " (privileged or supervisor), " + PMXE_CLEAR + " (alert or interrupt), " + MSR_PMM
            + " (0 or 1)";

    /**
     * The defaults follow the facts' best reading: Xen-PPC and Linux agree on bit 35 = HV and
     * 36 = PR (and Xen-PPC was written for 970 blades); the 970-era definition of FCS is
     * MSR[PR]=0; the hardware clears PMXE when it raises the alert; profiled code runs with PMM=0.
     */
    static final Ppc970Options DEFAULTS = new Ppc970Options(MmcraSampledBits.LINUX, MmcraSampledBits.LINUX,
            FcsStates.PRIVILEGED, PmxeClear.ALERT, false);

    /** What MMCR0[FCS] ("freeze in supervisor state") covers. */
    enum FcsStates {
        /** MSR[PR]=0: supervisor and hypervisor code (the 970 user manual's wording). */
        PRIVILEGED,
        /** MSR[HV,PR]=00: supervisor code only (Power ISA 2.06 narrowing); FCH alone freezes the hypervisor. */
        SUPERVISOR;

        /** The value of {@code fcs.states} that chooses it: its name in lower case. */
        String optionValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** When the hardware clears MMCR0[PMXE] (pmu-facts 8 leaves the 970's timing open). */
    enum PmxeClear {
        /**
         * At the alert: PMAO is set and PMXE cleared together, so later conditions raise no second
         * alert and SIAR keeps the first sample until software re-enables PMXE.
         */
        ALERT,
        /**
         * When the CPU takes the interrupt (the Xen-PPC discussion's wording): until then PMXE
         * stays set, and each further condition latches SIAR and MMCRA's sampled bits again.
         */
        INTERRUPT;

        /** The value of {@code pmxe.clear} that chooses it: its name in lower case. */
        String optionValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Parses a host's options; unknown keys and values are errors naming what is allowed. */
    static Ppc970Options parse(Map<String, String> options) {
        if (options == null || options.isEmpty()) {
            return DEFAULTS;
        }
        MmcraSampledBits read = DEFAULTS.mmcraRead;
        MmcraSampledBits hardware = DEFAULTS.mmcraHardware;
        FcsStates fcs = DEFAULTS.fcsStates;
        PmxeClear pmxe = DEFAULTS.pmxeClear;
        boolean pmm = DEFAULTS.msrPmm;
        for (Map.Entry<String, String> option : options.entrySet()) {
            String key = option.getKey();
            String value = option.getValue() == null ? "" : option.getValue().trim();
            if (key == null) {
                throw new IllegalArgumentException("a PowerPC 970 option has no name; allowed options: " + ALLOWED);
            }
            switch (key) {
                case MMCRA_HVPR -> read = MmcraSampledBits.ofOption(key, value);
                case MMCRA_HVPR_HARDWARE -> hardware = MmcraSampledBits.ofOption(key, value);
                case FCS_STATES -> fcs = fcsStates(value);
                case PMXE_CLEAR -> pmxe = pmxeClear(value);
                case MSR_PMM -> pmm = msrPmm(value);
                default -> throw new IllegalArgumentException("unknown PowerPC 970 PMU option '" + key
                        + "'; allowed options: " + ALLOWED);
            }
        }
        return new Ppc970Options(read, hardware, fcs, pmxe, pmm);
    }

    private static FcsStates fcsStates(String value) {
        return choose(FCS_STATES, value, List.of(FcsStates.values()), FcsStates::optionValue, "known",
                "privileged (FCS freezes MSR[PR]=0: supervisor and hypervisor), supervisor (FCS freezes MSR[HV,PR]=00"
                        + " only, as Power ISA 2.06 defines it)");
    }

    private static PmxeClear pmxeClear(String value) {
        return choose(PMXE_CLEAR, value, List.of(PmxeClear.values()), PmxeClear::optionValue, "known",
                "alert (PMXE clears when the alert is raised), interrupt (PMXE clears when the CPU takes the"
                        + " perfmon interrupt)");
    }

    /**
     * The choice of option {@code key} whose value is {@code value}.
     *
     * @param what    what a known value is, for the message ("known", "a known MMCRA bit assignment")
     * @param allowed the allowed values with what each means, for the message
     * @throws IllegalArgumentException naming the option, the value and the allowed values
     */
    static <T> T choose(String key, String value, List<T> choices, Function<T, String> optionValue, String what,
            String allowed) {
        for (T choice : choices) {
            if (optionValue.apply(choice).equals(value)) {
                return choice;
            }
        }
        throw new IllegalArgumentException("PowerPC 970 option " + key + "=" + value + " is not " + what
                + "; allowed values: " + allowed);
    }

    private static boolean msrPmm(String value) {
        return switch (value) {
            case "0" -> false;
            case "1" -> true;
            default -> throw new IllegalArgumentException("PowerPC 970 option " + MSR_PMM + "=" + value
                    + " is not a bit; allowed values: 0 (profiled code unmarked), 1 (profiled code marked)");
        };
    }
}
