package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.IbsConfig;
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

/**
 * One domain's Xenoprof driver and its oprofiled: what the guest kernel keeps (whether the driver
 * is loaded, whether it is the primary, the mapped buffers, the passive domains it mapped, the
 * VIRQ binding, the call-trace depth), and the daemon ({@link Oprofiled}) that drains the buffers
 * on {@code VIRQ_XENOPROF}.
 *
 * <p>The step methods ({@link #startDaemon} ...) run under the profiler's lock and issue exactly the
 * hypercalls the XenLinux driver issued for each opcontrol step, in the same order, as this domain.
 * Draining is the {@link Oprofiled}'s, under its own monitor; it never makes a hypercall.
 *
 * <p>Isolation: a daemon maps only its own buffers ({@code mapBuffers(self, self)}), and the
 * primary in addition those of the passive domains Xen accepted with {@code set_passive}. Every
 * sample carries the id of the domain whose buffer held it.
 */
final class DomainDaemon {

    /** The Linux driver created per-counter files for at most this many counters ({@code OP_MAX_COUNTER}). */
    static final int MAX_COUNTERS = 8;

    final int domid;
    final String name;
    final boolean hvm;
    private final Host host;
    private final Xenoprof xenoprof;
    /** The driver's and the daemon's words for people. */
    final DaemonGuide guide;
    /** The daemon that reads the buffers this driver maps. */
    private final Oprofiled oprofiled;

    // The guest kernel's driver state.
    private boolean loaded;
    private boolean primary;
    private int numEvents;
    private String cpuType = "";
    private int nbuf;
    private int bufsize;
    private boolean virqBound;
    private boolean started;
    /** The driver's {@code active_defined}: the active_domains file was written since the last release. */
    private boolean activeDefined;
    /**
     * Xen refused this domain's disable_virq when its daemon was shut down (it was active while the
     * primary profiled): its pages are still shared with it. Hyperprof's driver retries the call at
     * the next --shutdown; the XenLinux driver had no way to.
     */
    private boolean disableRefused;
    /** The driver's {@code backtrace_depth} of this daemon run. */
    private int callgraph;
    private List<CounterConfig> counters = List.of();

    DomainDaemon(Host host, DomainInfo domain, Xenoprof xenoprof, Supplier<Session> sessions) {
        this.host = host;
        this.domid = domain.domid();
        this.name = domain.name();
        this.hvm = domain.hvm();
        this.xenoprof = xenoprof;
        this.guide = new DaemonGuide(this, host, xenoprof);
        this.oprofiled = new Oprofiled(domid, host, xenoprof, sessions, guide);
    }

    boolean loaded() {
        return loaded;
    }

    boolean primary() {
        return primary;
    }

    boolean running() {
        return oprofiled.running();
    }

    boolean started() {
        return started;
    }

    boolean held() {
        return oprofiled.held();
    }

    boolean gone() {
        return oprofiled.gone();
    }

    String cpuType() {
        return cpuType;
    }

    List<CounterConfig> counters() {
        return counters;
    }

    BufferReader[] readers() {
        return oprofiled.readers();
    }

    /** The passive domains the driver has mapped now (primary only). */
    PassiveDomain[] passives() {
        return oprofiled.passives();
    }

    // ---------------------------------------------------------------- opcontrol steps

    /** Module load ({@code opcontrol --init}): XENOPROF_init; learns is_primary, num_events, cpu_type. */
    void init(StepLog log) throws StepLog.StepFailed {
        XenoprofInit init = new XenoprofInit();
        log.call(XenoprofOp.INIT, init, "&init");
        loaded = true;
        primary = init.isPrimary != 0;
        numEvents = init.numEvents;
        oprofiled.numEvents(numEvents);
        cpuType = init.cpuType == null ? "" : init.cpuType;
        log.line("  -> num_events " + numEvents + ", cpu_type " + cpuType + ", is_primary " + init.isPrimary
                + (primary ? " (domain " + domid + " coordinates the session)" : ""));
    }

    /** What {@code --start-daemon} asks of the driver, parsed and checked. */
    record Settings(CounterConfig[] configs, int[] activeIds, int[] passiveIds, List<String> passiveImages,
            int maxSamples, int callgraph) {
    }

