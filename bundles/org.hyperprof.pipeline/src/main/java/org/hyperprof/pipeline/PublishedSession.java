package org.hyperprof.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionSummary;

/**
 * A session fed by a sample source other than the simulated host (a perf.data import, a live
 * {@code perf record}), through the profiler's {@link Dispatcher}: the same consumers, each
 * on its own thread behind its bounded queue, the same books of what each received and missed.
 *
 * <p>A replayed session (a stored one fed again, {@link SessionPublisher#replay}) is one too: it
 * ends with the summary it was recorded with ({@link #close(SessionSummary)}).
 *
 * <p>One feeding thread publishes and closes. The profiler may end the session first (it is
 * deactivated): later batches are refused, and {@link #close} returns the summary made then.
 */
public final class PublishedSession implements SessionPublisher.Channel, SessionPublisher.Replay {

    /** Told when the session ends, under the profiler's lock; returns the summary to keep. */
    public interface Ending {
        SessionSummary end(PublishedSession session, java.util.function.Supplier<SessionSummary> summarize);
    }

    private final long id;
    private final String source;
    private final Dispatcher dispatcher;
    private final long endTimeoutNanos;
    private final Ending ending;
    /** Samples handed to the dispatcher. */
    private long published;
    private volatile SessionSummary summary;

    public PublishedSession(long id, String source, Dispatcher dispatcher, long endTimeoutNanos, Ending ending) {
        this.id = id;
        this.source = source;
        this.dispatcher = dispatcher;
        this.endTimeoutNanos = endTimeoutNanos;
        this.ending = ending;
    }

    @Override
    public long sessionId() {
        return id;
    }

    public String source() {
        return source;
    }

    public boolean ended() {
        return summary != null;
    }

    /** The summary once the session ended, else null. */
    public SessionSummary summary() {
        return summary;
    }

    @Override
    public void publish(SampleBatch batch) {
        publish(batch, (BatchBuilder.Lease) null);
    }

    @Override
    public void publish(SampleBatch batch, Runnable returned) {
        Objects.requireNonNull(returned, "returned");
        BatchBuilder.Lease lease = BatchBuilder.Lease.of(returned);
        try {
            publish(batch, lease);
        } finally {
            lease.release();
        }
    }

    /** Hands a batch of a pipeline builder on; consumers that queue it hold its lease. */
    public void publish(SampleBatch batch, BatchBuilder.Lease lease) {
        Objects.requireNonNull(batch, "batch");
        if (batch.sessionId != id) {
            throw new IllegalArgumentException("a batch of session " + batch.sessionId + " was published to session "
                    + id + "; make batches with the id the channel gives (sessionId())");
        }
        SessionSummary s = summary;
        if (s != null) {
            throw new IllegalStateException("session " + id + " (" + source + ") has ended (" + s.endReason()
                    + "); its batches are no longer taken");
        }
        published += batch.size;
        dispatcher.publish(batch, lease);
    }

    @Override
    public SessionSummary close(Accounting accounting, Map<String, Long> counters, List<String> notes,
            String endReason) {
        return close(accounting, List.of(), null, 0, counters == null ? Map.of() : counters,
                notes == null ? List.of() : notes, endReason);
    }

    /**
     * Ends a session the profiler feeds itself (the guests' own profilers): as {@link #close}, with
     * each buffer's books, the ground truth and the simulated cycles the summary reports.
     */
    public SessionSummary close(Accounting accounting, List<BufferAccounting> buffers, GroundTruth truth, long cycles,
            Map<String, Long> counters, List<String> notes, String endReason) {
        Objects.requireNonNull(accounting, "accounting");
        SessionSummary s = summary;
        if (s != null) {
            return s;
        }
        List<String> lines = new ArrayList<>(notes);
        if (!accounting.balanced()) {
            lines.add("the source's books do not balance: " + accounting.line());
        }
        if (accounting.delivered() != published) {
            lines.add("the source counts " + accounting.delivered() + " samples delivered but published "
                    + published + " to the consumers");
        }
        String reason = endReason == null || endReason.isBlank() ? SessionSummary.COMPLETED : endReason;
        return end(accounting, buffers, truth, cycles, counters, lines, reason);
    }

    /**
     * Ends a replayed session with the summary it was recorded with: the live session's books and
     * every consumer's as they were, plus a note for each consumer that missed samples of the replay
     * and one when the replay held fewer samples than the session delivered (a store that missed some).
     */
    @Override
    public SessionSummary close(SessionSummary recorded) {
        Objects.requireNonNull(recorded, "recorded");
        if (recorded.sessionId() != id) {
            throw new IllegalArgumentException("session " + id + " was closed with the summary of session "
                    + recorded.sessionId());
        }
        SessionSummary s = summary;
        if (s != null) {
            return s;
        }
        long replayed = published;
        return end(consumers -> replayed(recorded, consumers, replayed));
    }

    private static SessionSummary replayed(SessionSummary recorded, List<ConsumerAccounting> consumers,
            long replayed) {
        List<String> notes = new ArrayList<>(recorded.notes());
        long delivered = recorded.accounting().delivered();
        if (replayed != delivered) {
            notes.add("the replay held " + replayed + " of the " + delivered + " samples the session delivered");
        }
        for (ConsumerAccounting c : consumers) {
            if (c.missed() > 0) {
                notes.add("consumer " + c.consumer() + " missed " + c.missed() + " of the " + (c.received() + c.missed())
                        + " samples of the replay" + (c.problem() == null ? "" : " (" + c.problem() + ")"));
            }
        }
        return new SessionSummary(recorded.sessionId(), recorded.accounting(), recorded.buffers(),
                recorded.consumers(), recorded.hypervisor(), recorded.groundTruth(), recorded.simulatedCycles(),
                recorded.endReason(), recorded.hostCounters(), notes);
    }

    /** Ends the session from the profiler's side (it is stopping): the books are what was published. */
    public SessionSummary endNow(String reason) {
        SessionSummary s = summary;
        if (s != null) {
            return s;
        }
        return end(new Accounting(published, published, 0, 0, 0), List.of(), null, 0, Map.of(),
                List.of("the profiler ended the session before " + source + " closed it: " + reason), reason);
    }

    private SessionSummary end(Accounting accounting, List<BufferAccounting> buffers, GroundTruth truth,
            long cycles, Map<String, Long> counters, List<String> notes, String reason) {
        return end(consumers -> new SessionSummary(id, accounting, buffers, consumers, null, truth, cycles, reason,
                counters, notes));
    }

    private SessionSummary end(Function<List<ConsumerAccounting>, SessionSummary> summarize) {
        return ending.end(this, () -> {
            SessionSummary made = dispatcher.sessionEnded(id, summarize, endTimeoutNanos);
            summary = made;
            return made;
        });
    }
}
