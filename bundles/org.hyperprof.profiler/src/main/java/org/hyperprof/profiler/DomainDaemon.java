package org.hyperprof.profiler;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;

/**
 * One domain's Xenoprof driver and its oprofiled: what the guest kernel keeps (whether the driver
 * is loaded, whether it is the primary, the mapped buffers, the VIRQ binding) and the daemon that
 * drains the buffers on {@code VIRQ_XENOPROF}.
 *
 * <p>The step methods ({@link #startDaemon} ...) run under the profiler's lock and issue exactly the
 * hypercalls the XenLinux driver issued for each opcontrol step, in the same order, as this domain.
 * Draining runs on whichever thread delivers the VIRQ (the simulation thread, or the thread whose
 * {@code stop} hypercall flushes), under this daemon's own monitor; it never makes a hypercall.
 */
final class DomainDaemon implements VirqHandler {

    /** The Linux driver created per-counter files for at most this many counters ({@code OP_MAX_COUNTER}). */
    static final int MAX_COUNTERS = 8;

    final int domid;
    final String name;
    private final Xenoprof xenoprof;
    private final Supplier<Session> sessions;

    // The guest kernel's driver state.
    private boolean loaded;
    private boolean primary;
    private int numEvents;
    private String cpuType = "";
    private volatile BufferReader[] readers;
    /** Readers by {@code vcpu_id}: buffers are found by the id Xen wrote, never by their index. */
    private volatile BufferReader[] byVcpu = new BufferReader[0];
    private int nbuf;
    private int bufsize;
    private boolean virqBound;
    private boolean running;
    private boolean started;
    private List<CounterConfig> counters = List.of();

    // The daemon's books (guarded by this).
    private long virqs;
    private long virqsForUnknownVcpu;
    private Session cachedSession;
    private DomainView cachedView;

    DomainDaemon(DomainInfo domain, Xenoprof xenoprof, Supplier<Session> sessions) {
        this.domid = domain.domid();
        this.name = domain.name();
        this.xenoprof = xenoprof;
        this.sessions = sessions;
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

    /**
     * {@code --start-daemon}: the parameter writes (the active list, primary only), then what the
     * daemon's open of {@code /dev/oprofile/buffer} does in the driver.
     *
     * @param configs    the checked counter configurations (used by the primary)
     * @param activeIds  what is written to active_domains, or null when not given
     * @param maxSamples slots per vCPU buffer to ask Xen for
     */
    void startDaemon(StepLog log, CounterConfig[] configs, int[] activeIds, int maxSamples)
            throws StepLog.StepFailed {
        if (running) {
            throw log.fail("The daemon of domain " + domid + " (" + name + ") is already running."
                    + " To change its settings run opcontrol --shutdown as domain " + domid + " first.");
        }
        if (!loaded) {
            init(log);
        }
        if (primary) {
            if (activeIds != null) {
                writeActiveDomains(log, activeIds);
            }
        } else if (activeIds != null) {
            log.note("domain " + domid + " is not the primary: its driver ignores active_domains, as the real"
                    + " oprofilefs file did; only the primary (" + primaryText() + ") lists the active domains");
        }
        if (readers == null) {
            XenoprofGetBuffer gb = new XenoprofGetBuffer(maxSamples);
            log.call(XenoprofOp.GET_BUFFER, gb, "{max_samples " + maxSamples + "}");
            log.line("  -> nbuf " + gb.nbuf + ", bufsize " + gb.bufsize + ", buf_gmaddr 0x" + Long.toHexString(gb.bufGmaddr));
            map(log, gb);
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
                if (activeIds == null) {
                    // No list was written: the driver makes the primary the only active domain.
                    log.call(XenoprofOp.RESET_ACTIVE_LIST, null, null);
                    log.call(XenoprofOp.SET_ACTIVE, domid, Integer.toString(domid));
                }
                log.call(XenoprofOp.RESERVE_COUNTERS, null, null);
                configureCounters(log, configs);
                log.call(XenoprofOp.SETUP_EVENTS, null, null);
            }
            log.call(XenoprofOp.ENABLE_VIRQ, null, null);
        } catch (StepLog.StepFailed f) {
            unbind(log);
            log.line("The daemon of domain " + domid + " could not open the profile device and exited;"
                    + " the buffers stay mapped for the next --start-daemon.");
            throw f;
        }
        running = true;
        started = false;
        log.line("Daemon started (domain " + domid + ", " + name + ", " + (primary ? "primary" : "not primary")
                + ", " + nbuf + " buffer(s) of " + bufferSlots() + " slots).");
    }