    /**
     * {@code --start-daemon}: the parameter writes (the active and passive lists, primary only),
     * then what the daemon's open of {@code /dev/oprofile/buffer} does in the driver (§8.2).
     */
    void startDaemon(StepLog log, Settings settings) throws StepLog.StepFailed {
        if (oprofiled.running()) {
            throw log.fail(guide.alreadyRunning());
        }
        if (!loaded) {
            init(log);
        }
        if (primary) {
            PassiveView.KernelImage[] images = settings.passiveIds() == null ? null
                    : PassiveImages.check(log, this::domainOrNull, settings.passiveIds(),
                            settings.passiveImages());
            if (settings.activeIds() != null) {
                writeActiveDomains(log, settings.activeIds());
            }
            if (settings.passiveIds() != null) {
                writePassiveDomains(log, settings.passiveIds(), images);
            }
        } else {
            guide.ignoredInGuest(log, settings);
        }
        if (!oprofiled.mapped()) {
            oprofiled.freezeRetired();
            XenoprofGetBuffer gb = new XenoprofGetBuffer(settings.maxSamples());
            long r = log.callTolerant(XenoprofOp.GET_BUFFER, gb, "{max_samples " + settings.maxSamples() + "}");
            if (r < 0) {
                guide.getBufferRefused(log, r, disableRefused);
                throw new StepLog.StepFailed();
            }
            log.line("  -> nbuf " + gb.nbuf + ", bufsize " + gb.bufsize + ", buf_gmaddr 0x" + Long.toHexString(gb.bufGmaddr));
            mapOwn(log, gb);
        }
        try {
            xenoprof.bindVirq(domid, oprofiled);
        } catch (RuntimeException e) {
            throw log.fail("binding VIRQ_XENOPROF of domain " + domid + " failed: " + e.getMessage());
        }
        virqBound = true;
        log.line("  bind VIRQ_XENOPROF (" + VirqHandler.VIRQ_XENOPROF + ") on every vCPU of domain " + domid);
        try {
            if (primary) {
                if (!activeDefined) {
                    // No list was written: the driver makes the primary the only active domain.
                    log.call(XenoprofOp.RESET_ACTIVE_LIST, null, null);
                    log.call(XenoprofOp.SET_ACTIVE, domid, Integer.toString(domid));
                }
                setBacktrace(log, settings.callgraph());
                log.call(XenoprofOp.RESERVE_COUNTERS, null, null);
                configureCounters(log, settings.configs());
                log.call(XenoprofOp.SETUP_EVENTS, null, null);
            }
            oprofiled.freezeRetired();
            log.call(XenoprofOp.ENABLE_VIRQ, null, null);
            oprofiled.ringsReset(primary);
        } catch (StepLog.StepFailed f) {
            unbind(log);
            log.line(guide.profileDeviceNotOpened());
            throw f;
        }
        oprofiled.run();
        started = false;
        log.line("Daemon started (domain " + domid + ", " + name + ", " + (primary ? "primary" : "not primary")
                + ", " + nbuf + " buffer(s) of " + oprofiled.bufferSlots() + " slots"
                + (primary && oprofiled.hasPassives() ? "; passive domains " + oprofiled.passiveIds() : "")
                + (primary && callgraph > 0 ? "; call traces of depth " + callgraph : "") + ").");
    }

    private void writeActiveDomains(StepLog log, int[] ids) throws StepLog.StepFailed {
        log.line("  write '" + joined(ids) + "' to " + OpcontrolCommand.ACTIVE_FILE + ":");
        log.call(XenoprofOp.RESET_ACTIVE_LIST, null, null);
        boolean hasSelf = false;
        try {
            for (int id : ids) {
                hasSelf |= id == domid;
                log.call(XenoprofOp.SET_ACTIVE, id, Integer.toString(id));
            }
            if (!hasSelf) {
                // The driver always keeps the coordinator active: listing 0 is optional.
                log.call(XenoprofOp.SET_ACTIVE, domid, Integer.toString(domid));
            }
        } catch (StepLog.StepFailed f) {
            activeDefined = false;
            log.callTolerant(XenoprofOp.RESET_ACTIVE_LIST, null, null);
            log.line("  the write to " + OpcontrolCommand.ACTIVE_FILE + " fails with " + StepLog.describe(-22)
                    + "; the driver emptied the active list again");
            throw f;
        }
        activeDefined = true;
        guide.warnActiveList(log, ids);
    }

