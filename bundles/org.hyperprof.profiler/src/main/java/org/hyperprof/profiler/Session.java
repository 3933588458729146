package org.hyperprof.profiler;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.SymbolTables;

/**
 * One profiling session: from the primary's successful {@code --start-daemon} to its
 * {@code --shutdown} (or the host stopping). Holds the dictionary, the batch collector, each
 * domain's view (the primary's coarse views of passive domains included), the buffers whose books
 * the summary reports, the profiled cycles, the host's counters at the start, and the notes of
 * problems that did not stop it.
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
        BufferReader.DecodeCounts decodeBase;
        /** Counts of earlier readers or buffers of this vCPU in this session. */
        long closedUser;
        long closedKernel;
        long closedXen;
        long closedLost;
        long closedDrained;
        long closedUndrained;
        BufferReader.DecodeCounts closedDecode = BufferReader.DecodeCounts.ZERO;
        DomainType role;

        BufferRecord(int domid, BufferReader reader, DomainType role) {
            this.domid = domid;
            this.vcpu = reader.vcpu;
            this.role = role;
            this.reader = reader;
            userBase = reader.buffer.userSamples();
            kernelBase = reader.buffer.kernelSamples();
            xenBase = reader.buffer.xenSamples();
            lostBase = reader.buffer.lostSamples();
            drainedBase = reader.drainedEntries();
            decodeBase = reader.decodeCounts();
        }

        /** Starts following a new reader; Xen's counters carry on when it reads the same shared page. */
        void attach(BufferReader next) {
            closedDrained += reader.drainedEntries() - drainedBase;
            closedDecode = closedDecode.plus(reader.decodeCounts().minus(decodeBase));
            if (next.buffer != reader.buffer) {
                closedUser += user();
                closedKernel += kernel();
                closedXen += xen();
                closedLost += lost();
                closedUndrained += reader.pending();
                userBase = next.buffer.userSamples();
                kernelBase = next.buffer.kernelSamples();
                xenBase = next.buffer.xenSamples();
                lostBase = next.buffer.lostSamples();
            } else if (reader.frozen()) {
                // What the old reader left was fixed before Xen reset the indices for the new one.
                closedUndrained += reader.pending();
            }
            drainedBase = next.drainedEntries();
            decodeBase = next.decodeCounts();
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

        long undrained() {
            return closedUndrained + reader.pending();
        }

        BufferReader.DecodeCounts decode() {
            return closedDecode.plus(reader.decodeCounts().minus(decodeBase));
        }

        /**
         * Whether Xen may have counted samples aimed at this buffer as corrupted: the session saw the
         * guest's page with an index out of range, or the buffer has no slot (every index is out of range).
         */
        boolean corruptionSeen() {
            BufferReader.DecodeCounts d = decode();
            return d.badHeadReads() + d.badTailReads() > 0 || !reader.frozen() && reader.indicesCorrupt()
                    || reader.size == 0;
        }

        String name() {
            return "domain " + domid + " vcpu " + vcpu;
        }
    }

    final long id;
    final Host host;
    final Xenoprof xenoprof;
    final int primary;
    final SessionInfo info;
    final Dictionary dictionary;
    final BatchBuilder collector;
    /** By counter number, the count of the session's counters: each sample's weight. */
    final long[] weights;
    /** The columns the IBS blocks feed, or null when the session counts no IBS event. */
    final IbsColumns ibsColumns;
    private final SymbolTables symbolTables;
    private final Map<String, Long> startCounters;

    /** Guarded by the collector's lock (views are created and used while draining). */
    private final Map<Integer, DomainView> views = new HashMap<>();
    private final Map<Integer, PassiveView> passiveViews = new HashMap<>();
    private final Map<String, String> symbolProblems = new LinkedHashMap<>();
    /** Notes of what happened during the session, by a key so that each is said once. */
    private final Map<String, String> notes = new LinkedHashMap<>();
    private final List<BufferRecord> buffers = new ArrayList<>();

    private long samplingSince = -1;
    private long profiledCycles;
    private SessionSummary summary;

    Session(long id, Host host, int primary, SessionInfo info, Dictionary dictionary,
            BatchBuilder collector, SymbolTables symbolTables) {
        this.id = id;
        this.host = host;
        this.xenoprof = host.xenoprof();
        this.primary = primary;
        this.info = info;
        this.dictionary = dictionary;
        this.collector = collector;
        this.weights = BufferReader.weights(info.counters());
        this.ibsColumns = IbsColumns.of(host.model(), info.counters());
        this.symbolTables = symbolTables;
        this.startCounters = counters(host);
    }

    static Map<String, Long> counters(Host host) {
        try {
            Map<String, Long> c = host.counters();
            return c == null ? Map.of() : new TreeMap<>(c);
        } catch (RuntimeException e) {
            return Map.of();
        }
    }

    /** The domain's own view; the caller holds the collector's lock. */
    DomainView view(int domid) {
        DomainView v = views.get(domid);
        if (v == null) {
            DomainInfo d = host.domain(domid);
            v = new DomainView(domid, d.memoryMap(), dictionary, symbolTables, this);
            views.put(domid, v);
        }
        return v;
    }

    /**
     * The coarse view through which the primary drains passive domain {@code domid}; null when
     * {@code drainer} is not this session's primary (only the primary reads passive buffers). The
     * caller holds the collector's lock.
     */
    PassiveView passiveView(int drainer, int domid, PassiveView.KernelImage image) {
        if (drainer != primary) {
            return null;
        }
        PassiveView v = passiveViews.get(domid);
        if (v == null) {
            v = new PassiveView(host.domain(domid), image, dictionary, symbolTables, this);
            passiveViews.put(domid, v);
        }
        return v;
    }

    /** The domain's own view if it has one yet (for --status and --reset). */
    DomainView existingView(int domid) {
        synchronized (collector) {
            return views.get(domid);
        }
    }

    /** The primary's view of a passive domain if it has one yet (for --status and --reset). */
    PassiveView existingPassiveView(int domid) {
        synchronized (collector) {
            return passiveViews.get(domid);
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

    /** Records what happened (a domain destroyed, a daemon held ...); a note with the same key is replaced. */
    void note(String key, String text) {
        synchronized (notes) {
            notes.put(key, text);
        }
    }

    /** Whether a note with that key was made. */
    boolean noted(String key) {
        synchronized (notes) {
            return notes.containsKey(key);
        }
    }

    /** Starts reporting the books of a domain's buffers (its daemon started, or the primary mapped them). */
    synchronized void track(int domid, BufferReader[] readers, DomainType role) {
        for (BufferReader r : readers) {
            BufferRecord known = null;
            for (BufferRecord b : buffers) {
                if (b.domid == domid && b.vcpu == r.vcpu) {
                    known = b;
                }
            }
            if (known == null) {
                // What an earlier session left in the ring is that session's: passed over, not drained here.
                r.sessionStarts();
                buffers.add(new BufferRecord(domid, r, role));
            } else {
                known.role = role;
                if (known.reader != r) {
                    known.attach(r);
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

    /** The domains whose buffers the session tracks. */
    synchronized TreeSet<Integer> trackedDomains() {
        TreeSet<Integer> out = new TreeSet<>();
        for (BufferRecord b : buffers) {
            out.add(b.domid);
        }
        return out;
    }

    private DomainType roleOf(int domid) {
        return roleOf(xenoprof, domid);
    }

    /** The domain's Xenoprof role now; a domain Xenoprof cannot say anything of is ignored. */
    static DomainType roleOf(Xenoprof xenoprof, int domid) {
        return DomainAnswers.ask(xenoprof, domid, Xenoprof::domainType, DomainType.IGNORED);
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

    /**
     * The session's books: Xen's, with the samples Xen wrote that the daemons could not read because
     * a guest moved its buffer's indices ({@link BufferReader#unreachedSamples()}) moved from
     * delivered to invalid, as in each buffer's books.
     */
    private Accounting accounting(XenoprofStatistics stats, long unreached) {
        Accounting a = accounting(stats);
        return new Accounting(a.taken(), a.delivered() - unreached, a.lost(), a.dropped(), a.invalid() + unreached);
    }

    /**
     * Each tracked buffer's books, with what the daemon drained and what it left in the ring. Xen
     * counts corrupted samples only globally; they are charged to a buffer when it is the only one
     * the session saw with an index out of range (the guest that wrote garbage harmed only itself).
     * Samples Xen wrote that the daemon could not read because the guest moved the indices in range
     * are invalid too, not delivered.
     */
    synchronized List<BufferAccounting> bufferAccounting() {
        return bufferAccounting(corruptedShares(statisticsOrNull()));
    }

    private List<BufferAccounting> bufferAccounting(Map<BufferRecord, Long> corrupted) {
        List<BufferAccounting> out = new ArrayList<>();
        for (BufferRecord b : buffers) {
            DomainType now = roleOf(b.domid);
            DomainType role = now != DomainType.IGNORED ? now : b.role;
            long user = b.closedUser + b.user();
            long kernel = b.closedKernel + b.kernel();
            long xen = b.closedXen + b.xen();
            long lost = b.closedLost + b.lost();
            long unreached = b.decode().unreachedSamples();
            long delivered = user + kernel + xen - unreached;
            long invalid = corrupted.getOrDefault(b, 0L) + unreached;
            Accounting a = new Accounting(delivered + lost + invalid, delivered, lost, 0, invalid);
            out.add(new BufferAccounting(b.domid, b.vcpu, role.name().toLowerCase(Locale.ROOT), a, user, kernel, xen,
                    b.drained(), b.undrained()));
        }
        return out;
    }

    private XenoprofStatistics statisticsOrNull() {
        try {
            return xenoprof.statistics();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The corrupted samples charged to a buffer: all of them to the only buffer seen corrupted, else none. */
    private Map<BufferRecord, Long> corruptedShares(XenoprofStatistics stats) {
        Map<BufferRecord, Long> out = new HashMap<>();
        long corrupted = stats == null ? 0 : stats.corruptedBufferSamples();
        List<BufferRecord> seen = corruptedBuffers();
        if (corrupted > 0 && seen.size() == 1) {
            out.put(seen.get(0), corrupted);
        }
        return out;
    }

    private List<BufferRecord> corruptedBuffers() {
        List<BufferRecord> seen = new ArrayList<>();
        for (BufferRecord b : buffers) {
            if (b.corruptionSeen()) {
                seen.add(b);
            }
        }
        return seen;
    }

    /** Builds the summary once the consumers' books are known. */
    SessionSummary summarize(String endReason, List<ConsumerAccounting> consumers) {
        samplingStopped();
        XenoprofStatistics stats = statisticsOrNull();
        GroundTruth truth;
        try {
            truth = host.groundTruth();
        } catch (RuntimeException e) {
            truth = null;
        }
        List<BufferAccounting> books;
        List<String> lines;
        Accounting total;
        synchronized (this) {
            Map<BufferRecord, Long> corrupted = corruptedShares(stats);
            books = bufferAccounting(corrupted);
            long unreached = 0;
            for (BufferRecord b : buffers) {
                unreached += b.decode().unreachedSamples();
            }
            total = accounting(stats, unreached);
            lines = summaryNotes(stats, total, books);
        }
        lines.addAll(unlistedBooks(books));
        lines.addAll(outsideSymbolNotes()); // under the collector's lock, not this session's
        Map<String, Long> counters = hostCounters();
        lines.addAll(counterNotes(counters));
        SessionSummary s = new SessionSummary(id, total, books, consumers, stats, truth,
                profiledCycles(), endReason, counters, lines);
        synchronized (this) {
            summary = s;
        }
        return s;
    }

    /**
     * The host's counters over the session: end minus start, for every name seen at either end;
     * gauges (see {@link Host#counters()}: names ending in {@code .max} or holding {@code .mode.})
     * as they read at the end.
     */
    Map<String, Long> hostCounters() {
        return counterDelta(startCounters, counters(host));
    }

    /** The host's counters from {@code startCounters} to {@code end}, as {@link #hostCounters()} reports them. */
    static Map<String, Long> counterDelta(Map<String, Long> startCounters, Map<String, Long> end) {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, Long> e : end.entrySet()) {
            long v = e.getValue() == null ? 0 : e.getValue();
            if (isGauge(e.getKey())) {
                out.put(e.getKey(), v);
                continue;
            }
            long start = startCounters.getOrDefault(e.getKey(), 0L);
            // Counters that Xenoprof resets when a session starts may read lower than at the start.
            out.put(e.getKey(), v >= start ? v - start : v);
        }
        for (String k : startCounters.keySet()) {
            out.putIfAbsent(k, 0L);
        }
        return out;
    }

    static boolean isGauge(String name) {
        return name.endsWith(".max") || name.contains(".mode.");
    }

    /** What the host's counters tell about call traces Xen cut short and buffers destroyed domains left. */
    private static List<String> counterNotes(Map<String, Long> c) {
        List<String> out = new ArrayList<>();
        long lost = c.getOrDefault("trace.entries.lost", 0L);
        long corrupted = c.getOrDefault("trace.entries.corrupted", 0L);
        long escape = c.getOrDefault("trace.escape.rejected", 0L);
        if (lost + corrupted + escape > 0) {
            out.add("Xen cut call traces short: " + lost + " return address(es) found the ring full, " + corrupted
                    + " found its indices out of range, and " + escape + " walk(s) stopped at a return address equal"
                    + " to the escape value; the samples themselves were kept (Xen's own counters fold these into"
                    + " lost, corrupted and invalid samples)");
        }
        long undrained = c.getOrDefault("xenoprof.destroyed.undrained", 0L);
        if (undrained > 0) {
            out.add("destroyed domains left " + undrained + " buffer entries unread (host counter"
                    + " xenoprof.destroyed.undrained)");
        }
        return out;
    }

    /** Caller holds this session's monitor. */
    private List<String> summaryNotes(XenoprofStatistics stats, Accounting total, List<BufferAccounting> books) {
        List<String> out = new ArrayList<>();
        synchronized (notes) {
            out.addAll(notes.values());
        }
        TreeMap<Integer, Integer> tooFewSlots = new TreeMap<>();
        for (BufferRecord b : buffers) {
            if (b.reader.size < 2) {
                tooFewSlots.put(b.domid, b.reader.size);
            }
        }
        tooFewSlots.forEach((domid, slots) -> out.add(BufferReader.tooFewSlotsText(domid, slots)));
        for (BufferRecord b : buffers) {
            BufferReader.DecodeCounts d = b.decode();
            String decoding = d.decodingText();
            if (!decoding.isEmpty()) {
                out.add(b.name() + ": the daemon skipped what it could not decode: " + decoding
                        + "; no skipped entry was given to another sample or domain");
            }
            long undecoded = d.ibsBlocks() - d.ibsSamples();
            if (undecoded > 0) {
                out.add(b.name() + ": " + undecoded + " AMD IBS block(s) read (instruction-based sampling, set up"
                        + " with the ibs_counter operation) that no IBS_FETCH_* or IBS_OP_* event of the session"
                        + " asked for: each counts as one sample delivered, but is in no report column; count"
                        + " IBS_FETCH_ALL or IBS_OP_ALL (hp:profile --event) to see them per symbol");
            }
            String indices = d.indexText();
            if (!indices.isEmpty()) {
                out.add(b.name() + ": the guest wrote garbage into its shared page: " + indices);
            }
        }
        long corrupted = stats == null ? 0 : stats.corruptedBufferSamples();
        if (corrupted > 0) {
            List<BufferRecord> seen = corruptedBuffers();
            boolean noSlots = !seen.isEmpty() && seen.stream().allMatch(b -> b.reader.size == 0);
            if (noSlots) {
                out.add("Xen dropped " + corrupted + " sample(s) as corrupted because " + (seen.size() == 1
                        ? seen.get(0).name() + " has" : seen.stream().map(BufferRecord::name).toList() + " have")
                        + " no slot (see the note on their size)" + (seen.size() == 1 ? ": charged to it"
                                : ": Xen counts them globally, so they are in the session's invalid count only"));
            } else if (seen.size() == 1) {
                out.add("Xen dropped " + corrupted + " sample(s) as corrupted (event_head or event_tail out of range):"
                        + " charged to " + seen.get(0).name() + ", the only buffer seen with indices out of range");
            } else if (seen.isEmpty()) {
                out.add("Xen dropped " + corrupted + " sample(s) as corrupted (event_head or event_tail out of range),"
                        + " but no daemon saw the bad indices (the guest put them back before a drain): they are in"
                        + " the session's invalid count only");
            } else {
                out.add("Xen dropped " + corrupted + " sample(s) as corrupted (event_head or event_tail out of range)"
                        + " in one of " + seen.stream().map(BufferRecord::name).toList()
                        + ": Xen counts them globally, so they are in the session's invalid count only");
            }
        }
        if (stats != null) {
            long delivered = 0;
            long lost = 0;
            for (BufferAccounting b : books) {
                delivered += b.accounting().delivered();
                lost += b.accounting().lost();
            }
            if (delivered != total.delivered() || lost != stats.lostSamples()) {
                out.add("the buffers this session tracked hold " + delivered + " delivered and " + lost
                        + " lost sample(s), Xen counted " + total.delivered() + " and " + stats.lostSamples()
                        + ": the difference went to buffers no daemon of the session mapped");
            }
        }
        if (ibsColumns != null && total.lost() > 0) {
            int slots = buffers.stream().mapToInt(b -> b.reader.size).filter(n -> n > 0).min().orElse(0);
            out.add("Xen lost " + total.lost() + " sample(s) to full buffers, and the session samples IBS: Xen writes"
                    + " each IBS op sample as " + BufferReader.IBS_OP_ENTRIES + " entries and each fetch sample as "
                    + BufferReader.IBS_FETCH_ENTRIES + ", so buffers of " + slots + " slots fill quickly; ask for"
                    + " more (hp:opcontrol <domid> --start-daemon --buffer-size=2048 on every profiled domain)");
        }
        out.addAll(symbolProblems());
        return out;
    }

    /**
     * The books of each domain the session kept no buffer of (in neither list): Xen drops its
     * samples, so all it was taken is dropped, which the session's dropped count holds with the
     * idle domain's.
     */
    private List<String> unlistedBooks(List<BufferAccounting> books) {
        Set<Integer> kept = new HashSet<>();
        for (BufferAccounting b : books) {
            kept.add(b.domid());
        }
        List<String> out = new ArrayList<>();
        List<DomainInfo> domains;
        try {
            domains = host.domains();
        } catch (RuntimeException e) {
            return out; // a host that cannot list its domains gives no per-domain books
        }
        for (DomainInfo d : domains) {
            if (!kept.contains(d.domid())) {
                long dropped = xenoprof.droppedSamples(d.domid());
                out.add(d.name() + " (domain " + d.domid() + ", unlisted): "
                        + new Accounting(dropped, 0, 0, dropped, 0).line() + " (Xen drops the samples of a domain in"
                        + " neither list)");
            }
        }
        return out;
    }

    /** Images some of whose samples fell outside every symbol of their table, domain by domain. */
    private List<String> outsideSymbolNotes() {
        List<String> out = new ArrayList<>();
        synchronized (collector) {
            for (Integer domid : new TreeSet<>(views.keySet())) {
                out.addAll(views.get(domid).outsideSymbolNotes("domain " + domid));
            }
            for (Integer domid : new TreeSet<>(passiveViews.keySet())) {
                out.addAll(passiveViews.get(domid).outsideSymbolNotes());
            }
        }
        return out;
    }

    synchronized SessionSummary summary() {
        return summary;
    }
}
