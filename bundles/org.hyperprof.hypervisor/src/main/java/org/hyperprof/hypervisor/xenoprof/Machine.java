package org.hyperprof.hypervisor.xenoprof;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;

/**
 * What the Xenoprof layer needs from the simulated machine underneath it. Implemented by the
 * simulation engine ({@code org.hyperprof.hypervisor.sim}); the Xenoprof layer never looks at
 * workloads or the scheduler.
 */
public interface Machine {
    /** The CPU model, or null when the host has none (init then fails with -ENODEV). */
    PmuModel model();

    int pcpuCount();

    /** The register file of a physical CPU. */
    PhysicalPmu pmu(int pcpu);

    /** Whether a domain with that id exists (the idle domain does not count). */
    boolean domainExists(int domid);

    /** Number of vCPUs of an existing domain. */
    int vcpuCount(int domid);

    /** Whether the domain is the hardware domain (dom0), the only one that may become primary. */
    boolean hardwareDomain(int domid);

    /** Whether the domain is an HVM (translated) guest: it cannot be active on x86. */
    boolean hvm(int domid);

    /**
     * What holds the PMU for the guests, as a phrase naming the policy and the guests using their
     * virtual counters (Xen's {@code PMU_OWNER_HVM}, which get_buffer then fails with -EBUSY), or
     * null when Xenoprof may acquire it.
     */
    String guestsHoldPmu();

    /**
     * Whether the hypervisor was built with frame pointers: only then does a call trace of a
     * Xen-mode sample walk Xen's own stack (section 7 of the facts). Xen release builds have none.
     */
    boolean hypervisorFramePointers();
}