    /**
     * The passive_domains write (§8.2): reset_passive_list, unmap the old list, then set_passive
     * with max_samples 2048 for each id and map the buffers Xen shares with this (the primary)
     * domain. When a set_passive fails after others succeeded, Hyperprof's driver empties Xen's
     * passive list again (as the active_domains write does), so that Xen never fills passive
     * buffers no daemon maps; the write fails with -EINVAL.
     */
    private void writePassiveDomains(StepLog log, int[] ids, PassiveView.KernelImage[] images)
            throws StepLog.StepFailed {
        log.line("  write '" + joined(ids) + "' to " + OpcontrolCommand.PASSIVE_FILE + ":");
        long reset = log.callTolerant(XenoprofOp.RESET_PASSIVE_LIST, null, null);
        unmapPassive(log);
        if (reset < 0) {
            throw passiveWriteFailed(log);
        }
        List<PassiveDomain> mapped = new ArrayList<>();
        for (int k = 0; k < ids.length; k++) {
            int id = ids[k];
            XenoprofPassive p = new XenoprofPassive(id, OpcontrolCommand.PASSIVE_MAX_SAMPLES);
            long r = log.callTolerant(XenoprofOp.SET_PASSIVE, p, "{domain_id " + id + ", max_samples "
                    + OpcontrolCommand.PASSIVE_MAX_SAMPLES + "}");
            if (r < 0) {
                guide.passiveSetFailed(log, id, r);
                abandonPassiveWrite(log, mapped, k > 0);
                throw passiveWriteFailed(log);
            }
            log.line("  -> nbuf " + p.nbuf + ", bufsize " + p.bufsize + ", buf_gmaddr 0x" + Long.toHexString(p.bufGmaddr));
            BufferReader[] rs;
            if (id == domid) {
                log.line(guide.primaryListedAsPassive(id));
                abandonPassiveWrite(log, mapped, true);
                throw passiveWriteFailed(log);
            }
            try {
                rs = mapPassiveBuffers(id);
            } catch (RuntimeException e) {
                log.line("  mapping the buffers of passive domain " + id + " failed: " + e.getMessage());
                abandonPassiveWrite(log, mapped, true);
                throw passiveWriteFailed(log);
            }
            DomainInfo d = domainOrNull(id);
            mapped.add(new PassiveDomain(id, d == null ? "domain " + id : d.name(), rs,
                    images == null || k >= images.length ? null : images[k]));
            log.line("  map " + rs.length + " buffer(s) of passive domain " + id + " (vcpu_id "
                    + Arrays.toString(Arrays.stream(rs).mapToInt(b -> b.vcpu).toArray()) + ", " + (rs.length == 0 ? 0
                            : rs[0].size) + " slots each)" + DaemonGuide.imageText(images, k, id));
            noteTooFewSlots(log, id, rs);
        }
        oprofiled.mapPassives(mapped.toArray(new PassiveDomain[0]));
        guide.warnPassiveList(log, ids);
    }

    private StepLog.StepFailed passiveWriteFailed(StepLog log) {
        return log.fail("  the write to " + OpcontrolCommand.PASSIVE_FILE + " fails with " + StepLog.describe(-22)
                + "; the driver's passive list is empty");
    }

    /** Undoes the mappings of a failed write; empties Xen's list again when part of it had been accepted. */
    private void abandonPassiveWrite(StepLog log, List<PassiveDomain> mapped, boolean xenHasSome) {
        for (PassiveDomain p : mapped) {
            oprofiled.retire(p.readers);
        }
        if (xenHasSome) {
            log.callTolerant(XenoprofOp.RESET_PASSIVE_LIST, null, null);
        }
    }

