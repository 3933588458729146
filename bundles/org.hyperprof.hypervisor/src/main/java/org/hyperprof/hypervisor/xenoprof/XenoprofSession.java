package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.failed;
import static org.hyperprof.hypervisor.xenoprof.HypercallOutcome.succeeded;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.badArgument;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.beforeCheck;
import static org.hyperprof.hypervisor.xenoprof.SessionGuide.listText;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.DOMID_FIRST_RESERVED;
import static org.hyperprof.hypervisor.xenoprof.XenoprofCore.MAX_OPROF_DOMAINS;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * The session as xen/common/xenoprof.c keeps it: the state, the primary, each domain's
 * {@code d->xenoprof}, the active and passive lists and the call-trace depth, with the hypercalls
 * that change them ({@code init}, the list operations, {@code get_buffer}, {@code enable_virq},
 * {@code disable_virq}, {@code shutdown}, {@code set_backtrace}). The counter operations are
 * {@link CounterControl}'s; the words of the refusals are {@link SessionGuide}'s.
 *
 * <p>Written under the core's lock; the NMI path reads the state, the domain table and the
 * call-trace depth lock-free.
 */
final class XenoprofSession {
    private static final int NOBODY = XenoprofDomain.NOBODY;

    private final Machine machine;
    private final SessionGuide guide;
    private final XenConsole console;

    /** {@code d->xenoprof} by domain id; read lock-free on the NMI path. */
    private final AtomicReferenceArray<XenoprofDomain> domains = new AtomicReferenceArray<>(DOMID_FIRST_RESERVED);
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
    private boolean pmuOwnedByXenoprof;

    /** Domains destroyed during the host's life, for messages (Xen itself just finds no domain). */
    private final Set<Integer> destroyed = ConcurrentHashMap.newKeySet();
    /** Entries left unread in the buffers of destroyed domains (their daemons never drained them). */
    private final AtomicLong undrainedAtDestroy = new AtomicLong();

    XenoprofSession(Machine machine, SessionGuide guide, XenConsole console) {
        this.machine = machine;
        this.guide = guide;
        this.console = console;
        Arrays.fill(activeDomains, NOBODY);
        Arrays.fill(passiveDomains, NOBODY);
    }

    // ---------------------------------------------------------------------------------------------
    // The hypercalls of the session
    // ---------------------------------------------------------------------------------------------

