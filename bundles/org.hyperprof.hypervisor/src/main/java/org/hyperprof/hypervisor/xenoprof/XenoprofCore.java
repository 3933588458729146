package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.failed;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.ACTIVE;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.CORRUPTED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.GUEST_ROUTED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.IBS_BLOCKS;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.IBS_ENTRIES;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.IDLE;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.INVALID;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.LOST;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.OTHERS;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.PASSIVE;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.POLICY_DROPPED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.TOTAL;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.TRACE_CORRUPTED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.TRACE_ESCAPE;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.TRACE_LOST;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.VIRQ_COALESCED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.VIRQ_DELIVERED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.VIRQ_RAISED;
import static org.hyperprof.hypervisor.xenoprof.PcpuSampler.VIRQ_UNBOUND;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * Xenoprof as Xen implements it (xen/common/xenoprof.c and the x86 nmi_int.c glue), on top of a
 * {@link Machine}: the hypercall dispatcher and state machine, the per-vCPU shared buffers, the
 * NMI callback that logs samples, and {@code VIRQ_XENOPROF}.
 *
 * <p>The core is the face of Xenoprof: the NMI path, the hypercall entry, VIRQ binding, mapping and
 * the queries. The session's state, lists and domain buffers, with the hypercalls that change them,
 * are {@link XenoprofSession}'s; the counter operations and IBS are {@link CounterControl}'s; the
 * installed callback is {@link NmiCallback}'s; the words of every answer are {@link SessionGuide}'s.
 *
 * <p>Control operations are serialised by one lock, as {@code xenoprof_lock} serialises them. The
 * NMI path ({@link #nmi}, {@link #nmiContinuation}, and each pCPU's {@link PcpuSampler}) takes no
 * lock and never allocates: it touches only its pCPU's slot and counters and the target ring.
 *
 * <p>Xen's quirks are kept on purpose (section 3.5 of the facts): the primary's {@code init}
 * resets the state to INITIALIZED from anywhere; the list resets have no state check; the active
 * list keeps duplicates; a second {@code enable_virq} counts twice; {@code get_buffer} makes the
 * domain IGNORED before its share check and keeps PMU ownership when that check fails;
 * {@code reset_active_list} resets only the ready entries' domains. {@code activated} and
 * {@code adomains} are unsigned as in Xen.
 *
 * <h2>AMD IBS</h2>
 * {@code get_ibs_caps} returns the model's IBS capability bits (0 without IBS); {@code ibs_counter}
 * stores the configuration, which {@code setup_events} programs on every pCPU when the capability
 * bits are not 0 (Xen's IBS code runs only where IBS was detected; elsewhere the op just stores).
 * The NMI callback, after the counters, asks the PMU for valid IBS data ({@code checkIbs}) and logs
 * the block (marker pseudo-PC 13 or 14, then the data words) into the current vCPU's buffer as
 * ordinary entries with event 0 and the current mode. The books count a block as one sample
 * ({@code total_samples}, active/passive, the buffer's mode count), written whole or not at all: a
 * ring without room for the whole block loses it, so a daemon never reads half a block. (Xen logs
 * each word through {@code xenoprof_log_event}, so its own counters count every word and a full ring
 * can cut a block.) As Xen's AMD {@code check_ctrs} always reports an overflow, an NMI that found
 * IBS data counts as an overflow for the VIRQ rule.
 */
public final class XenoprofCore implements Xenoprof {
    /** {@code DOMID_IDLE}: the domain of idle vCPUs; never profiled. */
    public static final int IDLE_DOMID = 0x7FFF;
    /** {@code DOMID_FIRST_RESERVED}: ordinary domain ids lie below it. */
    public static final int DOMID_FIRST_RESERVED = 0x7FF0;
    /** {@code MAX_OPROF_DOMAINS}: limit of the active list and, separately, of the passive list. */
    public static final int MAX_OPROF_DOMAINS = 25;
    /** Sample modes of {@code event_log.mode}. */
    public static final int MODE_USER = 0;
    public static final int MODE_KERNEL = 1;
    public static final int MODE_XEN = 2;

    private final Machine machine;
    private final SessionGuide guide;
    /** {@code xenoprof_lock}: every control operation and every query of the lists holds it. */
    private final Object lock = new Object();
    private final XenConsole console = new XenConsole();
    private final XenoprofSession session;
    private final CounterControl counterControl;
    private final NmiCallback callback;

    /** The {@code VIRQ_XENOPROF} binding of each domain. */
    private final AtomicReferenceArray<VirqHandler> handlers = new AtomicReferenceArray<>(DOMID_FIRST_RESERVED);
    private final AtomicLong flushVirqs = new AtomicLong();
    private final AtomicLong controlVirqsDelivered = new AtomicLong();
    private final AtomicLong controlVirqsUnbound = new AtomicLong();
    private final Map<Long, CallRecord> records = new HashMap<>();

    private record CallRecord(long result, String text) {
    }

    public XenoprofCore(Machine machine) {
        if (machine == null) {
            throw new IllegalArgumentException("Xenoprof needs the machine it runs on; got null");
        }
        this.machine = machine;
        this.guide = new SessionGuide(this, machine);
        this.session = new XenoprofSession(machine, guide, console);
        this.callback = new NmiCallback(machine.hypervisorFramePointers());
        this.counterControl = new CounterControl(machine, session, guide, callback);
    }

    // ---------------------------------------------------------------------------------------------
    // NMI path
    // ---------------------------------------------------------------------------------------------

    /**
     * The NMI callback: a PMU interrupt was taken on {@code pcpu} while vCPU {@code vcpu} of
     * {@code domid} (or the idle domain, 0x7FFF) was current, in Xenoprof mode {@code mode}
     * (0 user, 1 kernel, 2 xen) at {@code pc}. {@code stack[0..stackDepth)} are the return
     * addresses of the interrupted call stack, innermost first (for call traces).
     *
     * <p>Runs {@code pmu(pcpu).checkCounters}, asks {@code router} about each overflowed counter,
     * logs each XENOPROF-routed one as a sample (xenoprof_log_event), then logs the IBS block the
     * PMU found valid, if any ({@code checkIbs}; one sample), and applies the VIRQ rule:
     * it records a pending notification for this pCPU, which {@link #nmiContinuation(int)} sends.
     * Does nothing unless the callback is installed (enable_virq by the primary, until
     * release_counters). No allocation.
     *
     * @return the number of samples taken: overflows routed to Xenoprof plus those the policy
     *         dropped, plus one for an IBS block (all are in {@code total_samples}); overflows routed
     *         to a guest are not samples
     */
    public int nmi(int pcpu, int domid, int vcpu, int mode, long pc, long[] stack, int stackDepth,
            OverflowRouter router) {
        if (!callback.installed()) {
            return 0;
        }
        PcpuSampler s = callback.sampler(pcpu);
        if (mode < MODE_USER || mode > MODE_XEN) {
            throw new IllegalArgumentException("NMI on pcpu " + pcpu + ": mode " + mode
                    + " is not a Xenoprof mode (0 user, 1 kernel, 2 xen)");
        }
        if (stackDepth < 0 || stackDepth > 0 && (stack == null || stackDepth > stack.length)) {
            throw new IllegalArgumentException("NMI on pcpu " + pcpu + ": stack depth " + stackDepth
                    + " does not fit the stack array (length " + (stack == null ? "null" : stack.length) + ")");
        }
        if (router == null) {
            throw new IllegalArgumentException("NMI on pcpu " + pcpu + ": no overflow router given "
                    + "(use OverflowRouter.SYSTEM_WIDE for plain Xenoprof)");
        }
        s.begin(domid, vcpu, mode, pc, stack, stackDepth, router);
        try {
            PhysicalPmu pmu = machine.pmu(pcpu);
            pmu.checkCounters(s);
            int ibs = pmu.checkIbs(s.ibsEntries);
            if (ibs > 0) {
                s.logIbs(ibs);
            }
            // AMD: an NMI that found IBS data is an overflow for the VIRQ rule (Xen's check_ctrs returns 1).
            if ((s.xenoprofSamples > 0 || ibs > 0) && mode != MODE_XEN) {
                XenoprofDomain x = session.lookup(domid);
                if (x != null && x.type == DomainType.ACTIVE) {
                    s.raiseVirq(domid, vcpu);
                }
            }
            return s.taken;
        } finally {
            s.end();
        }
    }

    /**
     * The handler of a PMU interrupt whose sample the hypervisor drops (a postponed PowerPC
     * interrupt under {@code ppc.postponed=ignore}, as Xen-PPC did): it re-arms every overflowed
     * counter and re-enables the alert ({@code checkCounters}), re-arms IBS, and logs nothing; the
     * overflows never reach {@code xenoprof_log_event}, so Xenoprof's statistics do not count them.
     * Does nothing unless the callback is installed. No allocation.
     *
     * @return how many counters had overflowed (samples dropped)
     */
    public int discardNmi(int pcpu) {
        if (!callback.installed()) {
            return 0;
        }
        PcpuSampler s = callback.sampler(pcpu);
        s.discarded = 0;
        PhysicalPmu pmu = machine.pmu(pcpu);
        pmu.checkCounters(s.discard);
        pmu.checkIbs(s.ibsEntries);
        return s.discarded;
    }

    /**
     * The NMI continuation (self-IPI): sends the VIRQ recorded for {@code pcpu}, if any, to the
     * handler bound for that domain, and clears the slot. The engine calls it after each NMI.
     */
    public void nmiContinuation(int pcpu) {
        if (pcpu < 0) {
            throw new IllegalArgumentException("pcpu " + pcpu + " is negative");
        }
        PcpuSampler s = callback.samplerOrNull(pcpu);
        if (s == null || !s.virqPending) {
            return;
        }
        s.virqPending = false;
        int domid = s.virqDomid;
        VirqHandler h = handler(domid);
        if (h == null) {
            s.virqUnbound();
            return;
        }
        s.virqDelivered();
        h.virq(s.virqVcpu);
    }

    private VirqHandler handler(int domid) {
        return domid >= 0 && domid < DOMID_FIRST_RESERVED ? handlers.get(domid) : null;
    }

    // ---------------------------------------------------------------------------------------------
    // Hypercall
    // ---------------------------------------------------------------------------------------------

    @Override
    public long hypercall(int callerDomid, int op, Object arg) {
        if (callerDomid < 0 || callerDomid >= DOMID_FIRST_RESERVED || !machine.domainExists(callerDomid)) {
            throw new IllegalArgumentException("domain " + callerDomid + (session.wasDestroyed(callerDomid)
                    ? " was destroyed, so it issues no more XENOPROF hypercalls"
                    : " does not exist on this host, so it cannot issue XENOPROF hypercalls"));
        }
        long result;
        int[] flush;
        synchronized (lock) {
            XenoprofState before = session.state();
            HypercallOutcome outcome = dispatch(callerDomid, op, arg);
            result = outcome.result();
            XenoprofOp xop = XenoprofOp.ofNumber(op);
            if (result < 0) {
                console.print("(XEN) xenoprof: operation " + op + " failed: " + result);
            }
            if (xop != null) {
                String text = guide.describeCall(callerDomid, xop, result, before, outcome.why(), outcome.next(),
                        outcome.effect());
                records.put(key(callerDomid, xop), new CallRecord(result, text));
            }
            flush = outcome.flushTargets();
            if (flush != null) {
                flushVirqs.addAndGet(flush.length / 2);
            }
        }
        if (flush != null) {
            deliverFlush(flush);
        }
        return result;
    }

    private HypercallOutcome dispatch(int caller, int op, Object arg) {
        XenoprofOp xop = XenoprofOp.ofNumber(op);
        if (xop == null) {
            return failed(Errno.EINVAL, "op " + op + " is outside 0.." + XenoprofOp.LAST_OP
                    + " (XENOPROF_last_op)", "use one of the 18 XENOPROF operations");
        }
        if (xop.privileged() && caller != session.primary()) {
            return guide.notPrimary(caller, xop);
        }
        return switch (xop) {
            case INIT -> session.init(caller, arg);
            case RESET_ACTIVE_LIST -> session.resetActiveList();
            case RESET_PASSIVE_LIST -> session.resetPassiveList(caller);
            case SET_ACTIVE -> session.setActive(caller, arg);
            case SET_PASSIVE -> session.setPassive(caller, arg);
            case GET_BUFFER -> session.getBuffer(caller, arg);
            case ENABLE_VIRQ -> session.enableVirq(caller, callback);
            case DISABLE_VIRQ -> session.disableVirq(caller);
            case SHUTDOWN -> session.shutdown();
            case SET_BACKTRACE -> session.setBacktrace(arg);
            case RESERVE_COUNTERS -> counterControl.reserveCounters();
            case COUNTER -> counterControl.counter(arg);
            case SETUP_EVENTS -> counterControl.setupEvents();
            case START -> counterControl.start();
            case STOP -> counterControl.stop();
            case RELEASE_COUNTERS -> counterControl.releaseCounters();
            case GET_IBS_CAPS -> counterControl.getIbsCaps();
            case IBS_COUNTER -> counterControl.ibsCounter(arg);
        };
    }

    private void deliverFlush(int[] targets) {
        RuntimeException first = null;
        for (int i = 0; i < targets.length; i += 2) {
            VirqHandler h = handler(targets[i]);
            if (h == null) {
                controlVirqsUnbound.incrementAndGet();
                continue;
            }
            controlVirqsDelivered.incrementAndGet();
            try {
                h.virq(targets[i + 1]);
            } catch (RuntimeException e) {
                // One failing guest handler must not keep the flush from the others.
                if (first == null) {
                    first = new IllegalStateException("stop succeeded (state READY), but the VIRQ_XENOPROF handler"
                            + " of domain " + targets[i] + " vcpu " + targets[i + 1] + " failed during the flush: "
                            + e.getMessage(), e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Domain lifecycle, mapping, VIRQ binding
    // ---------------------------------------------------------------------------------------------

    /**
     * A domain is destroyed: its buffers are freed, it leaves the lists (both are compacted, and
     * {@code activated} loses its ready entries), its VIRQ binding goes, and if it was the primary
     * the session has no primary any more. Xen would instead keep a listed domain alive as a
     * zombie through its reference; a simulation has no use for zombies.
     */
    public void domainDestroyed(int domid) {
        session.markDestroyed(domid);
        synchronized (lock) {
            session.domainDestroyed(domid);
            if (domid >= 0 && domid < DOMID_FIRST_RESERVED) {
                handlers.set(domid, null);
            }
        }
    }

    @Override
    public SharedBuffer[] mapBuffers(int mapperDomid, int ownerDomid) {
        synchronized (lock) {
            XenoprofDomain x = session.lookup(ownerDomid);
            if (x == null) {
                throw new IllegalStateException("domain " + ownerDomid + " has no Xenoprof buffers to map: "
                        + (mapperDomid == ownerDomid ? "domain " + ownerDomid + " must call get_buffer first"
                                : "the primary shares a passive domain's buffers with set_passive, and a domain"
                                        + " shares its own with get_buffer"));
            }
            if (x.sharedWith != mapperDomid) {
                String how = mapperDomid == ownerDomid
                        ? "domain " + ownerDomid + " gets its own pages with get_buffer"
                        : "only the primary may map another domain's buffers, after set_passive of domain "
                                + ownerDomid;
                String now = x.sharedWith == XenoprofDomain.NOBODY ? "they are not shared with anyone (never shared,"
                        + " or unshared by disable_virq or reset_passive_list)"
                        : "they are shared with domain " + x.sharedWith + " (by " + x.sharedBy + ")";
                throw new IllegalStateException("domain " + mapperDomid + " cannot map the buffers of domain "
                        + ownerDomid + ": " + now + "; " + how);
            }
            if (machine.hvm(mapperDomid)) {
                throw new IllegalStateException("domain " + mapperDomid + " is an HVM (auto-translated) guest: Xen"
                        + " logs \"xenoprof unsupported with autotranslated guests\" and gives it no usable buffer"
                        + " address; profile an HVM guest as a passive domain of the primary instead");
            }
            return x.buffers.clone();
        }
    }

    @Override
    public void bindVirq(int domid, VirqHandler handler) {
        if (handler == null) {
            throw new IllegalArgumentException("binding VIRQ_XENOPROF of domain " + domid
                    + " needs a handler; to unbind, call unbindVirq");
        }
        if (domid < 0 || domid >= DOMID_FIRST_RESERVED || !machine.domainExists(domid)) {
            throw new IllegalArgumentException("cannot bind VIRQ_XENOPROF: domain " + domid
                    + (session.wasDestroyed(domid) ? " was destroyed" : " does not exist on this host"));
        }
        handlers.set(domid, handler);
    }

    @Override
    public void unbindVirq(int domid) {
        if (domid >= 0 && domid < DOMID_FIRST_RESERVED) {
            handlers.set(domid, null);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Queries
    // ---------------------------------------------------------------------------------------------

    @Override
    public XenoprofState state() {
        return session.state();
    }

    @Override
    public int primary() {
        return session.primary();
    }

    @Override
    public DomainType domainType(int domid) {
        XenoprofDomain x = session.lookup(domid);
        return x == null ? DomainType.IGNORED : x.type;
    }

    @Override
    public int activeListSize() {
        synchronized (lock) {
            return session.adomains();
        }
    }

    /** {@code activated}; Xen's counter is unsigned, so a decrement below 0 shows as -1 here. */
    @Override
    public int activated() {
        synchronized (lock) {
            return session.activated();
        }
    }

    /**
     * The active list. A slot cleared by a domain's {@code disable_virq} while others stay
     * activated shows as -1 (Xen's NULL entry) until the list is reset.
     */
    @Override
    public int[] activeList() {
        synchronized (lock) {
            return session.activeList();
        }
    }

    @Override
    public int[] passiveList() {
        synchronized (lock) {
            return session.passiveList();
        }
    }

    /** {@code backtrace_depth}, saturated at {@link Integer#MAX_VALUE} (Xen's is an unsigned long). */
    @Override
    public int backtraceDepth() {
        long d = session.rawBacktraceDepth();
        return d < 0 || d > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) d;
    }

    /** Whether the NMI callback is installed (primary's enable_virq, until release_counters). */
    public boolean nmiCallbackInstalled() {
        return callback.installed();
    }

    /** Whether Xenoprof holds PMU ownership (from get_buffer until a disable_virq releases it). */
    public boolean xenoprofOwnsPmu() {
        synchronized (lock) {
            return session.pmuOwnedByXenoprof();
        }
    }

    /** The configurations the last setup_events programmed on every pCPU. */
    public CounterConfig[] programmedCounters() {
        synchronized (lock) {
            return counterControl.programmed();
        }
    }

    /** The stored IBS configuration, or null before any {@code ibs_counter}. */
    public IbsConfig ibsConfig() {
        synchronized (lock) {
            return counterControl.ibsConfig();
        }
    }

    /** Whether entry {@code i} of the active list has called enable_virq. */
    boolean activeSlotReady(int i) {
        synchronized (lock) {
            return session.activeSlotReady(i);
        }
    }

    /**
     * The hypervisor's view of a domain's buffers (one per vCPU), shared or not, or an empty array
     * when the domain has none: for diagnostics and accounting checks, not for guests (they map).
     */
    public XenoprofBuffer[] buffers(int domid) {
        XenoprofDomain x = session.lookup(domid);
        return x == null ? new XenoprofBuffer[0] : x.buffers.clone();
    }

    /** Entries left unread in the buffers of destroyed domains, summed over the host's life. */
    public long undrainedAtDestroy() {
        return session.undrainedAtDestroy();
    }

    /** Whether the domain has Xenoprof buffers (get_buffer or set_passive allocated them). */
    boolean hasBuffers(int domid) {
        return session.lookup(domid) != null;
    }

    /** Whether the LAPIC NMI is reserved (from reserve_counters until release_counters). */
    boolean lapicNmiReserved() {
        synchronized (lock) {
            return counterControl.lapicNmiReserved();
        }
    }

    @Override
    public XenoprofStatistics statistics() {
        long[] t = callback.sum();
        return new XenoprofStatistics(t[TOTAL], t[ACTIVE], t[PASSIVE], t[LOST], t[OTHERS], t[IDLE], t[INVALID],
                t[CORRUPTED]);
    }

    @Override
    public long droppedSamples(int domid) {
        return callback.dropped(domid);
    }

    /** The counters of {@link XenoprofDiagnostics} and Xen's console lines. */
    public XenoprofDiagnostics diagnostics() {
        long[] t = callback.sum();
        List<String> lines;
        synchronized (lock) {
            lines = console.lines();
        }
        return new XenoprofDiagnostics(t[GUEST_ROUTED], t[POLICY_DROPPED], t[TRACE_LOST], t[TRACE_CORRUPTED],
                t[TRACE_ESCAPE], t[VIRQ_RAISED], t[VIRQ_COALESCED], t[VIRQ_DELIVERED] + controlVirqsDelivered.get(),
                t[VIRQ_UNBOUND] + controlVirqsUnbound.get(), flushVirqs.get(), t[TOTAL], t[LOST], t[INVALID],
                t[CORRUPTED], t[IBS_BLOCKS], t[IBS_ENTRIES], lines);
    }

    // ---------------------------------------------------------------------------------------------
    // Explanations
    // ---------------------------------------------------------------------------------------------

    @Override
    public String explain(int callerDomid, XenoprofOp op, long result) {
        if (op == null) {
            return "no operation given: name one of the XENOPROF operations (init, get_buffer, set_active, ...)";
        }
        synchronized (lock) {
            CallRecord r = records.get(key(callerDomid, op));
            return r != null && r.result() == result ? r.text() : guide.explainByRule(callerDomid, op, result);
        }
    }

    private static long key(int caller, XenoprofOp op) {
        return ((long) caller << 8) | op.number();
    }
}