    /**
     * Writes the domain lists at once ({@code opcontrol --active-domains=... --passive-domains=...}
     * without an action, like {@code echo ids > /dev/oprofile/active_domains}). In a non-primary
     * domain the files silently do nothing.
     */
    void writeLists(StepLog log, int[] activeIds, int[] passiveIds) throws StepLog.StepFailed {
        PassiveView.KernelImage[] images = passiveIds == null ? null : new PassiveView.KernelImage[passiveIds.length];
        if (!loaded) {
            init(log);
        }
        if (!primary) {
            guide.ignoredInGuest(log, new Settings(null, activeIds, passiveIds, List.of(), 0, 0));
            return;
        }
        XenoprofState before = xenState();
        boolean reserved = before != XenoprofState.INITIALIZED && before != XenoprofState.IDLE;
        try {
            if (activeIds != null) {
                writeActiveDomains(log, activeIds);
            }
            if (passiveIds != null) {
                writePassiveDomains(log, passiveIds, images);
            }
        } catch (StepLog.StepFailed f) {
            if (reserved && activeIds != null) {
                log.line(guide.listsResetWhileReserved(before));
            }
            throw f;
        }
        log.line("Written" + (oprofiled.running() ? "; the running daemon's session now profiles " + guide.xenoprofListsText()
                : "; domain " + domid + "'s --start-daemon uses them") + ".");
    }

    private void mapOwn(StepLog log, XenoprofGetBuffer gb) throws StepLog.StepFailed {
        SharedBuffer[] shared;
        try {
            shared = xenoprof.mapBuffers(domid, domid);
        } catch (RuntimeException e) {
            throw log.fail("mapping the buffers of domain " + domid + " failed: " + e.getMessage());
        }
        BufferReader[] rs = new BufferReader[shared.length];
        for (int i = 0; i < shared.length; i++) {
            rs[i] = new BufferReader(domid, shared[i]);
        }
        nbuf = gb.nbuf;
        bufsize = gb.bufsize;
        oprofiled.map(rs);
        log.line("  map " + shared.length + " buffer(s) of domain " + domid + " (vcpu_id "
                + Arrays.toString(Arrays.stream(rs).mapToInt(r -> r.vcpu).toArray()) + ", " + oprofiled.bufferSlots()
                + " slots each)");
        noteTooFewSlots(log, domid, rs);
    }

    /** Buffers that can hold no sample say so when they are mapped, with what to do. */
    private static void noteTooFewSlots(StepLog log, int owner, BufferReader[] rs) {
        if (rs.length > 0 && rs[0].size < 2) {
            log.note(BufferReader.tooFewSlotsText(owner, rs[0].size));
        }
    }

    /** Only the primary maps another domain's buffers, and only after Xen accepted it as passive. */
    private BufferReader[] mapPassiveBuffers(int owner) {
        if (!primary || owner == domid) {
            throw new IllegalStateException("domain " + domid + " may map the buffers of domain " + owner
                    + " only as the primary, after set_passive");
        }
        SharedBuffer[] shared = xenoprof.mapBuffers(domid, owner);
        BufferReader[] rs = new BufferReader[shared.length];
        for (int i = 0; i < shared.length; i++) {
            rs[i] = new BufferReader(owner, shared[i]);
        }
        return rs;
    }

    /**
     * The driver's backtrace setup: set_backtrace before reserve_counters when a depth is asked
     * for; Xen refusing it leaves the driver without call traces (its depth back to 0).
     */
    private void setBacktrace(StepLog log, int depth) {
        callgraph = Math.max(0, depth);
        if (callgraph > 0) {
            long r = log.callOptional(XenoprofOp.SET_BACKTRACE, (long) callgraph, Integer.toString(callgraph));
            if (r < 0) {
                log.note(DaemonGuide.depthRefused());
                callgraph = 0;
            }
        } else {
            int now = depthNow();
            if (now > 0) {
                log.note(guide.depthStillSet(now));
            }
        }
    }

    private void configureCounters(StepLog log, CounterConfig[] configs) throws StepLog.StepFailed {
        int n = Math.min(numEvents, MAX_COUNTERS);
        CounterConfig[] byIndex = new CounterConfig[n];
        PmuModel model = host.model();
        for (CounterConfig c : configs) {
            if (model != null && model.ibsSample(c) != 0) {
                // Sampled by IBS (ibs_counter below), not by a counter.
                continue;
            }
            if (c.counter() < 0 || c.counter() >= n) {
                throw log.fail("event " + c.event().name() + " was given counter " + c.counter() + ", but Xenoprof has "
                        + n + " counters (num_events); give fewer events");
            }
            byIndex[c.counter()] = c;
        }
        for (int i = 0; i < n; i++) {
            XenoprofCounter x = new XenoprofCounter();
            x.ind = i;
            CounterConfig c = byIndex[i];
            if (c != null) {
                x.count = c.count();
                x.enabled = 1;
                x.event = c.event().code();
                x.kernel = c.kernel() ? 1 : 0;
                x.user = c.user() ? 1 : 0;
                // Xen ignores the hypervisor flag; the driver filled it like the kernel flag.
                x.hypervisor = x.kernel;
                x.unitMask = c.unitMask();
                log.call(XenoprofOp.COUNTER, x, "{ind " + i + ", " + c.event().name() + " (0x"
                        + Integer.toHexString(c.event().code()) + "), count " + c.count() + ", unit_mask 0x"
                        + Long.toHexString(c.unitMask()) + ", kernel " + x.kernel + ", user " + x.user + ", enabled 1}");
            } else {
                log.call(XenoprofOp.COUNTER, x, "{ind " + i + ", enabled 0}");
            }
        }
        IbsConfig ibs = model == null ? null : model.ibsConfig(List.of(configs));
        if (ibs != null) {
            configureIbs(log, ibs);
        }
        counters = List.of(configs);
    }