    HypercallOutcome init(int caller, Object arg) {
        if (!(arg instanceof XenoprofInit)) {
            return badArgument(XenoprofOp.INIT, "XenoprofInit (struct xenoprof_init)", arg);
        }
        PmuModel model = machine.model();
        if (model == null) {
            return failed(Errno.ENODEV, "this host has no CPU model Xenoprof supports (no local APIC, or an "
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

    HypercallOutcome setActive(int caller, Object arg) {
        if (state != XenoprofState.INITIALIZED) {
            return guide.wrongState(XenoprofOp.SET_ACTIVE);
        }
        if (!(arg instanceof Integer)) {
            return badArgument(XenoprofOp.SET_ACTIVE, "Integer domain id (domid_t)", arg);
        }
        if (adomains >= MAX_OPROF_DOMAINS) {
            return failed(Errno.E2BIG, "the active list already holds " + MAX_OPROF_DOMAINS
                    + " entries (MAX_OPROF_DOMAINS)",
                    "domain " + caller + " calls reset_active_list and lists at most " + MAX_OPROF_DOMAINS
                            + " domains");
        }
        int domid = ((Integer) arg) & 0xFFFF;
        if (domid >= DOMID_FIRST_RESERVED || !machine.domainExists(domid)) {
            return failed(Errno.EINVAL, "no domain " + domid + " exists (set_active takes a 16-bit domid_t)"
                    + destroyedNote(domid), "domain " + caller + " lists only existing domains");
        }
        activeDomains[adomains] = domid;
        activeReady[adomains] = false;
        adomains++;
        return succeeded("domain " + domid + " appended to the active list (now " + listText(activeList())
                + "); it is not ready until it calls enable_virq");
    }

    HypercallOutcome setPassive(int caller, Object arg) {
        if (state != XenoprofState.INITIALIZED) {
            return guide.wrongState(XenoprofOp.SET_PASSIVE);
        }
        if (pdomains >= MAX_OPROF_DOMAINS) {
            return failed(Errno.E2BIG, "the passive list already holds " + MAX_OPROF_DOMAINS
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
            return failed(Errno.EINVAL, "no domain " + domid + " exists (domain_id is a 16-bit domid_t)"
                    + destroyedNote(domid), "domain " + caller + " lists only existing domains as passive");
        }
        XenoprofDomain x = lookup(domid);
        if (x == null) {
            x = XenoprofDomain.allocate(domid, machine.vcpuCount(domid), passive.maxSamples);
            if (x == null) {
                return failed(Errno.ENOMEM, "domain " + domid + " has no vCPU, so its buffers cannot be allocated"
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
            console.print("(XEN) xenoprof unsupported with autotranslated guests");
        } else {
            passive.bufGmaddr = x.machineAddress;
        }
        passiveDomains[pdomains++] = domid;
        return succeeded("domain " + domid + " is PASSIVE: " + x.buffers.length + " buffer(s) of " + x.bufsize
                + " bytes (" + x.maxSamples + " slots each) at machine address 0x" + Long.toHexString(x.machineAddress)
                + ", shared with domain " + caller + tooFewSlots(x));
    }

    /** {@code reset_active_list}: no state check; resets only the ready entries' domains, as Xen does. */
    HypercallOutcome resetActiveList() {
        // adomains is re-read every round: it drops to 0 when activated reaches 0, as in Xen.
        for (int i = 0; i < adomains; i++) {
            if (activeReady[i]) {
                int d = activeDomains[i];
                int ind = activeIndex(d);
                XenoprofDomain x = lookup(d);
                if (ind >= 0 && x != null) {
                    resetActive(ind, x);
                }
            }
        }
        adomains = 0;
        activated = 0;
        return succeeded("active list emptied (adomains = activated = 0)");
    }

    /** {@code reset_passive_list}: no state check. */
    HypercallOutcome resetPassiveList(int caller) {
        int had = clearPassiveList();
        return succeeded(had + " passive domain(s) returned to IGNORED and unshared from domain " + caller);
    }

    HypercallOutcome getBuffer(int caller, Object arg) {
        String holder = machine.guestsHoldPmu();
        if (holder != null) {
            return failed(Errno.EBUSY, holder + ", so Xenoprof cannot acquire it; the daemon of domain " + caller
                    + " reports \"Failed to open profile device: Device or resource busy\"",
                    "profile the guests with their own profilers instead (hp:profile --guests-only), or load the"
                            + " host under a policy that leaves Xenoprof counters (--host-option"
                            + " vpmu.policy=systemwide, or vpmu.policy=partitioned to share them) and domain " + caller
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
                return failed(Errno.EINVAL, "domain " + caller + " has no vCPU", "only a domain with vCPUs can"
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
            console.print("(XEN) xenoprof unsupported with autotranslated guests");
            where = "; domain " + caller + " is an HVM guest: no usable buffer address (it cannot be active on x86)";
        } else {
            gb.bufGmaddr = x.machineAddress;
            where = " at machine address 0x" + Long.toHexString(x.machineAddress);
        }
        return succeeded((allocated ? "allocated " : "re-shared ") + x.buffers.length + " buffer(s) of " + x.bufsize
                + " bytes (" + x.maxSamples + " slots each)" + where + ", shared with domain " + caller
                + ", head/tail zeroed; the PMU is owned by Xenoprof" + tooFewSlots(x));
    }

    /** {@code enable_virq}: the primary's call installs the NMI {@code callback} first. */
    HypercallOutcome enableVirq(int caller, NmiCallback callback) {
        String primaryPart = "";
        if (caller == primary) {
            if (state != XenoprofState.READY) {
                return guide.wrongState(XenoprofOp.ENABLE_VIRQ);
            }
            callback.install(this, machine.pcpuCount());
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
            console.print("(XEN) xenoprof_reset_buf: ERROR - Unexpected Xenoprof NULL pointer");
        } else {
            x.resetIndices();
        }
        int ind = activeIndex(caller);
        if (ind < 0) {
            return guide.enableVirqNotListed(caller, primaryPart);
        }
        if (x == null) {
            return failed(Errno.EPERM, beforeCheck(primaryPart) + "domain " + caller
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

    HypercallOutcome disableVirq(int caller) {
        XenoprofDomain x = lookup(caller);
        if (state == XenoprofState.PROFILING && x != null && x.type == DomainType.ACTIVE) {
            return failed(Errno.EPERM, "domain " + caller + " is ACTIVE and the session is PROFILING: disable_virq is"
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
            return failed(Errno.EPERM, reason + ", so there is nothing to disable; its buffer pages, if any, stay"
                    + " shared", "nothing to undo for domain " + caller + " (it is not in the session); "
                            + guide.nextStep());
        }
        resetActive(ind, x);
        if (x.sharedWith == caller) {
            x.unshare();
        }
        pmuOwnedByXenoprof = false;
        return succeeded("domain " + caller + " is IGNORED and left the active list (ready "
                + Integer.toUnsignedString(activated) + " of " + adomains
                + " listed); its pages are unshared and the PMU is released");
    }

    HypercallOutcome shutdown() {
        if (state != XenoprofState.INITIALIZED) {
            return guide.wrongState(XenoprofOp.SHUTDOWN);
        }
        int was = primary;
        activated = 0;
        adomains = 0;
        primary = NOBODY;
        backtraceDepth = 0;
        return succeeded("domain " + was + " is no longer primary; lists and call-trace depth cleared; the state stays"
                + " INITIALIZED (nothing returns to IDLE)");
    }

    HypercallOutcome setBacktrace(Object arg) {
        if (!(arg instanceof Long)) {
            return badArgument(XenoprofOp.SET_BACKTRACE, "Long depth (unsigned long)", arg);
        }
        backtraceDepth = (Long) arg;
        return succeeded("call-trace depth is now " + Long.toUnsignedString(backtraceDepth));
    }

    // ---------------------------------------------------------------------------------------------
    // Lists (Xen's active_index, reset_active, reset_passive_list) and the state the counter side moves
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
    private void resetActive(int ind, XenoprofDomain x) {
        x.ready = false;
        x.type = DomainType.IGNORED;
        activeReady[ind] = false;
        activeDomains[ind] = NOBODY;
        activated--;
        if (activated == 0) {
            adomains = 0;
        }
    }

    /** Every passive domain back to IGNORED and unshared; how many were listed. */
    int clearPassiveList() {
        int had = pdomains;
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
        return had;
    }

    /** The (domain, vCPU) pairs of every vCPU of the ready active domains: {@code stop}'s flush. */
    int[] readyActiveVcpus() {
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
        return targets.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The counter side's state change (reserve, setup, start, stop, release). */
    void moveTo(XenoprofState next) {
        state = next;
    }

    // ---------------------------------------------------------------------------------------------
    // Destroyed domains
    // ---------------------------------------------------------------------------------------------

    /**
     * A domain is destroyed: its buffers are freed, it leaves the lists (both are compacted, and
     * {@code activated} loses its ready entries), pages shared with it are unshared, and if it was
     * the primary the session has no primary any more.
     */
    void domainDestroyed(int domid) {
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
        console.print("(XEN) xenoprof: domain " + domid + " destroyed: buffers freed"
                + (undrained > 0 ? " with " + undrained + " entries never drained" : "") + ", " + readyLeft
                + " ready active domain(s) remain");
    }

    /** Notes a destroyed domain for messages; lock-free, so a call racing the destruction already hears of it. */
    void markDestroyed(int domid) {
        destroyed.add(domid);
    }

    boolean wasDestroyed(int domid) {
        return destroyed.contains(domid);
    }

    private String destroyedNote(int domid) {
        return wasDestroyed(domid) ? "; domain " + domid + " was destroyed during the session (xl destroy), and Xen"
                + " treats it like any domain that does not exist" : "";
    }

    /** Entries left unread in the buffers of destroyed domains, summed over the host's life. */
    long undrainedAtDestroy() {
        return undrainedAtDestroy.get();
    }

    // ---------------------------------------------------------------------------------------------
    // Buffers in words
    // ---------------------------------------------------------------------------------------------

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

    private static HypercallOutcome pagesStillShared(XenoprofDomain x, int caller) {
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
        return failed(Errno.EBUSY, "the buffer pages of domain " + x.domid + " are still shared with " + holder
                + " by an earlier " + x.sharedBy + quirk, undo + ", before the pages can be shared again");
    }

    // ---------------------------------------------------------------------------------------------
    // Queries (the core takes its lock around those that are not lock-free)
    // ---------------------------------------------------------------------------------------------

    /** {@code d->xenoprof} of {@code domid}, or null; lock-free (the NMI path reads it). */
    XenoprofDomain lookup(int domid) {
        return domid >= 0 && domid < DOMID_FIRST_RESERVED ? domains.get(domid) : null;
    }

    XenoprofState state() {
        return state;
    }

    int primary() {
        return primary;
    }

    int adomains() {
        return adomains;
    }

    int activated() {
        return activated;
    }

    int pdomains() {
        return pdomains;
    }

    int[] activeList() {
        return Arrays.copyOf(activeDomains, adomains);
    }

    int[] passiveList() {
        return Arrays.copyOf(passiveDomains, pdomains);
    }

    boolean activeSlotReady(int i) {
        return activeReady[i];
    }

    /** {@code backtrace_depth} as Xen keeps it (unsigned long); lock-free (the NMI path reads it). */
    long rawBacktraceDepth() {
        return backtraceDepth;
    }

    boolean pmuOwnedByXenoprof() {
        return pmuOwnedByXenoprof;
    }
}
