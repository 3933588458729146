package org.hyperprof.hypervisor.xenoprof;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.SharedBuffer;

/**
 * One physical CPU's share of Xenoprof's NMI path: the sink {@code check_ctrs} reports to
 * (allocated once, reused for every NMI), {@code xenoprof_log_event} with its call-trace walk, the
 * IBS block, the pending-VIRQ slot, and the pCPU's sample counters. It takes no lock and never
 * allocates: it touches only its own fields and counters and the target ring. The
 * {@link NmiCallback} makes one per pCPU when it is first installed, and the core sums their
 * counters into its statistics.
 */
final class PcpuSampler implements OverflowSink {
    // The pCPU's counter slots (NMI path, no lock); the core sums them into its statistics.
    static final int TOTAL = 0;
    static final int ACTIVE = 1;
    static final int PASSIVE = 2;
    static final int LOST = 3;
    static final int OTHERS = 4;
    static final int IDLE = 5;
    static final int INVALID = 6;
    static final int CORRUPTED = 7;
    static final int GUEST_ROUTED = 8;
    static final int POLICY_DROPPED = 9;
    static final int TRACE_LOST = 10;
    static final int TRACE_CORRUPTED = 11;
    static final int TRACE_ESCAPE = 12;
    static final int VIRQ_RAISED = 13;
    static final int VIRQ_COALESCED = 14;
    static final int VIRQ_DELIVERED = 15;
    static final int VIRQ_UNBOUND = 16;
    static final int IBS_BLOCKS = 17;
    static final int IBS_ENTRIES = 18;
    static final int SLOTS = 19;

    /** Room for the largest IBS block: fetch (8 entries) and op (14) on one NMI. */
    static final int IBS_ENTRIES_MAX = 32;

    /** Whose domains and call-trace depth the samples follow. */
    private final XenoprofSession session;
    /** {@link Machine#hypervisorFramePointers()}: Xen's own frames are walked only then. */
    private final boolean framePointers;
    final int pcpu;
    final long[] counts = new long[SLOTS];
    /** Of {@link #OTHERS}, the samples dropped while each domain ran, by domid (grown when a larger one runs). */
    private long[] droppedByDomain = new long[64];
    /** Where {@code checkIbs} writes an IBS block; allocated once. */
    final long[] ibsEntries = new long[IBS_ENTRIES_MAX];
    int discarded;
    /** The sink of {@link XenoprofCore#discardNmi}: counts, logs nothing. */
    final OverflowSink discard = counter -> discarded++;
    boolean virqPending;
    int virqDomid;
    int virqVcpu;

    // The NMI being handled.
    int domid;
    int vcpu;
    int mode;
    CpuMode cpuMode;
    long pc;
    long[] stack;
    int stackDepth;
    OverflowRouter router;
    int taken;
    int xenoprofSamples;

    PcpuSampler(int pcpu, XenoprofSession session, boolean framePointers) {
        this.pcpu = pcpu;
        this.session = session;
        this.framePointers = framePointers;
    }

    void begin(int d, int v, int m, long p, long[] st, int depth, OverflowRouter r) {
        domid = d;
        vcpu = v;
        mode = m;
        cpuMode = CpuMode.ofCode(m);
        pc = p;
        stack = st;
        stackDepth = depth;
        router = r;
        taken = 0;
        xenoprofSamples = 0;
    }

    void end() {
        stack = null;
        router = null;
    }

    @Override
    public void overflow(int counter) {
        OverflowRoute route = router.route(pcpu, domid, vcpu, counter, cpuMode);
        if (route == OverflowRoute.XENOPROF) {
            taken++;
            xenoprofSamples++;
            logEvent(counter);
        } else if (route == OverflowRoute.DROP) {
            taken++;
            counts[TOTAL]++;
            counts[POLICY_DROPPED]++;
            countDropped();
        } else if (route == OverflowRoute.GUEST) {
            counts[GUEST_ROUTED]++;
        } else {
            throw new IllegalStateException("the overflow router returned no route for counter " + counter
                    + " on pcpu " + pcpu + "; expected XENOPROF, GUEST or DROP");
        }
    }

    /**
     * An IBS block of {@code n} entries into the current vCPU's buffer, each {@code {word, mode, 0}}:
     * one sample for the books, written whole or lost whole.
     */
    void logIbs(int n) {
        taken++;
        counts[TOTAL]++;
        counts[IBS_BLOCKS]++;
        XenoprofDomain x = profiledDomain();
        XenoprofBuffer buf = x == null ? null : bufferOf(x);
        if (buf != null && added(x, buf, buf.addBlock(ibsEntries, n, mode, 0))) {
            counts[IBS_ENTRIES] += n;
        }
    }

    /**
     * The domain running now when Xenoprof profiles it (active or passive); else null, the sample
     * counted as another domain's (and the idle domain's).
     */
    private XenoprofDomain profiledDomain() {
        XenoprofDomain x = session.lookup(domid);
        DomainType type = x == null ? DomainType.IGNORED : x.type;
        if (type == DomainType.ACTIVE || type == DomainType.PASSIVE) {
            return x;
        }
        countDropped();
        return null;
    }

