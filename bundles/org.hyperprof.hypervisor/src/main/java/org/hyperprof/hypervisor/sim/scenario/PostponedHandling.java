package org.hyperprof.hypervisor.sim.scenario;

import java.util.Locale;

/**
 * What the hypervisor does with a PMU interrupt that was postponed: asserted while the running code
 * had external interrupts disabled (PowerPC MSR[EE]=0), and taken only later, when EE became 1. The
 * three ways the Xen-PPC profiling discussion weighs (seed 004), chosen by the host option
 * {@value #OPTION}. Only models whose interrupt is gated by EE
 * ({@code PhysicalPmu.gatedByExternalInterruptEnable()}) ever postpone one.
 */
public enum PostponedHandling {
    /**
     * Xen-PPC as it was: the handler re-arms the counters and re-enables the alert, but drops the
     * sample, since it cannot tell whose it is.
     */
    IGNORE("ignore"),
    /**
     * Pass the sample to the domain it belongs to: the vCPU that was running when the alert latched,
     * in the mode the PMU's latched privilege bits (MMCRA's sampled HV/PR, read with the model's bit
     * assignment) give, at the address the PMU latched (SIAR).
     */
    OWNER("owner"),
    /**
     * Poll the alert (MMCR0[PMAO]) at chosen points in the hypervisor (the scenario's
     * {@code poll.points}) and run the handler there; a postponed interrupt no poll caught is
     * dropped when it is finally taken, as with {@link #IGNORE}.
     */
    POLL("poll");

    /** The host option that chooses the handling. */
    public static final String OPTION = "ppc.postponed";

    private final String optionValue;

    PostponedHandling(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The value as the host option spells it. */
    public String optionValue() {
        return optionValue;
    }

    /**
     * The handling a host option value names.
     *
     * @throws IllegalArgumentException naming the allowed values
     */
    public static PostponedHandling ofOption(String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        for (PostponedHandling h : values()) {
            if (h.optionValue.equals(v)) {
                return h;
            }
        }
        throw new IllegalArgumentException(OPTION + "=" + value + " is not a way to handle postponed PMU interrupts;"
                + " allowed: ignore (drop their samples, as Xen-PPC did), owner (give each to the domain that ran when"
                + " the alert latched), poll (poll the alert at the scenario's poll.points)");
    }
}
