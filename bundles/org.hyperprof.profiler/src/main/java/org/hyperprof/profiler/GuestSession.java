package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.PublishedSession;
import org.hyperprof.pipeline.SymbolTables;

/**
 * The session of the guests' own profilers during a one-shot profile: every domain that runs a
 * profiler against its virtual PMU ({@link Host#guestProfilerBuffers}) is drained by its own
 * daemon as Xenoprof's rings are ({@link BufferReader}: head read once and validated, bulk copy,
 * one tail write), its PCs resolved through its own kernel, module and user images with the same
 * symbol resolvers ({@link DomainView}, {@link SymbolTables}), and its samples published to the
 * consumers in a session of source {@value #SOURCE}, opened through the profiler's publisher
 * machinery (the same isolation and consumer books as any published session).
 *
 * <p>The session's counters are the union of the guests' counters by counter number: the number a
 * sample carries is the guest's own. When two guests program the same number differently, the
 * session lists the lowest domain's configuration and a note names the others.
 *
 * <p>Books, per ring and for the session, from the daemon's side (what the consumers got):
 * <ul>
 * <li>taken: what the guest's profiler logged during the session (its ring's user, kernel and xen
 * counts) plus what found the ring full; if the daemon accounted for more samples than were logged
 * (indices moved after its last read), those;</li>
 * <li>delivered: samples decoded and handed to the consumers;</li>
 * <li>lost: the ring's lost count (it was full);</li>
 * <li>dropped: entries left in the ring that the guest's daemon could not read: the guest was paused
 * at the end (its daemon runs in it) or destroyed during the session (its rings went with it);</li>
 * <li>invalid: samples the daemon read but could not decode (a mode other than user or kernel, a
 * counter the guest did not program), samples it could not read because the guest moved its
 * ring's indices in range ({@link BufferReader#unreachedSamples()}), and samples it could never
 * reach because the guest wrote its ring's head or tail out of range.</li>
 * </ul>
 * Entries a moved index would have made the daemon read a second time (or stale ones) are never
 * delivered and are not in the books; a note says how many.
 * So taken = delivered + lost + dropped + invalid for every ring and for the session.
 *
 * <p>One feeding thread (the one-shot profile's) drains and closes; {@link #abort} may come from
 * another (the profiler is deactivated). Draining holds the collector's lock and allocates nothing
 * per sample.
 */
final class GuestSession implements DomainView.ProblemLog {

    /** The {@code source} of the session consumers see. */
    static final String SOURCE = "guest profiler";
    /** The host counter of the samples the guests' own profilers took ({@code Host.counters()}). */
    static final String HOST_SAMPLES = "guest.samples";
    /** The role a guest's ring has in the session's buffer books. */
    static final String ROLE = "guest";

    /** A guest running a profiler of its own, as the host reports it at the session's start. */
    record Guest(DomainInfo domain, List<SharedBuffer> buffers, List<CounterConfig> counters) {
        Guest {
            buffers = List.copyOf(buffers);
            counters = List.copyOf(counters);
        }
    }

    /**
     * The guests whose own profilers have buffers now, lowest domain first (destroyed domains
     * skipped). Call after {@link Host#restartGuestProfilerBuffers()}.
     */
    static List<Guest> find(Host host) {
        List<Guest> out = new ArrayList<>();
        List<DomainInfo> domains = new ArrayList<>(host.domains());
        domains.sort((a, b) -> Integer.compare(a.domid(), b.domid()));
        for (DomainInfo d : domains) {
            if (OpcontrolService.domainState(host, d.domid()) == DomainState.DESTROYED) {
                continue;
            }
            List<SharedBuffer> buffers = host.guestProfilerBuffers(d.domid());
            if (buffers == null || buffers.isEmpty()) {
                continue;
            }
            List<CounterConfig> counters = host.guestProfilerCounters(d.domid());
            out.add(new Guest(d, buffers, counters == null ? List.of() : counters));
        }
        return out;
    }

    /**
     * The session's counters: the union of the guests' by counter number, in number order; for a
     * number two guests program differently, the lowest domain's (a note says which differ).
     */
    static List<CounterConfig> union(List<Guest> guests, List<String> notes) {
        Map<Integer, CounterConfig> byNumber = new TreeMap<>();
        Map<Integer, Integer> ownerOf = new TreeMap<>();
        for (Guest g : guests) {
            for (CounterConfig c : g.counters()) {
                CounterConfig known = byNumber.putIfAbsent(c.counter(), c);
                if (known == null) {
                    ownerOf.put(c.counter(), g.domain().domid());
                } else if (!known.equals(c)) {
                    notes.add("guests program counter " + c.counter() + " differently: domain " + g.domain().domid()
                            + " counts " + c.event().name() + " (count " + c.count() + "), domain "
                            + ownerOf.get(c.counter()) + " " + known.event().name() + " (count " + known.count()
                            + "); the session lists domain " + ownerOf.get(c.counter()) + "'s, and each sample"
                            + " carries its own guest's counter number (split by domain to tell them apart)");
                }
            }
        }
        return List.copyOf(byNumber.values());
    }

