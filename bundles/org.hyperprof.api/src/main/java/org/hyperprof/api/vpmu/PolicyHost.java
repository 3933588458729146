package org.hyperprof.api.vpmu;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What a policy may touch on the host it virtualizes counters for. Implemented by the hypervisor.
 *
 * <h2>Costs</h2>
 * Every register access, interrupt injection and cross-CPU call a policy makes costs hypervisor
 * cycles. The scenario gives each kind a price ({@code cost.vpmu <name> <cycles>}, with the source
 * of the number beside it); the policy reads it with {@link #cost(String)} and charges what it did
 * with {@link #chargeHypervisor}, so its overhead shows in profiles and ground truth.
 */
@ProviderType
public interface PolicyHost {
    /** Reading one PMU register in the hypervisor (RDMSR, RDPMC, mfspr). */
    String COST_PMU_READ = "pmu.read";
    /** Writing one PMU register in the hypervisor (WRMSR, mtspr). */
    String COST_PMU_WRITE = "pmu.write";
    /** Injecting one virtual PMU interrupt (vLAPIC LVTPC delivery for HVM, VIRQ for PV). */
    String COST_INJECT = "inject";
    /** An inter-processor call that makes another physical CPU save the context loaded there. */
    String COST_IPI = "ipi";

    PmuModel model();

    int pcpuCount();

    /** The register file of a physical CPU: what a save/restore policy reads and writes. */
    PhysicalPmu pmu(int pcpu);

    /**
     * A register file of the host's model, with the host's PMU options, attached to no physical
     * CPU: a vCPU's saved context, or a scratch copy. Counts nothing until written into a real one.
     */
    PhysicalPmu newPmuContext();

    /**
     * Charges hypervisor work the policy causes (register accesses, traps, injections) to the
     * vCPU current on {@code pcpu}, as a hypervisor segment of {@code cycles} in the function
     * {@code symbol} of the hypervisor image, so overhead appears in profiles and totals.
     *
     * @throws IllegalArgumentException when the hypervisor image has no such function
     */
    void chargeHypervisor(int pcpu, long cycles, String symbol);

    /**
     * The scenario's price in cycles of one {@code name} ({@link #COST_PMU_READ} ...).
     *
     * @throws IllegalArgumentException when the scenario sets no such cost (the message says which
     *                                  line to add)
     */
    long cost(String name);

    /**
     * A host option addressed to the policy ({@code vpmu.<key>} among the host options), or
     * {@code otherwise} when not set.
     */
    String option(String key, String otherwise);

    /**
     * Raises a virtual PMU interrupt in a guest vCPU. The vCPU takes it the next time it runs
     * guest code; one is pending at most (a second before it is taken is coalesced). The guest's
     * handler sees the program counter the guest could see at the moment of the injection: the
     * interrupted guest instruction, or for an overflow in hypervisor work, the guest instruction
     * that caused the entry into the hypervisor.
     */
    void injectVirtualInterrupt(int domid, int vcpu);

    /** Whether Xenoprof is sampling now. */
    boolean xenoprofProfiling();

    /**
     * Whether Xenoprof holds the PMU (from the first {@code get_buffer} until the last
     * {@code disable_virq}): a policy that offers guests a PMU but cannot share it must then refuse
     * them, as Xen's vPMU does when Xenoprof owns the counters.
     */
    boolean xenoprofOwnsPmu();
}
