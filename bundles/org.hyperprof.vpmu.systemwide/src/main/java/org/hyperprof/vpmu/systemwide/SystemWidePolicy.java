package org.hyperprof.vpmu.systemwide;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.vpmu.kit.NamedPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * Xenoprof's counter model: the hypervisor owns the physical counters for the whole machine. They
 * keep counting across vCPU switches and hypervisor entries, every overflow becomes a sample in the
 * Xenoprof buffer of the domain that was running, and guests are offered no PMU at all.
 */
@Component(service = CounterVirtualizationPolicy.class,
        property = CounterVirtualizationPolicy.NAME + "=" + SystemWidePolicy.POLICY_NAME)
public final class SystemWidePolicy extends NamedPolicy {

    /** The value of the {@value CounterVirtualizationPolicy#NAME} property. */
    public static final String POLICY_NAME = "systemwide";

    /** Needs no collaborators; DS and plain Java use this constructor. */
    public SystemWidePolicy() {
        super(POLICY_NAME, "Xenoprof: the hypervisor owns the counters, which run across vCPU switches; every"
                + " overflow is a sample for the running domain; guests see no PMU", SystemWideSession::new);
    }
}
