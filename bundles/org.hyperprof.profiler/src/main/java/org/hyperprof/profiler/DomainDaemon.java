package org.hyperprof.profiler;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;

/**
 * One domain's Xenoprof driver and its oprofiled: what the guest kernel keeps (whether the driver
 * is loaded, whether it is the primary, the mapped buffers, the passive domains it mapped, the
 * VIRQ binding, the call-trace depth) and the daemon that drains the buffers on
 * {@code VIRQ_XENOPROF}.
 *
 * <p>The step methods ({@link #startDaemon} ...) run under the profiler's lock and issue exactly the
 * hypercalls the XenLinux driver issued for each opcontrol step, in the same order, as this domain.
 * Draining runs on whichever thread delivers the VIRQ (the simulation thread, or the thread whose
 * {@code stop} hypercall flushes), under this daemon's own monitor; it never makes a hypercall.
 *
 * <p>Isolation: a daemon maps only its own buffers ({@code mapBuffers(self, self)}), and the
 * primary in addition those of the passive domains Xen accepted with {@code set_passive}. Every
 * sample carries the id of the domain whose buffer held it; the primary drains passive buffers
 * through the session's coarse view of that domain, one domain at a time (OProfile's domain
 * switch), and afterwards its own samples are its own again (the switch back to the coordinator).
 */
final class DomainDaemon implements VirqHandler {

    /** The Linux driver created per-counter files for at most this many counters ({@code OP_MAX_COUNTER}). */
    static final int MAX_COUNTERS = 8;

    /** A passive domain the primary's driver mapped: its buffers and the kernel image to resolve it with. */
    static final class PassiveDomain {
        final int domid;
        final String name;
        final BufferReader[] readers;
        final PassiveView.KernelImage image;
        /** Destroyed: its pages are freed, nobody reads them any more. */
        volatile boolean gone;
        private Session cachedSession;
        private PassiveView cachedView;

        PassiveDomain(int domid, String name, BufferReader[] readers, PassiveView.KernelImage image) {
            this.domid = domid;
            this.name = name;
            this.readers = readers;
            this.image = image;
        }

        boolean hasPending() {
            for (BufferReader r : readers) {
                if (r.pending() > 0) {
                    return true;
                }
            }
            return false;
        }
    }

    final int domid;
    final String name;
    final boolean hvm;
    private final Host host;
    private final Xenoprof xenoprof;
    private final Supplier<Session> sessions;
    /** The driver's and the daemon's words for people. */
    final DaemonGuide guide;

    // The guest kernel's driver state.
    private boolean loaded;
    private boolean primary;
    private int numEvents;
    private String cpuType = "";
    private volatile BufferReader[] readers;
    /** Readers by {@code vcpu_id}: buffers are found by the id Xen wrote, never by their index. */
    private volatile BufferReader[] byVcpu = new BufferReader[0];
    private volatile PassiveDomain[] passives = new PassiveDomain[0];
    /** Readers the driver let go (unmapped): fixed before Xen resets the indices of their pages. */
    private final List<BufferReader> retired = new ArrayList<>();
    private int nbuf;
    private int bufsize;
    private boolean virqBound;
    private boolean running;
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
    /** The domain was destroyed: nothing runs in it any more. */
    private volatile boolean gone;
    /** Simulation control: the daemon stopped reading its buffers ({@code --hold}). */
    private volatile boolean held;

    // The daemon's books (guarded by this).
    private long virqs;
    private long virqsForUnknownVcpu;
    private long virqsWhileHeld;
    private long virqsWhileNotRunning;
    private long passiveSwitches;
    private Session cachedSession;
    private DomainView cachedView;

    DomainDaemon(Host host, DomainInfo domain, Xenoprof xenoprof, Supplier<Session> sessions) {
        this.host = host;
        this.domid = domain.domid();
        this.name = domain.name();
        this.hvm = domain.hvm();
        this.xenoprof = xenoprof;
        this.sessions = sessions;
        this.guide = new DaemonGuide(this, host, xenoprof);
    }

    boolean loaded() {
        return loaded;
    }

    boolean primary() {
        return primary;
    }

    boolean running() {
        return running;
    }

    boolean started() {
        return started;
    }

    boolean held() {
        return held;
    }

    boolean gone() {
        return gone;
    }

    String cpuType() {
        return cpuType;
    }