    private void writeActiveDomains(StepLog log, int[] ids) throws StepLog.StepFailed {
        log.line("  write '" + joined(ids) + "' to /dev/oprofile/active_domains:");
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
            log.callTolerant(XenoprofOp.RESET_ACTIVE_LIST, null, null);
            log.line("  the write to /dev/oprofile/active_domains fails with " + StepLog.describe(-22)
                    + "; the driver emptied the active list again");
            throw f;
        }
    }

    private void map(StepLog log, XenoprofGetBuffer gb) throws StepLog.StepFailed {
        SharedBuffer[] shared;
        try {
            shared = xenoprof.mapBuffers(domid, domid);
        } catch (RuntimeException e) {
            throw log.fail("mapping the buffers of domain " + domid + " failed: " + e.getMessage());
        }
        BufferReader[] rs = new BufferReader[shared.length];
        int maxVcpu = -1;
        for (int i = 0; i < shared.length; i++) {
            rs[i] = new BufferReader(shared[i]);
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
            log.note("domain " + domid + " is not the primary: its driver makes no hypercall for --start; sampling"
                    + " runs while the primary (" + primaryText() + ") has started it");
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
            log.line("  Xen sent VIRQ_XENOPROF to every vCPU of every active domain: their daemons drained");
        } else {
            log.note("domain " + domid + " is not the primary: its driver makes no hypercall for --stop; sampling"
                    + " goes on until the primary (" + primaryText() + ") stops it");
        }
        started = false;
        log.line("Stopping profiling.");
    }

    /**
     * {@code --shutdown}: stop (primary, if sampling), drain, disable_virq, release_counters
     * (primary), unbind, unmap. Like the driver's release path it goes through every step even when
     * one fails, and then reports the failure.
     */
    void shutdown(StepLog log) throws StepLog.StepFailed {
        if (!running) {
            log.line("Daemon not running (domain " + domid + ").");
            return;
        }
        boolean ok = true;
        if (started && primary) {
            ok &= log.callTolerant(XenoprofOp.STOP, null, null) >= 0;
        }
        started = false;
        int entries = drainAll();
        log.line("  drained " + entries + " entries left in the buffers of domain " + domid);
        ok &= log.callTolerant(XenoprofOp.DISABLE_VIRQ, null, null) >= 0;
        if (primary) {
            ok &= log.callTolerant(XenoprofOp.RELEASE_COUNTERS, null, null) >= 0;
        }
        unbind(log);
        unmap(log);
        running = false;
        log.line("Killing daemon (domain " + domid + ").");
        if (!ok) {
            throw new StepLog.StepFailed();
        }
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
        if (loaded && primary) {
            ok &= log.callTolerant(XenoprofOp.SHUTDOWN, null, null) >= 0;
        }
        loaded = false;
        primary = false;
        log.line("Driver unloaded (domain " + domid + ").");
        if (!ok) {
            throw new StepLog.StepFailed();
        }
    }

    private void requireRunning(StepLog log, String step) throws StepLog.StepFailed {
        if (!running) {
            throw log.fail("The daemon of domain " + domid + " (" + name + ") is not running, so " + step
                    + " has nothing to act on. Run opcontrol --start-daemon as domain " + domid + " first"
                    + (primary || !loaded ? "." : " (after the primary, " + primaryText() + ", has listed it in --active-domains)."));
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
        if (readers != null) {
            synchronized (this) {
                readers = null;
                byVcpu = new BufferReader[0];
            }
            log.line("  unmap the buffers of domain " + domid);
        }
    }

    /** The host is gone: forget the binding without touching the hypervisor. */
    synchronized void abandon() {
        readers = null;
        byVcpu = new BufferReader[0];
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

    private String primaryText() {
        int p;
        try {
            p = xenoprof.primary();
        } catch (RuntimeException e) {
            p = -1;
        }
        return p < 0 ? "no domain is primary yet; the hardware domain becomes primary with its --start-daemon"
                : "domain " + p;
    }

    private int bufferSlots() {
        BufferReader[] rs = readers;
        return rs == null || rs.length == 0 ? 0 : rs[0].size;
    }

    // ---------------------------------------------------------------- the daemon

    /** VIRQ_XENOPROF on vCPU {@code vcpuId}: drain that vCPU's buffer. */
    @Override
    public void virq(int vcpuId) {
        synchronized (this) {
            virqs++;
            BufferReader[] index = byVcpu;
            if (vcpuId < 0 || vcpuId >= index.length || index[vcpuId] == null) {
                virqsForUnknownVcpu++;
                return;
            }
            drain(index[vcpuId]);
        }
    }

    /** Drains every buffer of the domain (at stop, before shutdown, --dump, session end). */
    synchronized int drainAll() {
        BufferReader[] rs = readers;
        if (rs == null) {
            return 0;
        }
        int n = 0;
        for (BufferReader r : rs) {
            n += drain(r);
        }
        return n;
    }

    /** Caller holds this daemon's monitor. */
    private int drain(BufferReader reader) {
        Session s = sessions.get();
        int depth;
        try {
            depth = xenoprof.backtraceDepth();
        } catch (RuntimeException e) {
            depth = 0;
        }
        int maxCallers = depth > 0 ? depth : Integer.MAX_VALUE;
        if (s == null) {
            return reader.drain(domid, null, null, maxCallers);
        }
        synchronized (s.collector) {
            if (cachedSession != s) {
                cachedView = s.view(domid);
                cachedSession = s;
            }
            return reader.drain(domid, cachedView, s.collector, maxCallers);
        }
    }

    // ---------------------------------------------------------------- status

    synchronized void status(StepLog log, Session session) {
        log.line("Domain " + domid + " (" + name + "):");
        log.line("  driver:  " + (loaded ? "loaded, cpu_type " + cpuType + ", num_events " + numEvents + ", "
                + (primary ? "primary profiler" : "not primary") : "not loaded (no XENOPROF_init yet)"));
        log.line("  daemon:  " + (running ? "running" + (started ? ", profiler started" : ", profiler not started")
                : "not running") + ", VIRQ " + (virqBound ? "bound" : "not bound") + ", " + virqs + " VIRQs handled"
                + (virqsForUnknownVcpu > 0 ? " (" + virqsForUnknownVcpu + " for a vCPU without buffer)" : ""));
        if (primary && !counters.isEmpty()) {
            for (CounterConfig c : counters) {
                log.line("  counter " + c.counter() + ": " + c.event().name() + " count " + c.count() + " unit mask 0x"
                        + Long.toHexString(c.unitMask()) + " kernel " + (c.kernel() ? 1 : 0) + " user " + (c.user() ? 1 : 0));
            }
        }
        BufferReader[] rs = readers;
        if (rs == null) {
            log.line("  buffers: not mapped");
        } else {
            log.line("  buffers: " + nbuf + " of " + bufsize + " bytes (" + bufferSlots() + " slots)");
            for (BufferReader r : rs) {
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
                if (r.unattributedEntries() > 0) {
                    line.append(", ").append(r.unattributedEntries()).append(" entries drained outside a session");
                }
                log.line(line.toString());
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
    }

    private static String joined(int[] ids) {
        return java.util.Arrays.stream(ids).mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    }
}
