package org.hyperprof.hypervisor.xenoprof;

import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * Xenoprof as Xen implements it (xen/common/xenoprof.c and the x86 nmi_int.c glue), on top of a
 * {@link Machine}. CONTRACT SKELETON: the method signatures are fixed; the bodies are being written.
 */
public final class XenoprofCore implements Xenoprof {
    private final Machine machine;

    public XenoprofCore(Machine machine) {
        this.machine = machine;
    }

    /**
     * The NMI callback: a PMU interrupt was taken on {@code pcpu} while vCPU {@code vcpu} of
     * {@code domid} (or the idle domain, 0x7FFF) was current, in Xenoprof mode {@code mode}
     * (0 user, 1 kernel, 2 xen) at {@code pc}. {@code stack[0..stackDepth)} are the return
     * addresses of the interrupted call stack, innermost first (for call traces).
     *
     * <p>Runs {@code pmu(pcpu).checkCounters}, asks {@code router} about each overflowed counter,
     * logs each XENOPROF-routed one as a sample (xenoprof_log_event), and applies the VIRQ rule:
     * it records a pending notification for this pCPU, which {@link #nmiContinuation(int)} sends.
     * Does nothing unless the callback is installed (enable_virq by the primary, until
     * release_counters). No allocation.
     *
     * @return the number of samples taken (overflows routed to Xenoprof)
     */
    public int nmi(int pcpu, int domid, int vcpu, int mode, long pc, long[] stack, int stackDepth,
            OverflowRouter router) {
        throw new IllegalStateException("skeleton");
    }

    /**
     * The NMI continuation (self-IPI): sends the VIRQ recorded for {@code pcpu}, if any, to the
     * handler bound for that domain, and clears the slot. The engine calls it after each NMI.
     */
    public void nmiContinuation(int pcpu) {
        throw new IllegalStateException("skeleton");
    }

    /** A domain is destroyed: its buffers are freed, it leaves the lists. */
    public void domainDestroyed(int domid) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public long hypercall(int callerDomid, int op, Object arg) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public String explain(int callerDomid, XenoprofOp op, long result) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public XenoprofState state() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public int primary() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public DomainType domainType(int domid) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public int activeListSize() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public int activated() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public int[] activeList() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public int[] passiveList() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public int backtraceDepth() {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public SharedBuffer[] mapBuffers(int mapperDomid, int ownerDomid) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public void bindVirq(int domid, VirqHandler handler) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public void unbindVirq(int domid) {
        throw new IllegalStateException("skeleton");
    }

    @Override
    public XenoprofStatistics statistics() {
        throw new IllegalStateException("skeleton");
    }
}
