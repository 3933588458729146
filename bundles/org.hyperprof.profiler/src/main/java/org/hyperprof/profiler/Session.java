package org.hyperprof.profiler;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * One profiling session: from the primary's successful {@code --start-daemon} to its
 * {@code --shutdown} (or the host stopping). Holds the dictionary, the batch collector, each
 * domain's view, the buffers whose books the summary reports, and the profiled cycles.
 */
final class Session implements DomainView.ProblemLog {
    private static final System.Logger LOG = System.getLogger(Session.class.getName());

    /**
     * One vCPU buffer's books within the session. A daemon that restarts maps the buffer again
     * (a new reader); the books carry on under the same (domain, vCPU) instead of counting twice.
     */
    private static final class BufferRecord {
        final int domid;
        final int vcpu;
        BufferReader reader;
        long userBase;
        long kernelBase;
        long xenBase;
        long lostBase;
        long drainedBase;
        /** Counts of earlier readers or buffers of this vCPU in this session. */
        long closedUser;
        long closedKernel;
        long closedXen;
        long closedLost;
        long closedDrained;
        DomainType role;

        BufferRecord(int domid, BufferReader reader, DomainType role) {
            this.domid = domid;
            this.vcpu = reader.vcpu;
            this.role = role;
            attach(reader, true);
        }

        /** Starts following a reader; counters carry on when it reads the same shared page. */
        void attach(BufferReader next, boolean fresh) {
            if (!fresh) {
                closedDrained += reader.drainedEntries() - drainedBase;
                if (next.buffer != reader.buffer) {
                    closedUser += user();
                    closedKernel += kernel();
                    closedXen += xen();
                    closedLost += lost();
                    fresh = true;
                }
            }
            if (fresh) {
                userBase = next.buffer.userSamples();
                kernelBase = next.buffer.kernelSamples();
                xenBase = next.buffer.xenSamples();
                lostBase = next.buffer.lostSamples();
            }
            drainedBase = next.drainedEntries();
            reader = next;
        }

        long user() {
            return reader.buffer.userSamples() - userBase;
        }

        long kernel() {
            return reader.buffer.kernelSamples() - kernelBase;
        }

        long xen() {
            return reader.buffer.xenSamples() - xenBase;
        }

        long lost() {
            return reader.buffer.lostSamples() - lostBase;
        }

        long drained() {
            return closedDrained + reader.drainedEntries() - drainedBase;
        }
    }

    final long id;
    final Host host;
    final Xenoprof xenoprof;
    final int primary;
    final SessionInfo info;
    final SessionDictionaryImpl dictionary;
    final BatchCollector collector;
    private final SymbolTables symbolTables;

    /** Guarded by the collector's lock (views are created and used while draining). */
    private final Map<Integer, DomainView> views = new HashMap<>();
    private final Map<String, String> symbolProblems = new LinkedHashMap<>();
    private final List<BufferRecord> buffers = new ArrayList<>();

    private long samplingSince = -1;
    private long profiledCycles;
    private SessionSummary summary;

    Session(long id, Host host, int primary, SessionInfo info, SessionDictionaryImpl dictionary,
            BatchCollector collector, SymbolTables symbolTables) {
        this.id = id;
        this.host = host;
        this.xenoprof = host.xenoprof();
        this.primary = primary;
        this.info = info;
        this.dictionary = dictionary;
        this.collector = collector;
        this.symbolTables = symbolTables;
    }

    /** The domain's view; the caller holds the collector's lock. */
    DomainView view(int domid) {
        DomainView v = views.get(domid);
        if (v == null) {
            DomainInfo d = host.domain(domid);
            v = new DomainView(domid, d.memoryMap(), dictionary, symbolTables, this);
            views.put(domid, v);
        }
        return v;
    }

    /** The domain's view if it has one yet (for --status and --reset). */
    DomainView existingView(int domid) {
        synchronized (collector) {
            return views.get(domid);
        }
    }

    @Override
    public void symbolProblem(String location, String message) {
        boolean first;
        synchronized (symbolProblems) {
            first = symbolProblems.putIfAbsent(location, message) == null;
        }
        if (first) {
            LOG.log(Level.WARNING, "session " + id + ": " + message);
        }
    }

