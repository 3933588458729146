package org.hyperprof.vpmu.saverestore;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.vpmu.kit.NamedPolicy;
import org.osgi.service.component.annotations.Component;

/**
 * A virtual PMU of the host's model per guest vCPU, saved whole (every counter, control and
 * interrupt register read) when the vCPU leaves a physical CPU and restored whole (every register
 * written, counters first, controls last) when it comes back. Host option {@code vpmu.freeze}:
 * {@code running} (default) lets the guest's counters count the hypervisor's work on its behalf
 * (VMware's "vcpu" mode); {@code exit} stops them at every hypervisor entry and restarts them at the
 * exit (VMware's "guest" mode).
 */
@Component(service = CounterVirtualizationPolicy.class)
@CounterVirtualizationPolicy.Policy("saverestore")
public final class SaveRestorePolicy extends NamedPolicy {

    /**
     * Needs no collaborators; DS and plain Java use this constructor. {@link #open} throws
     * IllegalArgumentException when {@code vpmu.freeze} has a value other than running or
     * exit, or the scenario sets no price for PMU reads, writes or
     * injections (the host's message says which line to add)
     */
    public SaveRestorePolicy() {
        super("save/restore: a virtual PMU per guest vCPU, every register saved and restored at every"
                + " vCPU switch; vpmu.freeze=running|exit decides whether hypervisor work for the guest counts",
                SaveRestoreSession::new);
    }
}