    /**
     * The IBS events' settings, as the XenLinux driver wrote its ibs_fetch and ibs_op files: first
     * get_ibs_caps (the driver offers IBS only where the CPU has it; the dispatched_ops file only
     * where the CPU can count dispatched ops, and opcontrol refused bit 0 of the unit mask without
     * it), then ibs_counter.
     */
    private void configureIbs(StepLog log, IbsConfig ibs) throws StepLog.StepFailed {
        long caps = log.call(XenoprofOp.GET_IBS_CAPS, null, null);
        log.line(String.format("  -> IBS capabilities 0x%x", caps));
        String missing = IbsCaps.missing(caps, ibs);
        if (missing != null) {
            throw log.fail(missing);
        }
        XenoprofIbsCounter x = new XenoprofIbsCounter();
        x.fetchEnabled = ibs.fetchEnabled() ? 1 : 0;
        x.maxCntFetch = ibs.maxCntFetch();
        x.opEnabled = ibs.opEnabled() ? 1 : 0;
        x.maxCntOp = ibs.maxCntOp();
        x.randEn = ibs.randomize() ? 1 : 0;
        x.dispatchedOps = ibs.dispatchedOps() ? 1 : 0;
        log.call(XenoprofOp.IBS_COUNTER, x, "{fetch_enabled " + x.fetchEnabled + ", max_cnt_fetch " + x.maxCntFetch
                + ", op_enabled " + x.opEnabled + ", max_cnt_op " + x.maxCntOp + ", rand_en " + x.randEn
                + ", dispatched_ops " + x.dispatchedOps + "}");
    }

    /** {@code --start}: only the primary's driver makes a hypercall. */
    void start(StepLog log) throws StepLog.StepFailed {
        requireRunning(log, "--start");
        if (started) {
            log.line("Profiler already running.");
            return;
        }
        if (primary) {
            log.call(XenoprofOp.START, null, null);
        } else {
            log.note(guide.startNotPrimary());
            guide.explainPrivileged(log, XenoprofOp.START);
        }
        started = true;
        log.line("Profiler running.");
    }

    /** {@code --stop}: the primary's stop hypercall; Xen flushes every active domain with a VIRQ. */
    void stop(StepLog log) throws StepLog.StepFailed {
        requireRunning(log, "--stop");
        if (!started) {
            log.line("Profiler not running.");
            return;
        }
        if (primary) {
            log.call(XenoprofOp.STOP, null, null);
            log.line("  Xen sent VIRQ_XENOPROF to every vCPU of every active domain: their daemons drained"
                    + (oprofiled.hasPassives() ? " (the primary's drain includes the passive domains)" : ""));
        } else {
            log.note(guide.stopNotPrimary());
        }
        started = false;
        log.line("Stopping profiling.");
    }

