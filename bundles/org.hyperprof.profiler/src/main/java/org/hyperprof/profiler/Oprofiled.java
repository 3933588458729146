package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;

/**
 * The oprofiled of one domain: it reads the buffers its driver ({@link DomainDaemon}) mapped, its
 * own and, in the primary, the passive domains', on {@code VIRQ_XENOPROF} and whenever a step asks
 * (stop, shutdown, {@code --dump}, {@code --release}, the session's end), and hands every entry to
 * the session the profiler runs. A held daemon, or one whose domain is paused or destroyed, leaves
 * the rings as they are.
 *
 * <p>Draining runs on whichever thread delivers the VIRQ (the simulation thread, or the thread whose
 * {@code stop} hypercall flushes), under this object's monitor (the "daemon's monitor" of the
 * profiler's lock order); it never makes a hypercall. Every change to the mapped buffers takes the
 * same monitor. No allocation per entry: the readers decode into the session's collector.
 *
 * <p>Isolation: the primary drains passive buffers through the session's coarse view of that
 * domain, one domain at a time (OProfile's domain switch), and afterwards its own samples are its
 * own again (the switch back to the coordinator).
 */
final class Oprofiled implements VirqHandler {

    private final int domid;
    private final Host host;
    private final Xenoprof xenoprof;
    private final Supplier<Session> sessions;
    private final DaemonGuide guide;

    /** {@code num_events} of the driver's init: the counter indices an entry may carry. */
    private int numEvents;
    private volatile BufferReader[] readers;
    /** Readers by {@code vcpu_id}: buffers are found by the id Xen wrote, never by their index. */
    private volatile BufferReader[] byVcpu = new BufferReader[0];
    private volatile PassiveDomain[] passives = new PassiveDomain[0];
    /** Readers the driver let go (unmapped): fixed before Xen resets the indices of their pages. */
    private final List<BufferReader> retired = new ArrayList<>();
    private boolean running;
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

    Oprofiled(int domid, Host host, Xenoprof xenoprof, Supplier<Session> sessions, DaemonGuide guide) {
        this.domid = domid;
        this.host = host;
        this.xenoprof = xenoprof;
        this.sessions = sessions;
        this.guide = guide;
    }

    // ---------------------------------------------------------------- what the driver sets up

    /** The driver's init learned {@code num_events}. */
    void numEvents(int n) {
        numEvents = n;
    }

    boolean running() {
        return running;
    }

    boolean held() {
        return held;
    }

    boolean gone() {
        return gone;
    }

    /** The daemon runs (its {@code --start-daemon} succeeded) and reads. */
    void run() {
        running = true;
        held = false;
    }

    /** The daemon was killed ({@code --shutdown}). */
    void kill() {
        running = false;
        held = false;
    }

    /** {@code --hold}: stop reading. */
    void hold() {
        held = true;
    }

    /** {@code --release}: read again. */
    void release() {
        held = false;
    }

    /** Whether the driver has this domain's own buffers mapped. */
    boolean mapped() {
        return readers != null;
    }

    BufferReader[] readers() {
        BufferReader[] r = readers;
        return r == null ? new BufferReader[0] : r.clone();
    }

    /** The passive domains the driver has mapped now (primary only). */
    PassiveDomain[] passives() {
        return passives.clone();
    }

    boolean hasPassives() {
        return passives.length > 0;
    }

    /** The driver mapped the domain's own buffers. */
    synchronized void map(BufferReader[] rs) {
        int maxVcpu = -1;
        for (BufferReader r : rs) {
            maxVcpu = Math.max(maxVcpu, r.vcpu);
        }
        BufferReader[] index = new BufferReader[maxVcpu + 1];
        for (BufferReader r : rs) {
            if (r.vcpu >= 0) {
                index[r.vcpu] = r;
            }
        }
        readers = rs;
        byVcpu = index;
    }

    /** The driver unmapped the domain's own buffers; returns them (null when none were mapped). */
    synchronized BufferReader[] unmap() {
        BufferReader[] rs = readers;
        readers = null;
        byVcpu = new BufferReader[0];
        return rs;
    }

    /** The primary's driver mapped the passive domains of its passive list. */
    synchronized void mapPassives(PassiveDomain[] ps) {
        passives = ps;
    }

    /** The driver's unmap_passive_list; returns the domains it let go. */
    synchronized PassiveDomain[] unmapPassives() {
        PassiveDomain[] ps = passives;
        passives = new PassiveDomain[0];
        return ps;
    }

    synchronized void retire(BufferReader[] rs) {
        for (BufferReader r : rs) {
            r.finishTraces();
            retired.add(r);
        }
    }

    /**
     * enable_virq zeroed the indices of this domain's buffers, and, called by the primary, of every
     * passive domain's: the readers start again at slot 0.
     */
    synchronized void ringsReset(boolean primary) {
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
    synchronized void freezeRetired() {
        for (BufferReader r : retired) {
            r.freeze();
        }
        retired.clear();
    }

    /** The host is gone: forget the buffers without touching the hypervisor. */
    synchronized void abandon() {
        readers = null;
        byVcpu = new BufferReader[0];
        passives = new PassiveDomain[0];
        running = false;
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
        held = false;
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

    // ---------------------------------------------------------------- reading

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
        int depth = callTraceDepth();
        if (s == null) {
            return reader.drain(null, null, depth, numEvents, null);
        }
        synchronized (s.collector) {
            if (cachedSession != s) {
                cachedView = s.view(domid);
                cachedSession = s;
            }
            return reader.drain(cachedView, s.collector, depth, numEvents, s.weights, s.ibsColumns);
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
        int depth = callTraceDepth();
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
                    n += r.drain(p.cachedView, s.collector, depth, numEvents, s.weights, s.ibsColumns);
                }
            }
        }
        return n;
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

    /** Xen's call-trace depth now (0 when it cannot be read). */
    int callTraceDepth() {
        try {
            return xenoprof.backtraceDepth();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    DomainState domainState(int id) {
        return OpcontrolService.domainState(host, id);
    }

    // ---------------------------------------------------------------- status

    String passiveIds() {
        return Arrays.toString(Arrays.stream(passives).mapToInt(p -> p.domid).toArray());
    }

    int bufferSlots() {
        BufferReader[] rs = readers;
        return rs == null || rs.length == 0 ? 0 : rs[0].size;
    }

    /**
     * The status's daemon line.
     *
     * @param started   whether the driver started the profiler
     * @param virqBound whether the driver bound the VIRQ to this daemon
     */
    synchronized String daemonLine(boolean started, boolean virqBound) {
        return "  daemon:  " + (gone ? "gone (the domain was destroyed)" : running ? "running"
                + (started ? ", profiler started" : ", profiler not started") + (held ? ", HELD (--hold)" : "")
                : "not running") + ", VIRQ " + (virqBound ? "bound" : "not bound") + ", " + virqs + " VIRQs handled"
                + (virqsForUnknownVcpu > 0 ? " (" + virqsForUnknownVcpu + " for a vCPU without buffer)" : "")
                + (virqsWhileHeld > 0 ? ", " + virqsWhileHeld + " ignored while held" : "")
                + (virqsWhileNotRunning > 0 ? ", " + virqsWhileNotRunning + " arrived while the domain could not run"
                        : "");
    }

    /**
     * The status's lines on the buffers, the passive domains and what the session collected.
     *
     * @param nbuf    buffers Xen gave the driver
     * @param bufsize their size in bytes
     */
    synchronized void bufferStatus(StepLog log, Session session, int nbuf, int bufsize) {
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
}