    /** The session's domains: each guest with a profiler, by id. */
    static Map<Integer, String> domains(List<Guest> guests) {
        Map<Integer, String> out = new TreeMap<>();
        for (Guest g : guests) {
            out.put(g.domain().domid(), g.domain().name());
        }
        return out;
    }

    /** One vCPU ring of a guest's profiler and its counts at the session's start. */
    private static final class Ring {
        final BufferReader reader;
        final long userBase;
        final long kernelBase;
        final long xenBase;
        final long lostBase;
        final long corruptedBase;

        Ring(BufferReader reader) {
            this.reader = reader;
            SharedBuffer b = reader.buffer;
            userBase = b.userSamples();
            kernelBase = b.kernelSamples();
            xenBase = b.xenSamples();
            lostBase = b.lostSamples();
            corruptedBase = b.corruptedSamples();
        }
    }

    /** One guest's daemon: its view of its own address space and its rings. */
    private static final class GuestDaemon {
        final int domid;
        final String name;
        final DomainView view;
        final Ring[] rings;
        /** By counter number, the guest's count: each sample's weight. */
        final long[] weights;
        /** The domain was destroyed: its rings were frozen and are not read any more. */
        boolean gone;

        GuestDaemon(int domid, String name, DomainView view, Ring[] rings, long[] weights) {
            this.domid = domid;
            this.name = name;
            this.view = view;
            this.rings = rings;
            this.weights = weights;
        }
    }

    private final Host host;
    private final PublishedSession channel;
    private final Dictionary dictionary;
    private final BatchBuilder collector;
    private final GuestDaemon[] daemons;
    private final long startCycles;
    private final Map<String, Long> startCounters;
    /** Notes by key, each said once (guarded by itself). */
    private final Map<String, String> notes = new LinkedHashMap<>();
    /** Symbol file problems by location (guarded by {@link #notes}). */
    private final Map<String, String> symbolProblems = new LinkedHashMap<>();

    /**
     * @param guests       what {@link #find} found
     * @param channel      the session opened for them
     * @param dictionary   the session's dictionary (the one its start announced)
     * @param openingNotes what was noticed while opening it (counters that differ, ...)
     */
    GuestSession(Host host, List<Guest> guests, PublishedSession channel, Dictionary dictionary,
            SymbolTables symbolTables, int batchSize, List<String> openingNotes) {
        this.host = host;
        this.channel = channel;
        this.dictionary = dictionary;
        this.collector = new BatchBuilder(channel.sessionId(), batchSize, BatchBuilder.Reuse.WHEN_RELEASED, 0,
                channel::publish);
        this.daemons = new GuestDaemon[guests.size()];
        for (int i = 0; i < daemons.length; i++) {
            Guest g = guests.get(i);
            int domid = g.domain().domid();
            int[] numbers = new int[g.counters().size()];
            for (int c = 0; c < numbers.length; c++) {
                numbers[c] = g.counters().get(c).counter();
            }
            Ring[] rings = new Ring[g.buffers().size()];
            for (int r = 0; r < rings.length; r++) {
                rings[r] = new Ring(BufferReader.guestRing(domid, g.buffers().get(r), numbers));
            }
            // The guest's own code only: its kernel, modules and processes (it cannot see Xen's).
            List<Mapping> own = new ArrayList<>();
            for (Mapping m : g.domain().memoryMap()) {
                if (m.kind() != ImageKind.HYPERVISOR) {
                    own.add(m);
                }
            }
            daemons[i] = new GuestDaemon(domid, g.domain().name(),
                    new DomainView(domid, own, dictionary, symbolTables, this), rings,
                    BufferReader.weights(g.counters()));
            if (numbers.length == 0) {
                note("no-counters:" + domid, "domain " + domid + " (" + g.domain().name() + ") has profiler buffers"
                        + " but reported no counters: its samples' counter numbers were not checked");
            }
        }
        for (int i = 0; i < openingNotes.size(); i++) {
            note("opening:" + i, openingNotes.get(i));
        }
        this.startCycles = cycles(host);
        this.startCounters = Session.counters(host);
    }

    long id() {
        return channel.sessionId();
    }

    PublishedSession channel() {
        return channel;
    }

    Dictionary dictionary() {
        return dictionary;
    }

    /** The guests' domain ids, lowest first. */
    List<Integer> domids() {
        List<Integer> out = new ArrayList<>();
        for (GuestDaemon d : daemons) {
            out.add(d.domid);
        }
        return out;
    }

