package org.hyperprof.hypervisor.xenoprof;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.vpmu.OverflowRoute;

/** Asks the counter-virtualization policy what an overflow means. Called on the NMI path: no allocation. */
@FunctionalInterface
public interface OverflowRouter {
    OverflowRouter SYSTEM_WIDE = (pcpu, domid, vcpu, counter, mode) -> OverflowRoute.XENOPROF;

    OverflowRoute route(int pcpu, int domid, int vcpu, int counter, CpuMode mode);
}
