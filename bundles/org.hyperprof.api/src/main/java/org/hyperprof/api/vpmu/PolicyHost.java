package org.hyperprof.api.vpmu;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.osgi.annotation.versioning.ProviderType;

/** What a policy may touch on the host it virtualizes counters for. Implemented by the hypervisor. */
@ProviderType
public interface PolicyHost {
    PmuModel model();

    int pcpuCount();

    /** The register file of a physical CPU: what a save/restore policy reads and writes. */
    PhysicalPmu pmu(int pcpu);

    /**
     * Charges hypervisor work the policy causes (register accesses, traps, injections) to the
     * vCPU current on {@code pcpu}, as a hypervisor segment of {@code cycles} in the function
     * {@code symbol} of the hypervisor image, so overhead appears in profiles and totals.
     */
    void chargeHypervisor(int pcpu, long cycles, String symbol);

    /** Raises a virtual PMU interrupt in a guest vCPU. */
    void injectVirtualInterrupt(int domid, int vcpu);

    /** Whether Xenoprof is sampling now. */
    boolean xenoprofProfiling();
}