    /** A sample of the running domain dropped ({@code others_samples}): the idle domain's, or counted as its own. */
    private void countDropped() {
        counts[OTHERS]++;
        if (domid == XenoprofCore.IDLE_DOMID) {
            counts[IDLE]++;
            return;
        }
        if (domid >= droppedByDomain.length) {
            droppedByDomain = Arrays.copyOf(droppedByDomain, Math.max(domid + 1, 2 * droppedByDomain.length));
        }
        droppedByDomain[domid]++;
    }

    /** The current vCPU's buffer of a profiled domain, or null with the sample counted invalid. */
    private XenoprofBuffer bufferOf(XenoprofDomain x) {
        XenoprofBuffer buf = x.buffer(vcpu);
        if (buf == null) {
            counts[INVALID]++;
        }
        return buf;
    }

    /** Counts what writing a sample into the buffer came to; whether it was added. */
    private boolean added(XenoprofDomain x, XenoprofBuffer buf, int result) {
        if (result != XenoprofBuffer.ADDED) {
            sampleFailed(buf, result);
            return false;
        }
        counts[x.type == DomainType.ACTIVE ? ACTIVE : PASSIVE]++;
        buf.countSampleMode(mode);
        return true;
    }

    /** {@code xenoprof_log_event}: one sample into the current vCPU's buffer, or counted as dropped. */
    private void logEvent(int counter) {
        counts[TOTAL]++;
        XenoprofDomain x = profiledDomain();
        XenoprofBuffer buf = x == null ? null : bufferOf(x);
        if (buf == null) {
            return;
        }
        long depth = session.rawBacktraceDepth();
        if (depth != 0) {
            // Room for the escape record and the sample, judged on head and tail read once, raw.
            if (buf.freeSlots() < 2) {
                buf.countLost();
                counts[LOST]++;
                return;
            }
            int r = buf.add(SharedBuffer.ESCAPE_CODE, mode, SharedBuffer.TRACE_BEGIN);
            if (r != XenoprofBuffer.ADDED) {
                sampleFailed(buf, r);
                return;
            }
        }
        added(x, buf, buf.add(pc, mode, counter));
        // Xen's frames are walked only in a build with frame pointers; a guest's always (32-bit
        // frames for 32-bit PV guests and HVM guests outside long mode: the simulated stack holds
        // the return addresses whatever their width).
        if (depth != 0 && (mode != XenoprofCore.MODE_XEN || framePointers)) {
            walkStack(buf, depth);
        }
    }

    private void sampleFailed(XenoprofBuffer buf, int result) {
        if (result == XenoprofBuffer.FULL) {
            buf.countLost();
            counts[LOST]++;
        } else {
            buf.countCorrupted();
            counts[CORRUPTED]++;
        }
    }

    /** Up to {@code depth} return addresses, each {@code {ret, mode, 0}}; stops at the first refusal. */
    private void walkStack(XenoprofBuffer buf, long depth) {
        int frames = stackDepth;
        if (depth > 0 && depth < frames) {
            frames = (int) depth;
        }
        for (int i = 0; i < frames; i++) {
            long ret = stack[i];
            if (ret == SharedBuffer.ESCAPE_CODE) {
                // A broken frame must not forge an escape record.
                counts[TRACE_ESCAPE]++;
                return;
            }
            int r = buf.add(ret, mode, 0);
            if (r == XenoprofBuffer.FULL) {
                buf.countTraceEntryLost();
                counts[TRACE_LOST]++;
                return;
            }
            if (r == XenoprofBuffer.CORRUPTED) {
                counts[TRACE_CORRUPTED]++;
                return;
            }
        }
    }

    /** The VIRQ rule after an NMI that logged a sample of an active domain: one pending VIRQ per pCPU. */
    void raiseVirq(int d, int v) {
        if (virqPending) {
            counts[VIRQ_COALESCED]++;
        } else {
            virqPending = true;
            virqDomid = d;
            virqVcpu = v;
            counts[VIRQ_RAISED]++;
        }
    }

    /** The continuation found no handler bound for the pending VIRQ's domain. */
    void virqUnbound() {
        counts[VIRQ_UNBOUND]++;
    }

    /** The continuation delivers the pending VIRQ. */
    void virqDelivered() {
        counts[VIRQ_DELIVERED]++;
    }

    /** {@code xenoprof_reset_stat}: a new session's statistics start from zero. */
    void resetCounts() {
        Arrays.fill(counts, 0);
        Arrays.fill(droppedByDomain, 0);
    }

    /** The samples dropped while {@code domid} ran, summed over every pCPU. */
    static long dropped(PcpuSampler[] all, int domid) {
        long n = 0;
        for (PcpuSampler s : all) {
            long[] d = s.droppedByDomain;
            n += domid >= 0 && domid < d.length ? d[domid] : 0;
        }
        return n;
    }

    /** The counters of every pCPU, summed slot by slot. */
    static long[] sum(PcpuSampler[] all) {
        long[] t = new long[SLOTS];
        for (PcpuSampler s : all) {
            for (int i = 0; i < SLOTS; i++) {
                t[i] += s.counts[i];
            }
        }
        return t;
    }
}
