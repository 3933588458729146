package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.failed;
import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.succeeded;
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
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.beforeCheck;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.legalText;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.listText;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.opName;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.opcontrolOf;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.stateBecause;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * Xenoprof as Xen implements it (xen/common/xenoprof.c and the x86 nmi_int.c glue), on top of a
 * {@link Machine}: the hypercall dispatcher and state machine, the per-vCPU shared buffers, the
 * NMI callback that logs samples, and {@code VIRQ_XENOPROF}.
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

    private static final int NOBODY = XenoprofDomain.NOBODY;
    private static final int LOG_LINES = 64;

    private final Machine machine;
    /** {@link Machine#hypervisorFramePointers()}, fixed when Xen was built. */
    private final boolean framePointers;
    private final SessionGuide guide;
    private final Object lock = new Object();

    /** {@code d->xenoprof} by domain id; read lock-free on the NMI path. */
    private final AtomicReferenceArray<XenoprofDomain> domains = new AtomicReferenceArray<>(DOMID_FIRST_RESERVED);
    /** The {@code VIRQ_XENOPROF} binding of each domain. */
    private final AtomicReferenceArray<VirqHandler> handlers = new AtomicReferenceArray<>(DOMID_FIRST_RESERVED);

    // Global state, written under the lock.
    private volatile XenoprofState state = XenoprofState.IDLE;
    private volatile int primary = NOBODY;
    private final int[] activeDomains = new int[MAX_OPROF_DOMAINS];
    private final boolean[] activeReady = new boolean[MAX_OPROF_DOMAINS];
    private int adomains;
    /** Unsigned in Xen: decrementing 0 wraps, so "activated <= 0" only holds at exactly 0. */
    private int activated;
    private final int[] passiveDomains = new int[MAX_OPROF_DOMAINS];
    private int pdomains;
    /** {@code unsigned long backtrace_depth}. */
    private volatile long backtraceDepth;
    private final CounterSettings counters = new CounterSettings();
    /** The last {@code ibs_counter} configuration, kept across sessions as Xen's static {@code ibs_config}; null before any. */
    private IbsConfig ibsConfig;
    private CounterConfig[] programmed = new CounterConfig[0];
    private boolean lapicNmiReserved;
    private boolean pmuOwnedByXenoprof;
    private volatile boolean callbackInstalled;
    private volatile PcpuSampler[] samplers = new PcpuSampler[0];

    private final AtomicLong flushVirqs = new AtomicLong();
    /** Entries left unread in the buffers of destroyed domains (their daemons never drained them). */
    private final AtomicLong undrainedAtDestroy = new AtomicLong();
    /** Domains destroyed during the host's life, for messages (Xen itself just finds no domain). */
    private final Set<Integer> destroyed = ConcurrentHashMap.newKeySet();
    private final AtomicLong controlVirqsDelivered = new AtomicLong();
    private final AtomicLong controlVirqsUnbound = new AtomicLong();
    private final Deque<String> log = new ArrayDeque<>();
    private final Map<Long, CallRecord> records = new HashMap<>();

    private record CallRecord(long result, String text) {
    }

    public XenoprofCore(Machine machine) {
        if (machine == null) {
            throw new IllegalArgumentException("Xenoprof needs the machine it runs on; got null");
        }
        this.machine = machine;
        this.framePointers = machine.hypervisorFramePointers();
        this.guide = new SessionGuide(this, machine);
        Arrays.fill(activeDomains, NOBODY);
        Arrays.fill(passiveDomains, NOBODY);
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
        if (!callbackInstalled) {
            return 0;
        }
        PcpuSampler s = sampler(pcpu);
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
                XenoprofDomain x = lookup(domid);
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
        if (!callbackInstalled) {
            return 0;
        }
        PcpuSampler s = sampler(pcpu);
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
        PcpuSampler[] all = samplers;
        if (pcpu >= all.length) {
            return;
        }
        PcpuSampler s = all[pcpu];
        if (!s.virqPending) {
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

    private PcpuSampler sampler(int pcpu) {
        PcpuSampler[] all = samplers;
        if (pcpu < 0 || pcpu >= all.length) {
            throw new IllegalArgumentException("NMI on pcpu " + pcpu + ": the host has " + all.length
                    + " physical CPUs (0.." + (all.length - 1) + ")");
        }
        return all[pcpu];
    }

    /** {@code d->xenoprof} of {@code domid}, or null; lock-free (the NMI path reads it). */
    XenoprofDomain lookup(int domid) {
        return domid >= 0 && domid < DOMID_FIRST_RESERVED ? domains.get(domid) : null;
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
            throw new IllegalArgumentException("domain " + callerDomid + (wasDestroyed(callerDomid)
                    ? " was destroyed, so it issues no more XENOPROF hypercalls"
                    : " does not exist on this host, so it cannot issue XENOPROF hypercalls"));
        }
        long result;
        int[] flush;
        synchronized (lock) {
            XenoprofState before = state;
            HypercallOutcome outcome = dispatch(callerDomid, op, arg);
            result = outcome.result();
            XenoprofOp xop = XenoprofOp.ofNumber(op);
            if (result < 0) {
                addLog("(XEN) xenoprof: operation " + op + " failed: " + result);
            }
            if (xop != null) {
                String text = guide.describeCall(callerDomid, xop, result, before, outcome.why(), outcome.next(),
                        outcome.effect());
                records.put(key(callerDomid, xop), new CallRecord(result, text));
            }
            flush = outcome.flushTargets();
        }
        if (flush != null) {
            deliverFlush(flush);
        }
        return result;
    }

    private HypercallOutcome dispatch(int caller, int op, Object arg) {
        XenoprofOp xop = XenoprofOp.ofNumber(op);
        if (xop == null) {
            return fail(Errno.EINVAL, "op " + op + " is outside 0.." + XenoprofOp.LAST_OP
                    + " (XENOPROF_last_op)", "use one of the 18 XENOPROF operations");
        }
        if (xop.privileged() && caller != primary) {
            return notPrimary(caller, xop);
        }
        switch (xop) {
            case INIT:
                return init(caller, arg);
            case RESET_ACTIVE_LIST:
                resetActiveList();
                return succeeded("active list emptied (adomains = activated = 0)");
            case RESET_PASSIVE_LIST:
                int had = pdomains;
                resetPassiveList();
                return succeeded(had + " passive domain(s) returned to IGNORED and unshared from domain " + caller);
            case SET_ACTIVE:
                return setActive(caller, arg);
            case SET_PASSIVE:
                return setPassive(caller, arg);
            case RESERVE_COUNTERS:
                return reserveCounters();
            case COUNTER:
                return counter(arg);
            case SETUP_EVENTS:
                return setupEvents();
            case ENABLE_VIRQ:
                return enableVirq(caller);
            case START:
                return start();
            case STOP:
                return stop();
            case DISABLE_VIRQ:
                return disableVirq(caller);
            case RELEASE_COUNTERS:
                return releaseCounters();
            case SHUTDOWN:
                return shutdown();
            case GET_BUFFER:
                return getBuffer(caller, arg);
            case SET_BACKTRACE:
                return setBacktrace(arg);
            case GET_IBS_CAPS:
                return getIbsCaps();
            case IBS_COUNTER:
                return ibsCounter(arg);
            default:
                return failed(Errno.ENOSYS, null, null);
        }
    }

    private HypercallOutcome init(int caller, Object arg) {
        if (!(arg instanceof XenoprofInit)) {
            return badArgument(XenoprofOp.INIT, "XenoprofInit (struct xenoprof_init)", arg);
        }
        PmuModel model = machine.model();
        if (model == null) {
            return fail(Errno.ENODEV, "this host has no CPU model Xenoprof supports (no local APIC, or an "
                    + "unsupported vendor/family/model), so Xen's initcall had already logged "
                    + "\"xenoprof: Initialization failed\"; a Linux guest falls back to timer mode "
                    + "(\"oprofile: using timer interrupt.\")",
                    "load a scenario whose host has a CPU model with a PMU bundle installed");
        }
        XenoprofInit out = (XenoprofInit) arg;
        boolean isPrimary = primary == caller || primary == NOBODY && machine.hardwareDomain(caller);
        String cpuType = model.cpuType();
        if (cpuType.length() > XenoprofInit.CPU_TYPE_SIZE - 1) {
            cpuType = cpuType.substring(0, XenoprofInit.CPU_TYPE_SIZE - 1);
        }
        out.numEvents = model.counterCount();
        out.cpuType = cpuType;
        out.isPrimary = isPrimary ? 1 : 0;
        if (isPrimary) {
            XenoprofState before = state;
            primary = caller;
            state = XenoprofState.INITIALIZED;
            String quirk = "";
            if (before == XenoprofState.COUNTERS_RESERVED || before == XenoprofState.READY
                    || before == XenoprofState.PROFILING) {
                quirk = "; note: the counters were not released (Xen's init forces INITIALIZED from any state):"
                        + " the LAPIC NMI stays reserved"
                        + (before == XenoprofState.PROFILING ? " and the counters keep running" : "");
            }
            return succeeded("domain " + caller + " is the primary profiler; num_events="
                    + out.numEvents + ", cpu_type=" + cpuType + quirk);
        }
        return succeeded("is_primary=0: domain " + caller + " is not the primary ("
                + (primary == NOBODY ? "only the hardware domain may become primary"
                        : "the primary is domain " + primary)
                + "); num_events=" + out.numEvents + ", cpu_type=" + cpuType
                + "; it may profile itself once the primary lists it as active");
    }

    private HypercallOutcome setActive(int caller, Object arg) {
        if (state != XenoprofState.INITIALIZED) {
            return wrongState(XenoprofOp.SET_ACTIVE);
        }
        if (!(arg instanceof Integer)) {
            return badArgument(XenoprofOp.SET_ACTIVE, "Integer domain id (domid_t)", arg);
        }
        if (adomains >= MAX_OPROF_DOMAINS) {
            return fail(Errno.E2BIG, "the active list already holds " + MAX_OPROF_DOMAINS
                    + " entries (MAX_OPROF_DOMAINS)",
                    "domain " + caller + " calls reset_active_list and lists at most " + MAX_OPROF_DOMAINS
                            + " domains");
        }
        int domid = ((Integer) arg) & 0xFFFF;
        if (domid >= DOMID_FIRST_RESERVED || !machine.domainExists(domid)) {
            return fail(Errno.EINVAL, "no domain " + domid + " exists (set_active takes a 16-bit domid_t)"
                    + destroyedNote(domid), "domain " + caller + " lists only existing domains");
        }
        activeDomains[adomains] = domid;
        activeReady[adomains] = false;
        adomains++;
        return succeeded("domain " + domid + " appended to the active list (now " + listText(activeList())
                + "); it is not ready until it calls enable_virq");
    }

    private HypercallOutcome setPassive(int caller, Object arg) {
        if (state != XenoprofState.INITIALIZED) {
            return wrongState(XenoprofOp.SET_PASSIVE);
        }
        if (pdomains >= MAX_OPROF_DOMAINS) {
            return fail(Errno.E2BIG, "the passive list already holds " + MAX_OPROF_DOMAINS
                    + " domains (MAX_OPROF_DOMAINS)",
                    "domain " + caller + " calls reset_passive_list and lists at most " + MAX_OPROF_DOMAINS
                            + " domains");
        }
        if (!(arg instanceof XenoprofPassive)) {
            return badArgument(XenoprofOp.SET_PASSIVE, "XenoprofPassive (struct xenoprof_passive)", arg);
        }
        XenoprofPassive passive = (XenoprofPassive) arg;
        int domid = passive.domainId & 0xFFFF;
        if (domid >= DOMID_FIRST_RESERVED || !machine.domainExists(domid)) {
            return fail(Errno.EINVAL, "no domain " + domid + " exists (domain_id is a 16-bit domid_t)"
                    + destroyedNote(domid), "domain " + caller + " lists only existing domains as passive");
        }
        XenoprofDomain x = lookup(domid);
        if (x == null) {
            x = XenoprofDomain.allocate(domid, machine.vcpuCount(domid), passive.maxSamples);
            if (x == null) {
                return fail(Errno.ENOMEM, "domain " + domid + " has no vCPU, so its buffers cannot be allocated"
                        + " (Xen reports every allocation failure of set_passive as -ENOMEM)",
                        "domain " + caller + " lists a domain that has vCPUs");
            }
            domains.set(domid, x);
        }
        if (x.sharedWith != NOBODY) {
            return pagesStillShared(x, caller);
        }
        x.share(caller, "set_passive");
        x.type = DomainType.PASSIVE;
        passive.nbuf = x.buffers.length;
        passive.bufsize = x.bufsize;
        if (machine.hvm(caller)) {
            addLog("(XEN) xenoprof unsupported with autotranslated guests");
        } else {
            passive.bufGmaddr = x.machineAddress;
        }
        passiveDomains[pdomains++] = domid;
        return succeeded("domain " + domid + " is PASSIVE: " + x.buffers.length + " buffer(s) of " + x.bufsize
                + " bytes (" + x.maxSamples + " slots each) at machine address 0x" + Long.toHexString(x.machineAddress)
                + ", shared with domain " + caller + tooFewSlots(x));
    }

    /**
     * What a domain's buffers of fewer than 2 slots mean (one slot always stays empty): they hold no
     * sample, and Xen keeps them, whatever later calls ask for, until the domain is destroyed.
     */
    private static String tooFewSlots(XenoprofDomain x) {
        if (x.maxSamples >= 2) {
            return "";
        }
        return "; buffers of " + x.maxSamples + " slot" + (x.maxSamples == 1 ? "" : "s") + " hold no sample (one"
                + " slot always stays empty): every sample for domain " + x.domid + " will be counted as "
                + (x.maxSamples == 0 ? "corrupted" : "lost") + ", and Xen keeps these buffers, whatever later"
                + " get_buffer or set_passive calls ask for, until domain " + x.domid + " is destroyed";
    }

    private HypercallOutcome reserveCounters() {
        if (state != XenoprofState.INITIALIZED) {
            return wrongState(XenoprofOp.RESERVE_COUNTERS);
        }
        if (lapicNmiReserved) {
            return fail(Errno.EBUSY, "the LAPIC NMI is still reserved: the primary re-ran init while the counters"
                    + " were reserved, and only release_counters frees it, which Xen refuses outside"
                    + " COUNTERS_RESERVED and READY",
                    "nothing in Xenoprof can free it any more: reload the host (reboot) to profile again");
        }
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).reserve();
        }
        lapicNmiReserved = true;
        state = XenoprofState.COUNTERS_RESERVED;
        return succeeded("saved the counter and control registers of " + n + " pCPU(s) and reserved the LAPIC NMI");
    }

    private HypercallOutcome counter(Object arg) {
        if (state != XenoprofState.COUNTERS_RESERVED || adomains == 0) {
            return counterRefused(XenoprofOp.COUNTER);
        }
        if (!(arg instanceof XenoprofCounter)) {
            return badArgument(XenoprofOp.COUNTER, "XenoprofCounter (struct xenoprof_counter)", arg);
        }
        XenoprofCounter c = (XenoprofCounter) arg;
        if (!CounterSettings.storable(c.ind)) {
            return fail(Errno.E2BIG, "counter index " + Integer.toUnsignedString(c.ind) + " is not below "
                    + CounterSettings.OP_MAX_COUNTER + " (OP_MAX_COUNTER)" + modelCounterNote(),
                    "domain " + primary + " configures counters 0.." + (modelCounters() - 1));
        }
        counters.store(c);
        return succeeded(String.format("counter %d stored: %s event 0x%02x count %d unit mask 0x%02x%s%s", c.ind,
                c.enabled != 0 ? "enabled," : "disabled,", c.event, c.count, c.unitMask, c.kernel != 0 ? " kernel" : "",
                c.user != 0 ? " user" : "")
                + (c.ind >= modelCounters() ? " (Xen stores it, but this model has only " + modelCounters()
                        + " counters, so setup_events will not program it)" : ""));
    }

    private HypercallOutcome setupEvents() {
        if (state != XenoprofState.COUNTERS_RESERVED) {
            return wrongState(XenoprofOp.SETUP_EVENTS);
        }
        PmuModel model = machine.model();
        if (model == null) {
            return fail(Errno.ENODEV, "the host's CPU model is gone, so there is nothing to program",
                    "reload the host with a CPU model whose bundle is installed");
        }
        CounterConfig[] configs = counters.build(model);
        int n = machine.pcpuCount();
        boolean ibs = ibsConfig != null && ibsCaps() != 0;
        if (ibs) {
            // Before the counters, so that a configuration the model refuses leaves no pCPU half programmed.
            for (int c = 0; c < n; c++) {
                try {
                    machine.pmu(c).setupIbs(ibsConfig);
                } catch (IllegalArgumentException | IllegalStateException e) {
                    return fail(Errno.EINVAL, "the CPU model refuses the stored IBS configuration on pCPU " + c + ": "
                            + e.getMessage() + " (Xen would program it unchecked; the simulated part cannot)",
                            "domain " + primary + " stores a valid configuration with ibs_counter (it needs"
                                    + " release_counters and reserve_counters first) and calls setup_events again");
                }
            }
        }
        for (int c = 0; c < n; c++) {
            machine.pmu(c).setup(configs.clone());
        }
        programmed = configs;
        state = XenoprofState.READY;
        StringBuilder b = new StringBuilder("programmed " + configs.length + " counter(s) on " + n + " pCPU(s)");
        for (CounterConfig cc : configs) {
            b.append("; counter ").append(cc.counter()).append(": ").append(cc.event().name()).append(" count ")
                    .append(cc.count());
        }
        if (ibs) {
            b.append("; IBS programmed: op ").append(ibsConfig.opEnabled() ? "on" : "off").append(", fetch ")
                    .append(ibsConfig.fetchEnabled() ? "on" : "off");
        }
        return succeeded(b.toString());
    }

    private HypercallOutcome enableVirq(int caller) {
        String primaryPart = "";
        if (caller == primary) {
            if (state != XenoprofState.READY) {
                return wrongState(XenoprofOp.ENABLE_VIRQ);
            }
            installCallback();
            for (int i = 0; i < pdomains; i++) {
                XenoprofDomain p = lookup(passiveDomains[i]);
                if (p != null) {
                    p.resetIndices();
                }
            }
            primaryPart = "NMI callback installed, statistics reset, passive buffers emptied; ";
        }
        XenoprofDomain x = lookup(caller);
        if (x == null) {
            addLog("(XEN) xenoprof_reset_buf: ERROR - Unexpected Xenoprof NULL pointer");
        } else {
            x.resetIndices();
        }
        int ind = activeIndex(caller);
        if (ind < 0) {
            return enableVirqNotListed(caller, primaryPart);
        }
        if (x == null) {
            return fail(Errno.EPERM, beforeCheck(primaryPart) + "domain " + caller
                    + " is in the active list but has no buffer: get_buffer was never called",
                    "domain " + caller + " runs `opcontrol --start-daemon` (get_buffer, then enable_virq)");
        }
        x.ready = true;
        x.type = DomainType.ACTIVE;
        activeReady[ind] = true;
        activated++;
        return succeeded(primaryPart + "domain " + caller + " is ACTIVE (ready " + Integer.toUnsignedString(activated)
                + " of " + adomains + " listed)");
    }

    private void installCallback() {
        int n = machine.pcpuCount();
        PcpuSampler[] all = samplers;
        if (all.length != n) {
            all = new PcpuSampler[n];
            for (int c = 0; c < n; c++) {
                all[c] = new PcpuSampler(c, this, framePointers);
            }
            samplers = all;
        } else {
            for (PcpuSampler s : all) {
                // xenoprof_reset_stat: a new session's statistics start from zero.
                s.resetCounts();
            }
        }
        callbackInstalled = true;
    }

    private HypercallOutcome start() {
        if (state != XenoprofState.READY || activated != adomains) {
            if (state != XenoprofState.READY) {
                return wrongState(XenoprofOp.START);
            }
            return fail(Errno.EPERM, guide.notAllActivated(), guide.readyNextStep());
        }
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).start();
        }
        state = XenoprofState.PROFILING;
        return succeeded("counters enabled and LVTPC routed to NMI on " + n + " pCPU(s)"
                + (adomains == 0 ? "; note: the active list is empty, so no domain is profiled"
                        + (pdomains == 0 ? "" : " except the passive ones") : ""));
    }

    private HypercallOutcome stop() {
        if (state != XenoprofState.PROFILING) {
            return wrongState(XenoprofOp.STOP);
        }
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).stop();
        }
        // The flush: every vCPU of every ready active domain gets VIRQ_XENOPROF, delivered after the lock.
        List<Integer> targets = new ArrayList<>();
        for (int i = 0; i < adomains; i++) {
            if (!activeReady[i] || activeDomains[i] == NOBODY) {
                continue;
            }
            int d = activeDomains[i];
            int vcpus = machine.domainExists(d) ? machine.vcpuCount(d) : 0;
            for (int v = 0; v < vcpus; v++) {
                targets.add(d);
                targets.add(v);
            }
        }
        int[] flushTargets = targets.stream().mapToInt(Integer::intValue).toArray();
        flushVirqs.addAndGet(flushTargets.length / 2);
        state = XenoprofState.READY;
        return succeeded("counters stopped and LVTPC restored on " + n + " pCPU(s); VIRQ_XENOPROF"
                + " sent to " + flushTargets.length / 2 + " vCPU(s) of the ready active domains to flush their buffers")
                .flushing(flushTargets);
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

    private HypercallOutcome disableVirq(int caller) {
        XenoprofDomain x = lookup(caller);
        if (state == XenoprofState.PROFILING && x != null && x.type == DomainType.ACTIVE) {
            return fail(Errno.EPERM, "domain " + caller + " is ACTIVE and the session is PROFILING: disable_virq is"
                    + " refused while profiling (the guest kernel WARNs and unmaps its buffer, but Xen keeps the"
                    + " pages shared and the domain ACTIVE)",
                    (primary == NOBODY ? "the primary" : "domain " + primary) + " stops profiling first (`opcontrol"
                            + " --stop` in domain " + guide.primaryOrHardware() + "), then domain " + caller
                            + " runs `opcontrol --shutdown`");
        }
        int ind = activeIndex(caller);
        if (ind < 0 || x == null) {
            String reason = ind < 0 ? "domain " + caller + " is not in the active list ("
                    + listText(activeList()) + ")" : "domain " + caller + " has no buffer";
            return fail(Errno.EPERM, reason + ", so there is nothing to disable; its buffer pages, if any, stay"
                    + " shared", "nothing to undo for domain " + caller + " (it is not in the session); "
                            + guide.nextStep());
        }
        resetActive(caller, ind, x);
        if (x.sharedWith == caller) {
            x.unshare();
        }
        pmuOwnedByXenoprof = false;
        return succeeded("domain " + caller + " is IGNORED and left the active list (ready "
                + Integer.toUnsignedString(activated) + " of " + adomains
                + " listed); its pages are unshared and the PMU is released");
    }

    private HypercallOutcome releaseCounters() {
        if (state != XenoprofState.COUNTERS_RESERVED && state != XenoprofState.READY) {
            return wrongState(XenoprofOp.RELEASE_COUNTERS);
        }
        state = XenoprofState.INITIALIZED;
        int n = machine.pcpuCount();
        for (int c = 0; c < n; c++) {
            machine.pmu(c).release();
        }
        lapicNmiReserved = false;
        callbackInstalled = false;
        int had = pdomains;
        resetPassiveList();
        return succeeded("registers restored on " + n + " pCPU(s), LAPIC NMI released, NMI callback removed"
                + (had > 0 ? ", " + had + " passive domain(s) reset" : ""));
    }

    private HypercallOutcome shutdown() {
        if (state != XenoprofState.INITIALIZED) {
            return wrongState(XenoprofOp.SHUTDOWN);
        }
        int was = primary;
        activated = 0;
        adomains = 0;
        primary = NOBODY;
        backtraceDepth = 0;
        return succeeded("domain " + was + " is no longer primary; lists and call-trace depth cleared; the state stays"
                + " INITIALIZED (nothing returns to IDLE)");
    }

    private HypercallOutcome getBuffer(int caller, Object arg) {
        if (machine.hvmVpmuOwnsPmu()) {
            return fail(Errno.EBUSY, "the HVM vPMU owns the PMU (an HVM guest is using its virtual counters), so"
                    + " Xenoprof cannot acquire it; the daemon of domain " + caller + " reports \"Failed to open"
                    + " profile device: Device or resource busy\"",
                    "the HVM guest stops using its vPMU (or the host runs without vpmu), then domain " + caller
                            + " runs `opcontrol --start-daemon` again");
        }
        pmuOwnedByXenoprof = true;
        if (!(arg instanceof XenoprofGetBuffer)) {
            return badArgument(XenoprofOp.GET_BUFFER, "XenoprofGetBuffer (struct xenoprof_get_buffer)", arg);
        }
        XenoprofGetBuffer gb = (XenoprofGetBuffer) arg;
        XenoprofDomain x = lookup(caller);
        boolean allocated = false;
        if (x == null) {
            x = XenoprofDomain.allocate(caller, machine.vcpuCount(caller), gb.maxSamples);
            if (x == null) {
                return fail(Errno.EINVAL, "domain " + caller + " has no vCPU", "only a domain with vCPUs can"
                        + " have Xenoprof buffers");
            }
            domains.set(caller, x);
            allocated = true;
        } else {
            // Xen makes the domain IGNORED before it checks the share (quirk e).
            x.type = DomainType.IGNORED;
        }
        if (x.sharedWith != NOBODY) {
            return pagesStillShared(x, caller);
        }
        x.share(caller, "get_buffer");
        x.resetIndices();
        gb.nbuf = x.buffers.length;
        gb.bufsize = x.bufsize;
        String where;
        if (machine.hvm(caller)) {
            addLog("(XEN) xenoprof unsupported with autotranslated guests");
            where = "; domain " + caller + " is an HVM guest: no usable buffer address (it cannot be active on x86)";
        } else {
            gb.bufGmaddr = x.machineAddress;
            where = " at machine address 0x" + Long.toHexString(x.machineAddress);
        }
        return succeeded((allocated ? "allocated " : "re-shared ") + x.buffers.length + " buffer(s) of " + x.bufsize
                + " bytes (" + x.maxSamples + " slots each)" + where + ", shared with domain " + caller
                + ", head/tail zeroed; the PMU is owned by Xenoprof" + tooFewSlots(x));
    }

    private HypercallOutcome setBacktrace(Object arg) {
        if (!(arg instanceof Long)) {
            return badArgument(XenoprofOp.SET_BACKTRACE, "Long depth (unsigned long)", arg);
        }
        backtraceDepth = (Long) arg;
        return succeeded("call-trace depth is now " + Long.toUnsignedString(backtraceDepth));
    }

    private HypercallOutcome ibsCounter(Object arg) {
        if (state != XenoprofState.COUNTERS_RESERVED || adomains == 0) {
            return counterRefused(XenoprofOp.IBS_COUNTER);
        }
        if (!(arg instanceof XenoprofIbsCounter)) {
            return badArgument(XenoprofOp.IBS_COUNTER, "XenoprofIbsCounter (struct xenoprof_ibs_counter)", arg);
        }
        XenoprofIbsCounter c = (XenoprofIbsCounter) arg;
        // Each field is a uint64 flag or count: any non-zero flag is set, as C tests them.
        ibsConfig = new IbsConfig(c.opEnabled != 0, c.fetchEnabled != 0, c.maxCntFetch, c.maxCntOp, c.randEn != 0,
                c.dispatchedOps != 0);
        return succeeded("IBS configuration stored: op sampling " + (ibsConfig.opEnabled() ? "on, period "
                + Long.toUnsignedString(c.maxCntOp) : "off") + ", fetch sampling " + (ibsConfig.fetchEnabled()
                        ? "on, period " + Long.toUnsignedString(c.maxCntFetch) : "off")
                + (ibsCaps() != 0 ? "; setup_events programs it on every pCPU"
                        : "; this CPU model has no IBS (capabilities 0), so it has no effect"));
    }

    /** {@code get_ibs_caps}: the model's IBS capability bits as a non-negative return value, 0 without IBS. */
    private HypercallOutcome getIbsCaps() {
        long caps = ibsCaps();
        return succeeded(caps, caps == 0 ? "no IBS on this CPU model: capabilities 0"
                : "IBS capabilities 0x" + Long.toHexString(caps) + " (CPUID 0x8000001B EAX)");
    }

    /** The model's IBS capability bits, masked to a non-negative value (CPUID EAX is 32 bits); 0 without a model. */
    private long ibsCaps() {
        PmuModel model = machine.model();
        return model == null ? 0 : model.ibsCapabilities() & 0xFFFF_FFFFL;
    }

    /** The stored IBS configuration, or null before any {@code ibs_counter}. */
    public IbsConfig ibsConfig() {
        synchronized (lock) {
            return ibsConfig;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // List helpers (Xen's active_index, reset_active, reset_*_list)
    // ---------------------------------------------------------------------------------------------

    private int activeIndex(int domid) {
        for (int i = 0; i < adomains; i++) {
            if (activeDomains[i] == domid) {
                return i;
            }
        }
        return -1;
    }

    /** {@code reset_active}: the domain leaves the session; its list slot is cleared, not removed. */
    private void resetActive(int domid, int ind, XenoprofDomain x) {
        x.ready = false;
        x.type = DomainType.IGNORED;
        activeReady[ind] = false;
        activeDomains[ind] = NOBODY;
        activated--;
        if (activated == 0) {
            adomains = 0;
        }
    }

    private void resetActiveList() {
        // adomains is re-read every round: it drops to 0 when activated reaches 0, as in Xen.
        for (int i = 0; i < adomains; i++) {
            if (activeReady[i]) {
                int d = activeDomains[i];
                int ind = activeIndex(d);
                XenoprofDomain x = lookup(d);
                if (ind >= 0 && x != null) {
                    resetActive(d, ind, x);
                }
            }
        }
        adomains = 0;
        activated = 0;
    }

    private void resetPassiveList() {
        for (int i = 0; i < pdomains; i++) {
            XenoprofDomain x = lookup(passiveDomains[i]);
            if (x != null) {
                // IGNORED first, so no sample lands while the pages are being unshared.
                x.type = DomainType.IGNORED;
                x.unshare();
            }
            passiveDomains[i] = NOBODY;
        }
        pdomains = 0;
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
        destroyed.add(domid);
        synchronized (lock) {
            XenoprofDomain x = lookup(domid);
            long undrained = 0;
            if (x != null) {
                x.type = DomainType.IGNORED;
                domains.set(domid, null);
                for (XenoprofBuffer b : x.buffers) {
                    undrained += b.unread();
                }
                undrainedAtDestroy.addAndGet(undrained);
            }
            int w = 0;
            int readyLeft = 0;
            for (int i = 0; i < adomains; i++) {
                if (activeDomains[i] == domid) {
                    if (activeReady[i]) {
                        activated--;
                    }
                    continue;
                }
                activeDomains[w] = activeDomains[i];
                activeReady[w] = activeReady[i];
                if (activeReady[w]) {
                    readyLeft++;
                }
                w++;
            }
            for (int i = w; i < adomains; i++) {
                activeDomains[i] = NOBODY;
                activeReady[i] = false;
            }
            adomains = w;
            int p = 0;
            for (int i = 0; i < pdomains; i++) {
                if (passiveDomains[i] != domid) {
                    passiveDomains[p++] = passiveDomains[i];
                }
            }
            for (int i = p; i < pdomains; i++) {
                passiveDomains[i] = NOBODY;
            }
            pdomains = p;
            if (primary == domid) {
                primary = NOBODY;
            }
            for (int d = 0; d < DOMID_FIRST_RESERVED; d++) {
                XenoprofDomain other = domains.get(d);
                if (other != null && other.sharedWith == domid) {
                    other.unshare();
                }
            }
            if (domid >= 0 && domid < DOMID_FIRST_RESERVED) {
                handlers.set(domid, null);
            }
            addLog("(XEN) xenoprof: domain " + domid + " destroyed: buffers freed"
                    + (undrained > 0 ? " with " + undrained + " entries never drained" : "") + ", " + readyLeft
                    + " ready active domain(s) remain");
        }
    }

    @Override
    public SharedBuffer[] mapBuffers(int mapperDomid, int ownerDomid) {
        synchronized (lock) {
            XenoprofDomain x = lookup(ownerDomid);
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
                String now = x.sharedWith == NOBODY ? "they are not shared with anyone (never shared, or unshared"
                        + " by disable_virq or reset_passive_list)"
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
                    + (wasDestroyed(domid) ? " was destroyed" : " does not exist on this host"));
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
        return state;
    }

    @Override
    public int primary() {
        return primary;
    }

    @Override
    public DomainType domainType(int domid) {
        XenoprofDomain x = lookup(domid);
        return x == null ? DomainType.IGNORED : x.type;
    }

    @Override
    public int activeListSize() {
        synchronized (lock) {
            return adomains;
        }
    }

    /** {@code activated}; Xen's counter is unsigned, so a decrement below 0 shows as -1 here. */
    @Override
    public int activated() {
        synchronized (lock) {
            return activated;
        }
    }

    /**
     * The active list. A slot cleared by a domain's {@code disable_virq} while others stay
     * activated shows as -1 (Xen's NULL entry) until the list is reset.
     */
    @Override
    public int[] activeList() {
        synchronized (lock) {
            return Arrays.copyOf(activeDomains, adomains);
        }
    }

    @Override
    public int[] passiveList() {
        synchronized (lock) {
            return Arrays.copyOf(passiveDomains, pdomains);
        }
    }

    /** {@code backtrace_depth} as Xen keeps it (unsigned long); lock-free (the NMI path reads it). */
    long rawBacktraceDepth() {
        return backtraceDepth;
    }

    /** {@code backtrace_depth}, saturated at {@link Integer#MAX_VALUE} (Xen's is an unsigned long). */
    @Override
    public int backtraceDepth() {
        long d = backtraceDepth;
        return d < 0 || d > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) d;
    }

    /** Whether the NMI callback is installed (primary's enable_virq, until release_counters). */
    public boolean nmiCallbackInstalled() {
        return callbackInstalled;
    }

    /** Whether Xenoprof holds PMU ownership (from get_buffer until a disable_virq releases it). */
    public boolean xenoprofOwnsPmu() {
        synchronized (lock) {
            return pmuOwnedByXenoprof;
        }
    }

    /** The configurations the last setup_events programmed on every pCPU. */
    public CounterConfig[] programmedCounters() {
        synchronized (lock) {
            return programmed.clone();
        }
    }

    /** Entry {@code i} of the active list, -1 for a slot cleared by disable_virq. */
    int activeSlot(int i) {
        synchronized (lock) {
            return activeDomains[i];
        }
    }

    /** Whether entry {@code i} of the active list has called enable_virq. */
    boolean activeSlotReady(int i) {
        synchronized (lock) {
            return activeReady[i];
        }
    }

    /**
     * The hypervisor's view of a domain's buffers (one per vCPU), shared or not, or an empty array
     * when the domain has none: for diagnostics and accounting checks, not for guests (they map).
     */
    public XenoprofBuffer[] buffers(int domid) {
        XenoprofDomain x = lookup(domid);
        return x == null ? new XenoprofBuffer[0] : x.buffers.clone();
    }

    private boolean wasDestroyed(int domid) {
        return destroyed.contains(domid);
    }

    private String destroyedNote(int domid) {
        return wasDestroyed(domid) ? "; domain " + domid + " was destroyed during the session (xl destroy), and Xen"
                + " treats it like any domain that does not exist" : "";
    }

    /** Entries left unread in the buffers of destroyed domains, summed over the host's life. */
    public long undrainedAtDestroy() {
        return undrainedAtDestroy.get();
    }

    /** Whether the domain has Xenoprof buffers (get_buffer or set_passive allocated them). */
    boolean hasBuffers(int domid) {
        return lookup(domid) != null;
    }

    /** Whether the LAPIC NMI is reserved (from reserve_counters until release_counters). */
    boolean lapicNmiReserved() {
        synchronized (lock) {
            return lapicNmiReserved;
        }
    }

    @Override
    public XenoprofStatistics statistics() {
        long[] t = sum();
        return new XenoprofStatistics(t[TOTAL], t[ACTIVE], t[PASSIVE], t[LOST], t[OTHERS], t[IDLE], t[INVALID],
                t[CORRUPTED]);
    }

    /** The counters of {@link XenoprofDiagnostics} and Xen's console lines. */
    public XenoprofDiagnostics diagnostics() {
        long[] t = sum();
        List<String> lines;
        synchronized (lock) {
            lines = new ArrayList<>(log);
        }
        return new XenoprofDiagnostics(t[GUEST_ROUTED], t[POLICY_DROPPED], t[TRACE_LOST], t[TRACE_CORRUPTED],
                t[TRACE_ESCAPE], t[VIRQ_RAISED], t[VIRQ_COALESCED], t[VIRQ_DELIVERED] + controlVirqsDelivered.get(),
                t[VIRQ_UNBOUND] + controlVirqsUnbound.get(), flushVirqs.get(), t[TOTAL], t[LOST], t[INVALID],
                t[CORRUPTED], t[IBS_BLOCKS], t[IBS_ENTRIES], lines);
    }

    private long[] sum() {
        return PcpuSampler.sum(samplers);
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

    private HypercallOutcome fail(Errno errno, String reason, String nextStep) {
        return failed(errno, reason, nextStep);
    }

    private HypercallOutcome badArgument(XenoprofOp op, String expected, Object got) {
        return fail(Errno.EFAULT, op.cName() + " expects a " + expected + " argument, got "
                + (got == null ? "null" : "a " + got.getClass().getSimpleName())
                + ": to Xen that is a bad guest pointer", "call it again with a " + expected);
    }

    private HypercallOutcome notPrimary(int caller, XenoprofOp op) {
        String hw = guide.hardwareDomainName();
        if (primary == NOBODY) {
            String who = machine.hardwareDomain(caller) ? ""
                    : "; domain " + caller + " can never become primary: only the hardware domain can";
            return fail(Errno.EPERM, "no primary profiler yet: " + hw + " must call init first; " + opName(op)
                    + " is reserved to the primary" + who,
                    hw + " runs `opcontrol --init` (init), then " + opcontrolOf(op) + " in " + hw);
        }
        String driverNote = op == XenoprofOp.START || op == XenoprofOp.STOP
                ? " (a non-primary domain's `opcontrol --" + opName(op) + "` makes no hypercall)" : "";
        return fail(Errno.EPERM, "only the primary (domain " + primary + ") may call " + opName(op) + "; domain "
                + caller + " is not the primary" + driverNote, "domain " + primary + " runs " + opcontrolOf(op));
    }

    private HypercallOutcome wrongState(XenoprofOp op) {
        return fail(Errno.EPERM, opName(op) + " is only legal in " + legalText(op) + "; the session is in "
                + state + stateBecause(state), guide.wrongStateNext(op));
    }

    private HypercallOutcome counterRefused(XenoprofOp op) {
        if (state == XenoprofState.COUNTERS_RESERVED) {
            return fail(Errno.EPERM, opName(op) + " needs a non-empty active list, but adomains is 0 (nobody"
                    + " was listed, or reset_active_list emptied the list)",
                    "domain " + primary + " runs release_counters (`opcontrol --shutdown` in domain " + primary
                            + "), lists the active domains with set_active, and starts the daemon again");
        }
        return wrongState(op);
    }

    private HypercallOutcome enableVirqNotListed(int caller, String primaryPart) {
        int hw = guide.primaryOrHardware();
        String prefix = beforeCheck(primaryPart);
        if (primary == NOBODY) {
            return fail(Errno.EPERM, prefix + "no primary profiler yet: domain " + hw + " must call init first,"
                    + " then list domain " + caller + " as active; enable_virq needs the caller in the active list",
                    "domain " + hw + " runs `opcontrol --start-daemon --active-domains="
                            + guide.activeDomainsWith(caller) + "`; then domain " + caller
                            + " runs `opcontrol --start-daemon`");
        }
        String listing = "domain " + primary + " adds domain " + caller + " with set_active (`opcontrol"
                + " --start-daemon --active-domains=" + guide.activeDomainsWith(caller) + "` in domain " + primary
                + ")";
        String order = state == XenoprofState.INITIALIZED ? ""
                : ", which is only possible in INITIALIZED (the session is in " + state + ": "
                        + guide.stepsTo(XenoprofState.INITIALIZED) + ")";
        return fail(Errno.EPERM, prefix + "domain " + caller + " is not in the active list ("
                + listText(activeList()) + "); enable_virq needs the caller to be"
                + " listed by the primary, so the daemon of domain " + caller + " exits with \"Failed to open"
                + " profile device: Operation not permitted\"",
                listing + order + "; then domain " + caller + " runs `opcontrol --start-daemon`");
    }

    private HypercallOutcome pagesStillShared(XenoprofDomain x, int caller) {
        String holder = "domain " + x.sharedWith;
        String undo;
        if ("set_passive".equals(x.sharedBy)) {
            undo = holder + " (the primary) removes domain " + x.domid + " from the passive list with"
                    + " reset_passive_list, or release_counters does it (`opcontrol --shutdown` in " + holder + ")";
        } else {
            undo = holder + " calls disable_virq (`opcontrol --shutdown` in " + holder + ") so Xen unshares them";
        }
        String quirk = x.sharedWith == caller && "get_buffer".equals(x.sharedBy) && x.domid == caller
                ? "; Xen made domain " + caller + " IGNORED before this check and keeps the PMU owned by Xenoprof" : "";
        return fail(Errno.EBUSY, "the buffer pages of domain " + x.domid + " are still shared with " + holder
                + " by an earlier " + x.sharedBy + quirk, undo + ", before the pages can be shared again");
    }

    private int modelCounters() {
        PmuModel m = machine.model();
        return m == null ? 0 : m.counterCount();
    }

    private String modelCounterNote() {
        return "; this model has " + modelCounters() + " counters; stored so far: "
                + counters.describe(modelCounters());
    }

    private void addLog(String line) {
        if (log.size() == LOG_LINES) {
            log.removeFirst();
        }
        log.addLast(line);
    }
}
