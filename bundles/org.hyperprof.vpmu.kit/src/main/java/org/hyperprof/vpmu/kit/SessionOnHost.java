package org.hyperprof.vpmu.kit;

import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;

/**
 * What every policy's session on one host keeps the same way: each hook names one of the host's
 * physical CPUs and fails once the session is closed, and the hypervisor's entries and exits are
 * no events for the counters unless the policy says otherwise.
 */
public abstract class SessionOnHost implements PolicySession {
    protected final PolicyHost host;
    /** The host's physical CPUs, read once: a host does not gain or lose CPUs. */
    protected final int pcpus;
    /** The policy's name, as its messages say it. */
    private final String policy;
    /** Closed from whichever thread tears the host down; read on the simulation thread. */
    private volatile boolean closed;

    protected SessionOnHost(PolicyHost host, String policy) {
        this.host = host;
        this.policy = policy;
        this.pcpus = host.pcpuCount();
    }

    /** Counting goes on while the hypervisor works: nothing to do but the check. */
    @Override
    public void hypervisorEntry(int pcpu, int domid, int vcpu) {
        check(pcpu);
    }

    /** Counting goes on while the hypervisor works: nothing to do but the check. */
    @Override
    public void hypervisorExit(int pcpu, int domid, int vcpu) {
        check(pcpu);
    }

    /** Ends the session; closing again does nothing. The hardware is left as it is. */
    @Override
    public final void close() {
        closed = true;
    }

    /** @throws IllegalArgumentException when {@code pcpu} is no physical CPU of the host */
    protected final void check(int pcpu) {
        checkOpen();
        if (pcpu < 0 || pcpu >= pcpus) {
            throw new IllegalArgumentException("physical CPU " + pcpu + " does not exist: the host has " + pcpus
                    + " (0 to " + (pcpus - 1) + ")");
        }
    }

    /** @throws IllegalStateException once the session is closed */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the " + policy + " counter policy session is closed; "
                    + "open a new session with CounterVirtualizationPolicy.open(host)");
        }
    }

    protected final String policy() {
        return policy;
    }
}