    /**
     * {@code --shutdown}: stop (primary, if sampling), drain, disable_virq, release_counters
     * (primary), unbind, unmap (the primary's passive list too). Like the driver's release path it
     * goes through every step even when one fails, and then reports the failure.
     */
    void shutdown(StepLog log) throws StepLog.StepFailed {
        if (!oprofiled.running()) {
            if (disableRefused) {
                retryDisable(log);
                return;
            }
            log.line("Daemon not running (domain " + domid + ").");
            return;
        }
        boolean ok = true;
        if (started && primary) {
            ok &= log.callTolerant(XenoprofOp.STOP, null, null) >= 0;
        }
        started = false;
        if (oprofiled.held()) {
            log.line("  the daemon of domain " + domid + " is held (--hold): it is killed without reading its buffers;"
                    + " " + oprofiled.pendingEntries() + " entries stay in them, counted undrained");
        } else {
            int entries = oprofiled.drainAll(true);
            log.line("  drained " + entries + " entries left in the buffers of domain " + domid
                    + (oprofiled.hasPassives() ? " and of its passive domains" : ""));
        }
        XenoprofState before = xenState();
        long disabled = log.callTolerant(XenoprofOp.DISABLE_VIRQ, null, null);
        ok &= disabled >= 0;
        if (disabled == Errno.EPERM.ret() && !primary && before == XenoprofState.PROFILING) {
            guide.activeGuestWarning(log);
            disableRefused = true;
        }
        if (primary) {
            ok &= log.callTolerant(XenoprofOp.RELEASE_COUNTERS, null, null) >= 0;
            activeDefined = false;
        }
        unbind(log);
        unmap(log);
        unmapPassive(log);
        oprofiled.kill();
        log.line("Killing daemon (domain " + domid + ").");
        if (!ok) {
            throw new StepLog.StepFailed();
        }
    }

    /**
     * {@code --shutdown} after a refused disable_virq: Hyperprof's driver issues it again so that
     * Xen unshares the pages (once the primary has stopped profiling).
     */
    private void retryDisable(StepLog log) throws StepLog.StepFailed {
        log.line(guide.retryingDisable());
        long r = log.callTolerant(XenoprofOp.DISABLE_VIRQ, null, null);
        if (r >= 0) {
            disableRefused = false;
            log.line("Domain " + domid + " left the session; its pages are unshared and it may start its daemon again.");
            return;
        }
        throw new StepLog.StepFailed();
    }

    /** {@code --deinit}: shut the daemon down if needed, unmap, and in the primary give up the role. */
    void deinit(StepLog log) throws StepLog.StepFailed {
        boolean ok = true;
        try {
            shutdown(log);
        } catch (StepLog.StepFailed f) {
            ok = false;
        }
        if (oprofiled.mapped()) {
            unmap(log);
        }
        unmapPassive(log);
        if (loaded && primary) {
            ok &= log.callTolerant(XenoprofOp.SHUTDOWN, null, null) >= 0;
        }
        loaded = false;
        primary = false;
        activeDefined = false;
        log.line("Driver unloaded (domain " + domid + ").");
        if (!ok) {
            throw new StepLog.StepFailed();
        }
    }

    /** {@code --hold} (simulation control): the daemon stops reading its buffers. */
    void hold(StepLog log) throws StepLog.StepFailed {
        requireRunning(log, "--hold");
        if (oprofiled.held()) {
            log.line(guide.alreadyHeld());
            return;
        }
        oprofiled.hold();
        log.line(guide.held(oprofiled.hasPassives(), oprofiled.passiveIds()));
    }

    /** {@code --release} (simulation control): a held daemon reads again and drains at once. */
    void release(StepLog log) throws StepLog.StepFailed {
        requireRunning(log, "--release");
        if (!oprofiled.held()) {
            log.line(guide.notHeld());
            return;
        }
        oprofiled.release();
        int n = oprofiled.drainAll(false);
        log.line("Released: the daemon of domain " + domid + " reads its buffers again and drained " + n + " entries.");
    }

    private void requireRunning(StepLog log, String step) throws StepLog.StepFailed {
        if (!oprofiled.running()) {
            throw log.fail(guide.notRunning(step));
        }
    }

    private void unbind(StepLog log) {
        if (virqBound) {
            try {
                xenoprof.unbindVirq(domid);
                log.line("  unbind VIRQ_XENOPROF of domain " + domid);
            } catch (RuntimeException e) {
                log.line("  unbinding VIRQ_XENOPROF of domain " + domid + " failed: " + e.getMessage());
            }
            virqBound = false;
        }
    }

    private void unmap(StepLog log) {
        BufferReader[] rs = oprofiled.unmap();
        if (rs != null) {
            oprofiled.retire(rs);
            if (Session.roleOf(xenoprof, domid) != DomainType.ACTIVE) {
                freeze(rs);
            }
            log.line("  unmap the buffers of domain " + domid);
        }
    }

