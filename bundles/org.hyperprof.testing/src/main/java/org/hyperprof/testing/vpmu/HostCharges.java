package org.hyperprof.testing.vpmu;

import java.util.List;

import org.hyperprof.api.vpmu.PolicyHost;

/**
 * What the test hosts ({@link FakeHost}, {@code truth.CountingHost}) share of {@link PolicyHost}:
 * the hypervisor functions a policy may charge its work to, and the four prices it may ask for.
 */
public final class HostCharges {
    /** The hypervisor image's functions a policy charges, in the order of their indexes. */
    public static final List<String> FUNCTIONS = List.of("vpmu_save", "vpmu_load", "vpmu_do_rdmsr", "vpmu_do_wrmsr",
            "vpmu_do_interrupt", "smp_call_function_interrupt");

    private HostCharges() {
    }

    /**
     * The index of {@code symbol} in {@link #FUNCTIONS}.
     *
     * @throws IllegalArgumentException for a function the hypervisor image does not have
     */
    public static int function(String symbol) {
        int index = FUNCTIONS.indexOf(symbol);
        if (index < 0) {
            throw new IllegalArgumentException("the hypervisor image has no function " + symbol);
        }
        return index;
    }

    /**
     * The price {@code name} asks for ({@link PolicyHost#COST_PMU_READ} and the three others), of the four given.
     *
     * @throws IllegalArgumentException for a name the host has no price for
     */
    public static long cost(String name, long pmuRead, long pmuWrite, long inject, long ipi) {
        return switch (name) {
            case PolicyHost.COST_PMU_READ -> pmuRead;
            case PolicyHost.COST_PMU_WRITE -> pmuWrite;
            case PolicyHost.COST_INJECT -> inject;
            case PolicyHost.COST_IPI -> ipi;
            default -> throw new IllegalArgumentException("no cost " + name + "; add 'cost.vpmu " + name + " <cycles>'");
        };
    }
}
