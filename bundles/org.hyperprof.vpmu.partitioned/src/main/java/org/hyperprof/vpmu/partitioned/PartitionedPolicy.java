package org.hyperprof.vpmu.partitioned;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.vpmu.kit.NamedPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * A system-wide Xenoprof session and guests' own profilers on one PMU at once: on every physical
 * CPU the lower counters ({@code vpmu.xenoprof-counters}, default half, at least one) are
 * Xenoprof's and the rest are the guests' share, saved and restored per vCPU at switches; a guest
 * write beyond its share is refused with a reason.
 */
@Component(service = CounterVirtualizationPolicy.class)
@CounterVirtualizationPolicy.Policy("partitioned")
public final class PartitionedPolicy extends NamedPolicy {

    /** Needs no collaborators; DS and plain Java use this constructor. */
    public PartitionedPolicy() {
        super("Partitioned PMU: Xenoprof keeps the lower counters (vpmu.xenoprof-counters), guests save"
                + " and restore the rest at switches; writes beyond a guest's share are refused", PartitionedSession::new);
    }
}