    /**
     * Each guest's daemon drains its rings (during the run, on every progress report, and at the
     * end). A paused guest runs no daemon, so its rings wait; a destroyed one's are frozen.
     *
     * @return entries read
     */
    int drain() {
        return drain(false);
    }

    private int drain(boolean last) {
        int n = 0;
        synchronized (collector) {
            for (GuestDaemon d : daemons) {
                if (d.gone) {
                    continue;
                }
                DomainState st = OpcontrolService.domainState(host, d.domid);
                if (st == DomainState.DESTROYED) {
                    d.gone = true;
                    for (Ring r : d.rings) {
                        r.reader.freeze();
                    }
                    note("destroyed:" + d.domid, "domain " + d.domid + " (" + d.name + ") was destroyed during the"
                            + " session: its profiler's rings went with it; what they still held is counted undrained");
                    continue;
                }
                if (st == DomainState.PAUSED) {
                    note("paused:" + d.domid, "domain " + d.domid + " (" + d.name + ") was paused during the session:"
                            + " its own daemon could not run, so its rings waited (and may have filled)");
                    continue;
                }
                try {
                    for (Ring r : d.rings) {
                        n += r.reader.drain(d.view, collector, 0, 0, d.weights);
                        if (last) {
                            r.reader.finishTraces();
                        }
                    }
                } catch (RuntimeException e) {
                    // A defect, not the guest's doing (garbage in its ring is counted, never thrown):
                    // stop reading this guest and say so; the other guests and the profile go on.
                    d.gone = true;
                    for (Ring r : d.rings) {
                        r.reader.freeze();
                    }
                    note("failed:" + d.domid, "reading the rings of domain " + d.domid + " (" + d.name + ")'s own"
                            + " profiler failed (" + e + "); its daemon stopped, what its rings held is counted"
                            + " undrained. This is a defect: report it with the scenario.");
                }
            }
        }
        return n;
    }

    /**
     * The last drain, the last batch, and the end: consumers get {@code sessionEnded} with these
     * books. Idempotent (a session already ended returns its summary).
     */
    SessionSummary close(String endReason) {
        drain(true);
        collector.close();
        List<BufferAccounting> buffers = new ArrayList<>();
        List<Integer> corruptedRings = new ArrayList<>();
        long drainedAll = 0;
        long ringTaken = 0;
        BufferReader.DecodeCounts decodeAll = BufferReader.DecodeCounts.ZERO;
        List<String> lines = new ArrayList<>();
        synchronized (collector) {
            for (GuestDaemon d : daemons) {
                for (Ring r : d.rings) {
                    BufferReader.DecodeCounts c = r.reader.decodeCounts();
                    if (c.badHeadReads() + c.badTailReads() > 0 || !r.reader.frozen() && r.reader.indicesCorrupt()) {
                        corruptedRings.add(buffers.size());
                    }
                    buffers.add(books(d, r, lines));
                    SharedBuffer b = r.reader.buffer;
                    ringTaken += b.userSamples() - r.userBase + b.kernelSamples() - r.kernelBase + b.xenSamples()
                            - r.xenBase + b.lostSamples() - r.lostBase + b.corruptedSamples() - r.corruptedBase;
                    drainedAll += r.reader.drainedEntries();
                    decodeAll = decodeAll.plus(c);
                }
            }
        }
        Map<String, Long> counters = Session.counterDelta(startCounters, Session.counters(host));
        chargeRefused(buffers, corruptedRings, counters.get(HOST_SAMPLES), ringTaken, lines);
        Accounting total = Accounting.ZERO;
        for (BufferAccounting b : buffers) {
            total = total.plus(b.accounting());
        }
        List<String> all = new ArrayList<>();
        synchronized (notes) {
            all.addAll(notes.values());
        }
        all.addAll(lines);
        synchronized (notes) {
            all.addAll(symbolProblems.values());
        }
        counters.put("guest-profiler.entries.drained", drainedAll);
        counters.put("guest-profiler.head.out-of-range", decodeAll.badHeadReads());
        counters.put("guest-profiler.tail.out-of-range", decodeAll.badTailReads());
        counters.put("guest-profiler.entries.bad-mode", decodeAll.badModes());
        counters.put("guest-profiler.entries.bad-counter", decodeAll.badEvents());
        return channel.close(total, buffers, groundTruth(host), Math.max(0, cycles(host) - startCycles), counters,
                all, endReason);
    }

