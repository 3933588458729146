package org.hyperprof.vpmu.kit;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;

/**
 * A session that keeps each guest vCPU's control and interrupt registers as the guest wrote them
 * ({@link VirtualControls}), apart from what the hardware holds, and its counters in a way of its
 * own: a guest reads a counter through {@link #readCounter}, every other register from its virtual
 * copy, and an overflow of a counter of the model goes where {@link #route} says.
 */
public abstract class VirtualControlsSession extends VirtualPmuSession {
    /** Every control and interrupt register as the guest sees it. */
    protected final VirtualControls virtual;

    protected VirtualControlsSession(PolicyHost host, String policy) {
        super(host, policy);
        this.virtual = new VirtualControls(model);
    }

    @Override
    public final long guestRead(int pcpu, int domid, int vcpu, int register) {
        int s = guestAccess(pcpu, domid, vcpu);
        int i = model.counterIndex(register);
        return i >= 0 ? readCounter(pcpu, s, i, register) : virtual.read(s, register);
    }

    /**
     * What the guest vCPU of slot {@code s}, running on {@code pcpu}, reads from counter {@code i}
     * (register {@code register}); the policy charges what the read costs.
     */
    protected abstract long readCounter(int pcpu, int s, int i, int register);

    /** Checks the CPU and the counter, then asks the policy whose overflow it is. */
    @Override
    public final OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode) {
        check(pcpu);
        model.checkCounter(counter);
        return route(pcpu, counter);
    }

    /** Whose overflow of counter {@code counter} (a counter of the model) on {@code pcpu} is. */
    protected abstract OverflowRoute route(int pcpu, int counter);

    /** New slots see the power-on controls and interrupts; a policy growing state of its own calls this too. */
    @Override
    protected void growSlots(int from, int to) {
        virtual.grow(from, to);
    }
}