    /** Symbol file problems met so far, one line per file. */
    List<String> symbolProblems() {
        synchronized (symbolProblems) {
            return List.copyOf(symbolProblems.values());
        }
    }

    /** Starts reporting the books of a domain's buffers (its daemon has started). */
    synchronized void track(int domid, BufferReader[] readers) {
        DomainType role = roleOf(domid);
        for (BufferReader r : readers) {
            BufferRecord known = null;
            for (BufferRecord b : buffers) {
                if (b.domid == domid && b.vcpu == r.vcpu) {
                    known = b;
                }
            }
            if (known == null) {
                buffers.add(new BufferRecord(domid, r, role));
            } else {
                known.role = role;
                if (known.reader != r) {
                    known.attach(r, false);
                }
            }
        }
    }

    /** Remembers each tracked domain's role while it still has it (daemons drop it at shutdown). */
    synchronized void refreshRoles() {
        for (BufferRecord b : buffers) {
            DomainType t = roleOf(b.domid);
            if (t != DomainType.IGNORED) {
                b.role = t;
            }
        }
    }

    private DomainType roleOf(int domid) {
        try {
            DomainType t = xenoprof.domainType(domid);
            return t == null ? DomainType.IGNORED : t;
        } catch (RuntimeException e) {
            return DomainType.IGNORED;
        }
    }

    /** The primary's --start succeeded: a new ground-truth interval and profiled time begin. */
    synchronized void samplingStarted() {
        host.resetGroundTruth();
        samplingSince = host.cycles();
    }

    /** Sampling stopped (the primary's --stop, or its shutdown, or the host stopped). */
    synchronized void samplingStopped() {
        if (samplingSince >= 0) {
            profiledCycles += Math.max(0, safeCycles() - samplingSince);
            samplingSince = -1;
        }
    }

    private long safeCycles() {
        try {
            return host.cycles();
        } catch (RuntimeException e) {
            return samplingSince;
        }
    }

    synchronized long profiledCycles() {
        return profiledCycles + (samplingSince >= 0 ? Math.max(0, safeCycles() - samplingSince) : 0);
    }

    /** The session's books: Xen's statistics folded into taken = delivered + lost + dropped + invalid. */
    static Accounting accounting(XenoprofStatistics s) {
        if (s == null) {
            return Accounting.ZERO;
        }
        return new Accounting(s.totalSamples(), s.delivered(), s.lostSamples(), s.dropped(), s.invalid());
    }

    /** Each tracked buffer's books, with what the daemon drained and what it left in the ring. */
    synchronized List<BufferAccounting> bufferAccounting() {
        List<BufferAccounting> out = new ArrayList<>();
        for (BufferRecord b : buffers) {
            DomainType now = roleOf(b.domid);
            DomainType role = now != DomainType.IGNORED ? now : b.role;
            long user = b.closedUser + b.user();
            long kernel = b.closedKernel + b.kernel();
            long xen = b.closedXen + b.xen();
            long lost = b.closedLost + b.lost();
            long delivered = user + kernel + xen;
            // Per buffer nothing is dropped on purpose, and corrupted indices are only counted globally by Xen.
            Accounting a = new Accounting(delivered + lost, delivered, lost, 0, 0);
            out.add(new BufferAccounting(b.domid, b.reader.vcpu, role.name().toLowerCase(java.util.Locale.ROOT), a,
                    user, kernel, xen, b.drained(), b.reader.pending()));
        }
        return out;
    }

    /** Builds the summary once the consumers' books are known. */
    SessionSummary summarize(String endReason, List<ConsumerAccounting> consumers) {
        samplingStopped();
        XenoprofStatistics stats;
        try {
            stats = xenoprof.statistics();
        } catch (RuntimeException e) {
            stats = null;
        }
        GroundTruth truth;
        try {
            truth = host.groundTruth();
        } catch (RuntimeException e) {
            truth = null;
        }
        SessionSummary s = new SessionSummary(id, accounting(stats), bufferAccounting(), consumers, stats, truth,
                profiledCycles(), endReason);
        synchronized (this) {
            summary = s;
        }
        return s;
    }

    synchronized SessionSummary summary() {
        return summary;
    }
}
