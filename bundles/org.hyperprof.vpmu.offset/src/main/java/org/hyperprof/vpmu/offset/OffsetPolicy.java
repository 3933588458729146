package org.hyperprof.vpmu.offset;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.vpmu.kit.NamedPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * Perfctr-Xen's counter offsetting: no whole-context save and restore. Each guest vCPU has logical
 * counters, value = sum + (raw now - start). At switch-out the policy reads the counters the vCPU
 * uses and folds them into its sums; at switch-in it rewrites event selects only where they differ
 * from what the hardware holds, and at the last hypervisor exit before the guest resumes it takes
 * the start values (sampling counters are written with their logical value so they overflow on
 * time), keeping the switch path's events out of the guest's counts.
 */
@Component(service = CounterVirtualizationPolicy.class)
@CounterVirtualizationPolicy.Policy("offset")
public final class OffsetPolicy extends NamedPolicy {

    /** Needs no collaborators; DS and plain Java use this constructor. */
    public OffsetPolicy() {
        super("Perfctr-Xen counter offsetting: per-vCPU logical counters (sum + raw - start), reads at"
                + " switch-out, event selects rewritten only when they change, the switch path's events left out of"
                + " guest counts", OffsetSession::new);
    }
}