    List<CounterConfig> counters() {
        return counters;
    }

    BufferReader[] readers() {
        BufferReader[] r = readers;
        return r == null ? new BufferReader[0] : r.clone();
    }

    /** The passive domains the driver has mapped now (primary only). */
    PassiveDomain[] passives() {
        return passives.clone();
    }

    // ---------------------------------------------------------------- opcontrol steps

    /** Module load ({@code opcontrol --init}): XENOPROF_init; learns is_primary, num_events, cpu_type. */
    void init(StepLog log) throws StepLog.StepFailed {
        XenoprofInit init = new XenoprofInit();
        log.call(XenoprofOp.INIT, init, "&init");
        loaded = true;
        primary = init.isPrimary != 0;
        numEvents = init.numEvents;
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
        if (running) {
            throw log.fail(guide.alreadyRunning());
        }
        if (!loaded) {
            init(log);
        }
        if (primary) {
            PassiveView.KernelImage[] images = settings.passiveIds() == null ? null
                    : kernelImages(log, settings.passiveIds(), settings.passiveImages());
            if (settings.activeIds() != null) {
                writeActiveDomains(log, settings.activeIds());
            }
            if (settings.passiveIds() != null) {
                writePassiveDomains(log, settings.passiveIds(), images);
            }
        } else {
            guide.ignoredInGuest(log, settings);
        }
        if (readers == null) {
            freezeRetired();
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
            xenoprof.bindVirq(domid, this);
        } catch (RuntimeException e) {
            throw log.fail("binding VIRQ_XENOPROF of domain " + domid + " failed: " + e.getMessage());
        }
        virqBound = true;
        log.line("  bind VIRQ_XENOPROF (" + VIRQ_XENOPROF + ") on every vCPU of domain " + domid);
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
            freezeRetired();
            log.call(XenoprofOp.ENABLE_VIRQ, null, null);
            ringsReset();
        } catch (StepLog.StepFailed f) {
            unbind(log);
            log.line(guide.profileDeviceNotOpened());
            throw f;
        }
        running = true;
        started = false;
        held = false;
        log.line("Daemon started (domain " + domid + ", " + name + ", " + (primary ? "primary" : "not primary")
                + ", " + nbuf + " buffer(s) of " + bufferSlots() + " slots"
                + (primary && passives.length > 0 ? "; passive domains " + passiveIds() : "")
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
        passives = mapped.toArray(new PassiveDomain[0]);
        guide.warnPassiveList(log, ids);
    }

    private StepLog.StepFailed passiveWriteFailed(StepLog log) {
        return log.fail("  the write to " + OpcontrolCommand.PASSIVE_FILE + " fails with " + StepLog.describe(-22)
                + "; the driver's passive list is empty");
    }

    /** Undoes the mappings of a failed write; empties Xen's list again when part of it had been accepted. */
    private void abandonPassiveWrite(StepLog log, List<PassiveDomain> mapped, boolean xenHasSome) {
        for (PassiveDomain p : mapped) {
            retire(p.readers);
        }
        if (xenHasSome) {
            log.callTolerant(XenoprofOp.RESET_PASSIVE_LIST, null, null);
        }
    }

    /**
     * The kernel image of each passive domain, checked before any hypercall as opcontrol checked
     * its image files: an image of that domain's memory map (it must be its kernel), or a readable
     * symbol file (System.map / nm text, or ELF).
     */
    private PassiveView.KernelImage[] kernelImages(StepLog log, int[] ids, List<String> entries)
            throws StepLog.StepFailed {
        if (entries.size() > ids.length) {
            throw log.fail(DaemonGuide.tooManyPassiveImages(entries.size(), ids));
        }
        PassiveView.KernelImage[] out = new PassiveView.KernelImage[ids.length];
        for (int k = 0; k < entries.size(); k++) {
            String e = entries.get(k);
            if (e.isEmpty()) {
                continue;
            }
            DomainInfo d = domainOrNull(ids[k]);
            if (d == null) {
                // set_passive will refuse the domain with -EINVAL and explain it.
                continue;
            }
            out[k] = kernelImage(log, d, e);
        }
        return out;
    }

