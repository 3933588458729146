package org.hyperprof.report.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.BiConsumer;
import java.util.function.Function;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * The last few sessions a report-writing consumer keeps, each with its own aggregate: what every
 * {@link SampleConsumer} that is also a {@code ReportRenderer} or {@code ReportFileWriter} needs
 * around its own counting. It makes an aggregate when a session starts (dropping the oldest past
 * the limit), finds it for each batch, records the session's summary when it ends, lists the kept
 * sessions, and resolves a {@link ReportRequest}'s session with a clear {@link ReportException}.
 * Deliveries it cannot attribute to a kept session (a null batch, a batch or an end for a session
 * it never saw or already dropped, a start the aggregate factory refused) are "strays": counted,
 * never fatal, and available for a report's footer through {@link #strays()}.
 *
 * <p>Thread-safe: the profiler calls {@link #started}, {@link #aggregateFor} and {@link #ended} on
 * the consumer's delivery thread while reports resolve sessions from any thread. Finding the
 * aggregate for a batch of the same session as the batch before takes no lock and allocates
 * nothing. No static state: each consumer makes its own shelf.
 *
 * @param <A> the consumer's per-session aggregate
 */
public final class SessionShelf<A> {

    /** One kept session: what it is, its aggregate, and its summary once it has ended. */
    public static final class Entry<A> {
        private final SessionInfo info;
        private final A aggregate;
        private volatile SessionSummary summary;

        private Entry(SessionInfo info, A aggregate) {
            this.info = info;
            this.aggregate = aggregate;
        }

        public long sessionId() {
            return info.sessionId();
        }

        public SessionInfo info() {
            return info;
        }

        public A aggregate() {
            return aggregate;
        }

        /** The session's summary, or null while it runs. */
        public SessionSummary summary() {
            return summary;
        }

        @Override
        public String toString() {
            return "session " + info.sessionId() + (summary == null ? " (running)" : " (ended)");
        }
    }

    /**
     * Deliveries that named no session the consumer keeps.
     *
     * @param deliveries how many calls were strays
     * @param samples    the samples in stray batches
     * @param first      what the first stray was (null when there was none)
     */
    public record Strays(long deliveries, long samples, String first) {
        public static final Strays NONE = new Strays(0, 0, null);

        public boolean any() {
            return deliveries > 0;
        }
    }

    private final String owner;
    private final String nextStep;
    private final int retained;
    private final Function<SessionInfo, A> factory;

    /**
     * Oldest first; guarded by itself, as are the stray counts. A list, not a deque: searching it
     * by index needs no iterator, so a batch of another session than the last allocates nothing.
     */
    private final ArrayList<Entry<A>> entries = new ArrayList<>();

    /** The session the last batch went to: spares the delivery thread a search (and a lock) per batch. */
    private volatile Entry<A> lastTarget;

    private long strayDeliveries;
    private long straySamples;
    private String firstStray;

    /**
     * @param owner    how messages name the consumer, e.g. {@code opreport} or {@code the flame graph}
     * @param nextStep what to do once a session exists, e.g. {@code ask for its report}
     * @param retained sessions kept (at least 1); a new session past that drops the oldest
     * @param factory  makes a session's aggregate when it starts; one that throws
     *                 {@link IllegalArgumentException} turns the start into a stray
     */
    public SessionShelf(String owner, String nextStep, int retained, Function<SessionInfo, A> factory) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.nextStep = Objects.requireNonNull(nextStep, "nextStep");
        this.factory = Objects.requireNonNull(factory, "factory");
        if (retained < 1) {
            throw new IllegalArgumentException(owner + " must keep at least 1 session, not " + retained);
        }
        this.retained = retained;
    }

    /** Sessions kept at most. */
    public int retained() {
        return retained;
    }

    /**
     * Makes and keeps the aggregate of a starting session (replacing one of the same id, dropping
     * the oldest past the limit).
     *
     * @return the new aggregate, or null when {@code session} is null or the factory refused it
     *         (both counted as strays)
     */
    public A started(SessionInfo session) {
        if (session == null) {
            stray("a session start without session", 0);
            return null;
        }
        A aggregate;
        try {
            aggregate = factory.apply(session);
        } catch (IllegalArgumentException e) {
            stray("the start of session " + session.sessionId() + ": " + e.getMessage(), 0);
            return null;
        }
        Entry<A> entry = new Entry<>(session, aggregate);
        synchronized (entries) {
            entries.removeIf(e -> e.sessionId() == session.sessionId());
            entries.add(entry);
            while (entries.size() > retained) {
                entries.remove(0);
            }
        }
        lastTarget = entry;
        return aggregate;
    }

    /**
     * The aggregate {@code batch} belongs to.
     *
     * @return it, or null when the batch is null or its session is not kept (counted as a stray
     *         with the batch's samples)
     */
    public A aggregateFor(SampleBatch batch) {
        if (batch == null) {
            stray("a null batch", 0);
            return null;
        }
        Entry<A> target = lastTarget;
        if (target == null || target.sessionId() != batch.sessionId) {
            target = find(batch.sessionId);
            if (target == null) {
                stray("a batch of " + batch.size + " samples for session " + batch.sessionId, batch.size);
                return null;
            }
            lastTarget = target;
        }
        return target.aggregate;
    }

    /**
     * Hands {@code batch} to its session's aggregate through {@code accept} (a method reference
     * such as {@code MyAggregate::accept}: made once, so no allocation per batch); a stray is only
     * counted.
     */
    public void deliver(SampleBatch batch, BiConsumer<? super A, ? super SampleBatch> accept) {
        A target = aggregateFor(batch);
        if (target != null) {
            accept.accept(target, batch);
        }
    }

    /**
     * The aggregate of the session with this id.
     *
     * @return it, or null when that session is not kept (counted as a stray without samples)
     */
    public A aggregateFor(long sessionId) {
        Entry<A> target = lastTarget;
        if (target == null || target.sessionId() != sessionId) {
            target = find(sessionId);
            if (target == null) {
                stray("a delivery for session " + sessionId, 0);
                return null;
            }
        }
        return target.aggregate;
    }

    /**
     * Records a session's summary.
     *
     * @return the session's aggregate (for the consumer to close), or null when the summary is null
     *         or its session is not kept (counted as a stray)
     */
    public A ended(SessionSummary summary) {
        if (summary == null) {
            stray("a session end without summary", 0);
            return null;
        }
        Entry<A> target = find(summary.sessionId());
        if (target == null) {
            stray("the end of session " + summary.sessionId(), 0);
            return null;
        }
        target.summary = summary;
        return target.aggregate;
    }

    /**
     * Records a session's summary and hands it to the session's aggregate through {@code end}; a
     * stray is only counted.
     */
    public void ended(SessionSummary summary, BiConsumer<? super A, ? super SessionSummary> end) {
        A target = ended(summary);
        if (target != null) {
            end.accept(target, summary);
        }
    }

    /** The ids of the kept sessions, oldest first. */
    public List<Long> sessions() {
        synchronized (entries) {
            List<Long> ids = new ArrayList<>(entries.size());
            for (Entry<A> e : entries) {
                ids.add(e.sessionId());
            }
            return List.copyOf(ids);
        }
    }

    /**
     * The session a request asks for.
     *
     * @throws ReportException when the request is null, no session exists yet, or the asked one is
     *                         not kept (naming the kept ones)
     */
    public Entry<A> resolve(ReportRequest request) throws ReportException {
        if (request == null) {
            throw new ReportException("no report request; ask for a session (or the latest) and a domain (or all)");
        }
        return resolve(request.sessionId());
    }

    /**
     * The kept session with this id, or the newest for {@link ReportRequest#LATEST}.
     *
     * @throws ReportException when no session exists yet, or that one is not kept (naming the kept
     *                         ones)
     */
    public Entry<A> resolve(long sessionId) throws ReportException {
        synchronized (entries) {
            if (entries.isEmpty()) {
                String strays = strayDeliveries == 0 ? ""
                        : " (it got " + strayDeliveries + " deliveries for no session it knew, first: " + firstStray
                                + ")";
                throw new ReportException(owner + " has no session yet; run a profile first (e.g. hp:profile), then "
                        + nextStep + strays);
            }
            if (sessionId == ReportRequest.LATEST) {
                return entries.get(entries.size() - 1);
            }
            Entry<A> found = find(sessionId);
            if (found != null) {
                return found;
            }
            StringJoiner kept = new StringJoiner(", ");
            for (Entry<A> e : entries) {
                kept.add(Long.toString(e.sessionId()));
            }
            throw new ReportException(owner + " has no session " + sessionId + "; the sessions it keeps are " + kept
                    + " (the last " + retained + " at most); ask for one of them or for the latest");
        }
    }

    /** The deliveries so far that named no kept session. */
    public Strays strays() {
        synchronized (entries) {
            return strayDeliveries == 0 ? Strays.NONE : new Strays(strayDeliveries, straySamples, firstStray);
        }
    }

    private Entry<A> find(long sessionId) {
        synchronized (entries) {
            for (int i = entries.size() - 1; i >= 0; i--) {
                Entry<A> e = entries.get(i);
                if (e.sessionId() == sessionId) {
                    return e;
                }
            }
            return null;
        }
    }

    private void stray(String what, int samples) {
        synchronized (entries) {
            strayDeliveries++;
            straySamples += samples;
            if (firstStray == null) {
                firstStray = what;
            }
        }
    }

    @Override
    public String toString() {
        return owner + " (" + sessions().size() + " of at most " + retained + " sessions kept)";
    }
}