    /**
     * What a let-go reader left unread is fixed at once when Xen no longer writes into its buffer
     * (the domain is no longer active or passive): another domain's later hypercall (a get_buffer, a
     * primary's enable_virq) may reset those indices without this daemon knowing.
     */
    private static void freeze(BufferReader[] rs) {
        for (BufferReader r : rs) {
            r.freeze();
        }
    }

    /** The driver's unmap_passive_list. */
    private void unmapPassive(StepLog log) {
        PassiveDomain[] ps = oprofiled.unmapPassives();
        if (ps.length > 0) {
            for (PassiveDomain p : ps) {
                oprofiled.retire(p.readers);
                if (Session.roleOf(xenoprof, p.domid) != DomainType.PASSIVE) {
                    freeze(p.readers);
                }
            }
            log.line("  unmap the buffers of passive domain(s) " + Arrays.toString(Arrays.stream(ps)
                    .mapToInt(p -> p.domid).toArray()));
        }
    }

    /** The host is gone: forget the binding without touching the hypervisor. */
    void abandon() {
        oprofiled.abandon();
        started = false;
        virqBound = false;
    }

    /** Unbinds the VIRQ handler on deactivation, without hypercalls. */
    void detach() {
        if (virqBound) {
            try {
                xenoprof.unbindVirq(domid);
            } catch (RuntimeException e) {
                // The hypervisor is going away as well; nothing is left to unbind.
            }
            virqBound = false;
        }
    }

    /**
     * The domain was destroyed: nothing runs in it any more, so its daemon is gone. What it drained
     * stays in the session; what was left in its buffers is fixed as undrained (Xen freed them).
     *
     * @return a line on what it left, for the session's notes
     */
    String destroyed() {
        String text = oprofiled.destroyed();
        started = false;
        // Xen dropped the binding with the domain.
        virqBound = false;
        return text;
    }

    /**
     * A passive domain of this primary was destroyed: its pages are freed, so the primary stops
     * reading them; what they held is fixed as undrained.
     *
     * @return a line for the session's notes, or null when the domain is not one of this daemon's
     */
    String passiveDestroyed(int passiveId) {
        return oprofiled.passiveDestroyed(passiveId);
    }

    int depthNow() {
        return oprofiled.callTraceDepth();
    }

    XenoprofState xenState() {
        try {
            return xenoprof.state();
        } catch (RuntimeException e) {
            return XenoprofState.IDLE;
        }
    }

    DomainInfo domainOrNull(int id) {
        try {
            return host.domain(id);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Entries waiting in the buffers this daemon reads. */
    long pendingEntries() {
        return oprofiled.pendingEntries();
    }

    /**
     * Drains every buffer of the domain and, in the primary, of its passive domains: see
     * {@link Oprofiled#drainAll}.
     */
    int drainAll(boolean last) {
        return oprofiled.drainAll(last);
    }

    // ---------------------------------------------------------------- status

    void status(StepLog log, Session session) {
        synchronized (oprofiled) {
            log.line("Domain " + domid + " (" + name + (hvm ? ", HVM" : "") + ", " + oprofiled.domainState(domid)
                    + "):");
            log.line("  driver:  " + (loaded ? "loaded, cpu_type " + cpuType + ", num_events " + numEvents + ", "
                    + (primary ? "primary profiler" : "not primary") : "not loaded (no XENOPROF_init yet)"));
            log.line(oprofiled.daemonLine(started, virqBound));
            if (primary && !counters.isEmpty()) {
                for (CounterConfig c : counters) {
                    log.line("  counter " + c.counter() + ": " + c.event().name() + " count " + c.count()
                            + " unit mask 0x" + Long.toHexString(c.unitMask()) + " kernel " + (c.kernel() ? 1 : 0)
                            + " user " + (c.user() ? 1 : 0));
                }
            }
            if (primary && callgraph > 0) {
                log.line("  call traces: depth " + callgraph);
            }
            oprofiled.bufferStatus(log, session, nbuf, bufsize);
        }
    }

    /** --reset: forget the tallies of this domain's views (and, in the primary, of its passive domains). */
    List<Integer> resetDomains() {
        List<Integer> out = new ArrayList<>();
        out.add(domid);
        for (PassiveDomain p : oprofiled.passives()) {
            out.add(p.domid);
        }
        return out;
    }

    static String joined(int[] ids) {
        return Arrays.stream(ids).mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    }
}