    private PassiveView.KernelImage kernelImage(StepLog log, DomainInfo d, String entry) throws StepLog.StepFailed {
        Mapping kernel = PassiveView.kernelMapping(d);
        String kernelName = kernel == null ? "none" : kernel.image();
        for (Mapping m : d.memoryMap()) {
            if (m.image().equals(entry)) {
                if (m != kernel) {
                    throw log.fail(DaemonGuide.notItsKernel(entry, m, d, kernelName));
                }
                if (m.symbols() == null) {
                    log.note(DaemonGuide.kernelWithoutSymbols(entry, d));
                }
                return new PassiveView.KernelImage(entry, m.symbols(), m.loadBias());
            }
        }
        Path path;
        try {
            path = Path.of(entry);
        } catch (InvalidPathException ex) {
            path = null;
        }
        if (path == null || !Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw log.fail(DaemonGuide.neitherImageNorFile(entry, d, kernelName));
        }
        if (kernel == null) {
            log.note(DaemonGuide.noKernelInMap(entry, d));
            return null;
        }
        Path file = path;
        ImageSource source = new ImageSource(entry, formatOf(file), file.toString(), () -> Files.newInputStream(file));
        return new PassiveView.KernelImage(entry, source, 0);
    }

    /** ELF files by their magic number, everything else as System.map / nm text. */
    private static String formatOf(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            if (magic.length == 4 && magic[0] == 0x7F && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F') {
                return "elf";
            }
        } catch (IOException e) {
            // Unreadable now: the resolver reports it when it loads the file.
        }
        return "kallsyms";
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
        log.line("Written" + (running ? "; the running daemon's session now profiles " + guide.xenoprofListsText()
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
        int maxVcpu = -1;
        for (int i = 0; i < shared.length; i++) {
            rs[i] = new BufferReader(domid, shared[i]);
            maxVcpu = Math.max(maxVcpu, rs[i].vcpu);
        }
        BufferReader[] index = new BufferReader[maxVcpu + 1];
        for (BufferReader r : rs) {
            if (r.vcpu >= 0) {
                index[r.vcpu] = r;
            }
        }
        nbuf = gb.nbuf;
        bufsize = gb.bufsize;
        readers = rs;
        byVcpu = index;
        log.line("  map " + shared.length + " buffer(s) of domain " + domid + " (vcpu_id "
                + Arrays.toString(Arrays.stream(rs).mapToInt(r -> r.vcpu).toArray()) + ", " + bufferSlots()
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
        for (CounterConfig c : configs) {
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
        counters = List.of(configs);
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
                    + (passives.length > 0 ? " (the primary's drain includes the passive domains)" : ""));
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
        if (!running) {
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
        if (held) {
            log.line("  the daemon of domain " + domid + " is held (--hold): it is killed without reading its buffers;"
                    + " " + pendingEntries() + " entries stay in them, counted undrained");
        } else {
            int entries = drainAll(true);
            log.line("  drained " + entries + " entries left in the buffers of domain " + domid
                    + (passives.length > 0 ? " and of its passive domains" : ""));
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
        running = false;
        held = false;
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
        if (readers != null) {
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
        if (held) {
            log.line(guide.alreadyHeld());
            return;
        }
        held = true;
        log.line(guide.held(passives.length > 0, passiveIds()));
    }

    /** {@code --release} (simulation control): a held daemon reads again and drains at once. */
    void release(StepLog log) throws StepLog.StepFailed {
        requireRunning(log, "--release");
        if (!held) {
            log.line(guide.notHeld());
            return;
        }
        held = false;
        int n = drainAll(false);
        log.line("Released: the daemon of domain " + domid + " reads its buffers again and drained " + n + " entries.");
    }

    private void requireRunning(StepLog log, String step) throws StepLog.StepFailed {
        if (!running) {
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
        BufferReader[] rs = readers;
        if (rs != null) {
            synchronized (this) {
                readers = null;
                byVcpu = new BufferReader[0];
            }
            retire(rs);
            if (typeOf(domid) != DomainType.ACTIVE) {
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

    private DomainType typeOf(int id) {
        try {
            DomainType t = xenoprof.domainType(id);
            return t == null ? DomainType.IGNORED : t;
        } catch (RuntimeException e) {
            return DomainType.IGNORED;
        }
    }

    /** The driver's unmap_passive_list. */
    private void unmapPassive(StepLog log) {
        PassiveDomain[] ps = passives;
        if (ps.length > 0) {
            synchronized (this) {
                passives = new PassiveDomain[0];
            }
            for (PassiveDomain p : ps) {
                retire(p.readers);
                if (typeOf(p.domid) != DomainType.PASSIVE) {
                    freeze(p.readers);
                }
            }
            log.line("  unmap the buffers of passive domain(s) " + Arrays.toString(Arrays.stream(ps)
                    .mapToInt(p -> p.domid).toArray()));
        }
    }

    private synchronized void retire(BufferReader[] rs) {
        for (BufferReader r : rs) {
            r.finishTraces();
            retired.add(r);
        }
    }

    /**
     * enable_virq zeroed the indices of this domain's buffers, and, called by the primary, of every
     * passive domain's: the readers start again at slot 0.
     */
    private synchronized void ringsReset() {
        BufferReader[] rs = readers;
        if (rs != null) {
            for (BufferReader r : rs) {
                r.ringReset();
            }
        }
        if (primary) {
            for (PassiveDomain p : passives) {
                for (BufferReader r : p.readers) {
                    r.ringReset();
                }
            }
        }
    }

    /** Before Xen resets ring indices (get_buffer, enable_virq): fix what let-go readers left unread. */
    private synchronized void freezeRetired() {
        for (BufferReader r : retired) {
            r.freeze();
        }
        retired.clear();
    }

    /** The host is gone: forget the binding without touching the hypervisor. */
    synchronized void abandon() {
        readers = null;
        byVcpu = new BufferReader[0];
        passives = new PassiveDomain[0];
        running = false;
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
    synchronized String destroyed() {
        gone = true;
        BufferReader[] rs = readers;
        long left = 0;
        long drained = 0;
        if (rs != null) {
            for (BufferReader r : rs) {
                r.freeze();
                left += r.pending();
                drained += r.drainedEntries();
            }
        }
        for (BufferReader r : retired) {
            r.freeze();
        }
        retired.clear();
        for (PassiveDomain p : passives) {
            for (BufferReader r : p.readers) {
                r.freeze();
            }
        }
        readers = null;
        byVcpu = new BufferReader[0];
        passives = new PassiveDomain[0];
        boolean wasRunning = running;
        running = false;
        started = false;
        held = false;
        // Xen dropped the binding with the domain.
        virqBound = false;
        return guide.destroyed(wasRunning, drained, left);
    }

    /**
     * A passive domain of this primary was destroyed: its pages are freed, so the primary stops
     * reading them; what they held is fixed as undrained.
     *
     * @return a line for the session's notes, or null when the domain is not one of this daemon's
     */
    synchronized String passiveDestroyed(int passiveId) {
        for (PassiveDomain p : passives) {
            if (p.domid == passiveId && !p.gone) {
                return passiveGone(p);
            }
        }
        return null;
    }

    private String passiveGone(PassiveDomain p) {
        p.gone = true;
        long left = 0;
        long drained = 0;
        for (BufferReader r : p.readers) {
            r.freeze();
            left += r.pending();
            drained += r.drainedEntries();
        }
        String text = guide.passiveDestroyed(p, drained, left);
        Session s = sessions.get();
        if (s != null) {
            s.note("destroyed:" + p.domid, text);
        }
        return text;
    }

    int depthNow() {
        try {
            return xenoprof.backtraceDepth();
        } catch (RuntimeException e) {
            return 0;
        }
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

    private DomainState domainState(int id) {
        try {
            DomainState s = host.domainState(id);
            return s == null ? DomainState.RUNNING : s;
        } catch (RuntimeException e) {
            return DomainState.RUNNING;
        }
    }

    private String passiveIds() {
        return Arrays.toString(Arrays.stream(passives).mapToInt(p -> p.domid).toArray());
    }

    private int bufferSlots() {
        BufferReader[] rs = readers;
        return rs == null || rs.length == 0 ? 0 : rs[0].size;
    }

    /** Entries waiting in the buffers this daemon reads. */
    long pendingEntries() {
        long n = 0;
        BufferReader[] rs = readers;
        if (rs != null) {
            for (BufferReader r : rs) {
                n += r.pending();
            }
        }
        for (PassiveDomain p : passives) {
            if (!p.gone) {
                for (BufferReader r : p.readers) {
                    n += r.pending();
                }
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- the daemon

    /**
     * VIRQ_XENOPROF on vCPU {@code vcpuId}: drain that vCPU's buffer, and in the primary every
     * passive domain's buffers after it. A held daemon, or a guest that is paused (it cannot run
     * its handler), leaves the rings as they are.
     */
    @Override
    public void virq(int vcpuId) {
        synchronized (this) {
            virqs++;
            if (held) {
                virqsWhileHeld++;
                return;
            }
            if (gone || domainState(domid) != DomainState.RUNNING) {
                virqsWhileNotRunning++;
                return;
            }
            BufferReader[] index = byVcpu;
            if (vcpuId < 0 || vcpuId >= index.length || index[vcpuId] == null) {
                virqsForUnknownVcpu++;
            } else {
                drain(index[vcpuId]);
            }
            if (passives.length > 0) {
                drainPassive();
            }
        }
    }

    /**
     * Drains every buffer of the domain and, in the primary, of its passive domains (at stop,
     * before shutdown, --dump, --release, session end). Nothing when the daemon does not run, is
     * held, or when the domain is not running.
     *
     * @param last whether the readers are finished afterwards (a trace still waiting for its sample is truncated)
     */
    synchronized int drainAll(boolean last) {
        // Only a running daemon reads: buffers a failed --start-daemon left mapped wait for the next one.
        if (!running || held || gone || domainState(domid) != DomainState.RUNNING) {
            return 0;
        }
        int n = 0;
        BufferReader[] rs = readers;
        if (rs != null) {
            for (BufferReader r : rs) {
                n += drain(r);
                if (last) {
                    r.finishTraces();
                }
            }
        }
        n += drainPassive();
        if (last) {
            for (PassiveDomain p : passives) {
                for (BufferReader r : p.readers) {
                    r.finishTraces();
                }
            }
        }
        return n;
    }

    /** Caller holds this daemon's monitor. */
    private int drain(BufferReader reader) {
        Session s = sessions.get();
        int depth = depthNow();
        if (s == null) {
            return reader.drain(null, null, depth, numEvents, null);
        }
        synchronized (s.collector) {
            if (cachedSession != s) {
                cachedView = s.view(domid);
                cachedSession = s;
            }
            return reader.drain(cachedView, s.collector, depth, numEvents, s.weights);
        }
    }

    /**
     * The primary's passive drain (§8.3): for each passive domain with entries, a switch to that
     * domain (its samples carry its id and resolve through its coarse view), then back to the
     * coordinator. A destroyed passive domain's freed pages are no longer read. Caller holds this
     * daemon's monitor.
     */
    private int drainPassive() {
        PassiveDomain[] ps = passives;
        if (ps.length == 0) {
            return 0;
        }
        Session s = sessions.get();
        int depth = depthNow();
        int n = 0;
        for (PassiveDomain p : ps) {
            if (p.gone) {
                continue;
            }
            if (domainState(p.domid) == DomainState.DESTROYED) {
                passiveGone(p);
                continue;
            }
            if (!p.hasPending()) {
                continue;
            }
            passiveSwitches++;
            if (s == null) {
                for (BufferReader r : p.readers) {
                    n += r.drain(null, null, depth, numEvents, null);
                }
                continue;
            }
            synchronized (s.collector) {
                if (p.cachedSession != s) {
                    p.cachedView = s.passiveView(domid, p.domid, p.image);
                    p.cachedSession = s;
                }
                if (p.cachedView == null) {
                    // Not this session's primary: the passive buffers are not its to read.
                    continue;
                }
                for (BufferReader r : p.readers) {
                    n += r.drain(p.cachedView, s.collector, depth, numEvents, s.weights);
                }
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- status

    synchronized void status(StepLog log, Session session) {
        log.line("Domain " + domid + " (" + name + (hvm ? ", HVM" : "") + ", " + domainState(domid) + "):");
        log.line("  driver:  " + (loaded ? "loaded, cpu_type " + cpuType + ", num_events " + numEvents + ", "
                + (primary ? "primary profiler" : "not primary") : "not loaded (no XENOPROF_init yet)"));
        log.line("  daemon:  " + (gone ? "gone (the domain was destroyed)" : running ? "running"
                + (started ? ", profiler started" : ", profiler not started") + (held ? ", HELD (--hold)" : "")
                : "not running") + ", VIRQ " + (virqBound ? "bound" : "not bound") + ", " + virqs + " VIRQs handled"
                + (virqsForUnknownVcpu > 0 ? " (" + virqsForUnknownVcpu + " for a vCPU without buffer)" : "")
                + (virqsWhileHeld > 0 ? ", " + virqsWhileHeld + " ignored while held" : "")
                + (virqsWhileNotRunning > 0 ? ", " + virqsWhileNotRunning + " arrived while the domain could not run"
                        : ""));
        if (primary && !counters.isEmpty()) {
            for (CounterConfig c : counters) {
                log.line("  counter " + c.counter() + ": " + c.event().name() + " count " + c.count() + " unit mask 0x"
                        + Long.toHexString(c.unitMask()) + " kernel " + (c.kernel() ? 1 : 0) + " user " + (c.user() ? 1 : 0));
            }
        }
        if (primary && callgraph > 0) {
            log.line("  call traces: depth " + callgraph);
        }
        BufferReader[] rs = readers;
        if (rs == null) {
            log.line("  buffers: not mapped");
        } else {
            log.line("  buffers: " + nbuf + " of " + bufsize + " bytes (" + bufferSlots() + " slots)");
            for (BufferReader r : rs) {
                log.line(bufferLine(r));
            }
        }
        if (passives.length > 0) {
            log.line("  passive domains " + passiveIds() + ": drained after the daemon's own buffers, "
                    + passiveSwitches + " domain switches so far");
        }
        for (PassiveDomain p : passives) {
            log.line("  passive domain " + p.domid + " (" + p.name + ")" + (p.gone ? ": destroyed, no longer read" : "")
                    + ": " + (p.image == null ? "kernel as " + PassiveView.kernelImageName(p.domid)
                            : "kernel resolved with " + p.image.name()));
            for (BufferReader r : p.readers) {
                log.line(bufferLine(r));
            }
        }
        DomainView v = session == null ? null : session.existingView(domid);
        if (v != null) {
            synchronized (session.collector) {
                log.line("  collected in session " + session.id + ": " + v.samples() + " samples (user "
                        + v.samplesInMode(0) + ", kernel " + v.samplesInMode(1) + ", xen " + v.samplesInMode(2) + ")");
                for (String row : v.imageTallies(8)) {
                    log.line("    " + row);
                }
            }
        }
        for (PassiveDomain p : passives) {
            PassiveView pv = session == null ? null : session.existingPassiveView(p.domid);
            if (pv != null) {
                synchronized (session.collector) {
                    log.line("  collected for passive domain " + p.domid + ": " + pv.samples() + " samples");
                    for (String row : pv.tallies()) {
                        log.line("    " + row);
                    }
                }
            }
        }
    }

    private static String bufferLine(BufferReader r) {
        SharedBuffer b = r.buffer;
        StringBuilder line = new StringBuilder(String.format(
                "    vcpu %d: head %d tail %d, samples user %d kernel %d xen %d, lost %d, drained %d entries (%d samples, %d callers)",
                r.vcpu, b.head(), b.tail(), b.userSamples(), b.kernelSamples(), b.xenSamples(),
                b.lostSamples(), r.drainedEntries(), r.samples(), r.callerEntries()));
        if (r.badHeadReads() + r.badTailReads() > 0) {
            line.append(", ignored ").append(r.badHeadReads()).append(" bad head and ")
                    .append(r.badTailReads()).append(" bad tail reads");
        }
        if (r.danglingEscapes() + r.unknownEscapes() > 0) {
            line.append(", ").append(r.danglingEscapes()).append(" escape records without sample, ")
                    .append(r.unknownEscapes()).append(" unknown escapes");
        }
        if (r.orphanEntries() + r.badEvents() + r.badModes() > 0) {
            line.append(", skipped ").append(r.orphanEntries()).append(" stray return addresses, ")
                    .append(r.badEvents()).append(" bad counter indices, ").append(r.badModes()).append(" bad modes");
        }
        if (r.unattributedEntries() > 0) {
            line.append(", ").append(r.unattributedEntries()).append(" entries drained outside a session");
        }
        return line.toString();
    }

    /** --reset: forget the tallies of this domain's views (and, in the primary, of its passive domains). */
    List<Integer> resetDomains() {
        List<Integer> out = new ArrayList<>();
        out.add(domid);
        for (PassiveDomain p : passives) {
            out.add(p.domid);
        }
        return out;
    }

    static String joined(int[] ids) {
        return Arrays.stream(ids).mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    }
}
