package org.hyperprof.vpmu.lazy;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.vpmu.kit.NamedPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * Xen's vPMU (xenoprof-facts 10.3, peers 1.4): a virtual PMU of the host's model per guest vCPU,
 * allocated at the vCPU's first PMU access; saved at a switch only when it is loaded and running
 * (some counter enabled), loaded at a switch only when running and otherwise at the next PMU access;
 * a context still loaded on another physical CPU is saved there through an IPI. While a context is
 * loaded and running, its counter registers are passed through to the guest. Host option
 * {@code vpmu.freeze} = {@code running} (default) or {@code exit}, as for {@code saverestore}.
 */
@Component(service = CounterVirtualizationPolicy.class)
@CounterVirtualizationPolicy.Policy("lazy")
public final class LazyPolicy extends NamedPolicy {

    /**
     * Needs no collaborators; DS and plain Java use this constructor. {@link #open} throws
     * IllegalArgumentException when {@code vpmu.freeze} has a value other than running or
     * exit, or the scenario sets no price for PMU reads, writes,
     * injections or IPIs (the host's message says which line to add)
     */
    public LazyPolicy() {
        super("Xen vPMU: per-vCPU PMU state saved and loaded only while the vCPU's counters run, loaded"
                + " lazily at its next PMU access otherwise, counters passed through while running;"
                + " vpmu.freeze=running|exit", LazySession::new);
    }
}