    /**
     * Samples the guests' profilers took that no ring shows (a ring that keeps no count of the
     * samples it refused, {@code SharedBuffer.corruptedSamples()} being 0): as the Xenoprof session
     * does with Xen's global corrupted count, they are charged (taken and invalid) to the ring seen
     * with indices out of range when it is the only one; otherwise a note gives the difference.
     */
    private static void chargeRefused(List<BufferAccounting> buffers, List<Integer> corruptedRings, Long hostTaken,
            long ringTaken, List<String> lines) {
        if (hostTaken == null) {
            return;
        }
        long taken = ringTaken;
        long missing = hostTaken - taken;
        if (missing <= 0) {
            return;
        }
        if (corruptedRings.size() == 1) {
            int i = corruptedRings.get(0);
            BufferAccounting b = buffers.get(i);
            Accounting a = b.accounting();
            buffers.set(i, new BufferAccounting(b.domid(), b.vcpu(), b.role(), new Accounting(a.taken() + missing,
                    a.delivered(), a.lost(), a.dropped(), a.invalid() + missing), b.userSamples(), b.kernelSamples(),
                    b.xenSamples(), b.drained(), b.undrained()));
            lines.add("the host refused " + missing + " sample(s) of the guests' profilers because a ring's indices"
                    + " were out of range: charged (invalid) to domain " + b.domid() + " vcpu " + b.vcpu()
                    + ", the only ring seen with indices out of range");
        } else {
            lines.add("the host counts " + hostTaken + " sample(s) taken by the guests' profilers, their rings show "
                    + taken + ": " + missing + " were refused or went to rings this session did not read"
                    + (corruptedRings.isEmpty() ? "" : " (" + corruptedRings.size() + " rings were seen with indices"
                            + " out of range)") + "; they are not in the session's books");
        }
    }

    /** The profiler stops: nothing more is published, the consumers get the end now. */
    SessionSummary abort(String reason) {
        collector.close();
        return channel.endNow(reason);
    }

    /** One ring's books (see the class comment); what needs saying goes into {@code lines}. Collector lock held. */
    private static BufferAccounting books(GuestDaemon d, Ring r, List<String> lines) {
        BufferReader reader = r.reader;
        SharedBuffer b = reader.buffer;
        long user = b.userSamples() - r.userBase;
        long kernel = b.kernelSamples() - r.kernelBase;
        long xen = b.xenSamples() - r.xenBase;
        long lost = b.lostSamples() - r.lostBase;
        // Refused by the producer because the guest had scribbled on the ring's indices: taken and invalid.
        long refused = b.corruptedSamples() - r.corruptedBase;
        long logged = user + kernel + xen;
        long drained = reader.drainedEntries();
        long delivered = reader.samples();
        // Samples the daemon accounted for: delivered, read but undecodable, or not readable (moved indices).
        long accounted = delivered + reader.badEvents() + reader.badModes() + reader.unreachedSamples();
        long undrained = reader.pending();
        long unreachable = Math.max(0, logged - accounted - undrained);
        long excess = Math.max(0, accounted + undrained - logged);
        long invalid = (accounted - delivered) + unreachable + refused;
        Accounting a = new Accounting(Math.max(logged, accounted + undrained) + lost + refused, delivered, lost,
                undrained, invalid);
        String ring = "domain " + d.domid + " vcpu " + reader.vcpu + " (its own profiler)";
        BufferReader.DecodeCounts c = reader.decodeCounts();
        String decoding = c.decodingText();
        if (!decoding.isEmpty()) {
            lines.add(ring + ": the daemon skipped what it could not decode: " + decoding + " (counted invalid)");
        }
        String indices = c.indexText();
        if (!indices.isEmpty() || unreachable > 0 && reader.indicesCorrupt()) {
            lines.add(ring + ": the guest wrote garbage into its ring's indices" + (indices.isEmpty() ? "" : ": "
                    + indices) + "; " + unreachable + " logged entr(ies) could not be reached (counted invalid)");
        } else if (unreachable > 0) {
            lines.add(ring + ": " + unreachable + " logged entr(ies) were never read (the guest moved its ring's"
                    + " indices back over them; counted invalid)");
        }
        if (excess > 0) {
            lines.add(ring + ": the daemon accounted for " + excess + " sample(s) more than the guest's profiler"
                    + " logged (the guest moved its ring's indices after the last read); taken counts them");
        }
        if (lost > 0) {
            lines.add(ring + ": " + lost + " sample(s) found the ring full (lost)");
        }
        if (refused > 0) {
            lines.add(ring + ": the profiler could not log " + refused + " sample(s) because the ring's indices were"
                    + " out of range (counted invalid)");
        }
        return new BufferAccounting(d.domid, reader.vcpu, ROLE, a, user, kernel, xen, drained, undrained);
    }

    void note(String key, String text) {
        synchronized (notes) {
            notes.putIfAbsent(key, text);
        }
    }

    @Override
    public void symbolProblem(String location, String message) {
        synchronized (notes) {
            symbolProblems.putIfAbsent(location, message);
        }
    }

    private static long cycles(Host host) {
        try {
            return host.cycles();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static GroundTruth groundTruth(Host host) {
        try {
            return host.groundTruth();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
