package org.hyperprof.vpmu.systemwide;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.vpmu.kit.NamedPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * Xenoprof's counter model: the hypervisor owns the physical counters for the whole machine. They
 * keep counting across vCPU switches and hypervisor entries, every overflow becomes a sample in the
 * Xenoprof buffer of the domain that was running, and guests are offered no PMU at all.
 */
@Component(service = CounterVirtualizationPolicy.class)
@CounterVirtualizationPolicy.Policy("systemwide")
public final class SystemWidePolicy extends NamedPolicy {

    /** Needs no collaborators; DS and plain Java use this constructor. */
    public SystemWidePolicy() {
        super("Xenoprof: the hypervisor owns the counters, which run across vCPU switches; every"
                + " overflow is a sample for the running domain; guests see no PMU", SystemWideSession::new);
    }
}
