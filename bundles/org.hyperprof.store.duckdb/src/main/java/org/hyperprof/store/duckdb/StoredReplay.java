package org.hyperprof.store.duckdb;

import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.BatchBuilder;

/**
 * The replay source: a stored session fed through the pipeline again, so that every consumer bound
 * now (one installed since the session was recorded, too) receives it as it was: its start under its
 * own id, its samples in the pipeline's batches, its end with the books it was recorded with.
 *
 * <p>A stored row of n samples of weight w becomes n samples whose weights add up to w exactly; each
 * sample's time is its bucket's start; its callers are its stack's frames. Samples go into the one
 * {@link BatchBuilder}, whose arrays come back once every consumer returned them: no allocation per
 * sample, and a replay paced by its slowest consumer.
 */
final class StoredReplay {
    /** Samples per batch: the pipeline's. */
    private static final int BATCH = 4096;
    /**
     * Batches out at once, at most: the replay waits for its slowest consumer (a stored session can
     * wait, as a file can), so that no consumer's queue fills and misses samples because a replay runs
     * faster than the live session did.
     */
    private static final int OUT_AT_ONCE = 4;

    private StoredReplay() {
    }

    /** Replays {@code recording} to every consumer {@code publisher} feeds; the summary they got. */
    static SessionSummary feed(SessionPublisher publisher, SessionReader.Recording recording) {
        SessionPublisher.Replay replay = publisher.replay(recording.info());
        BatchBuilder builder = new BatchBuilder(replay.sessionId(), BATCH, BatchBuilder.Reuse.WHEN_RELEASED, OUT_AT_ONCE,
                (batch, lease) -> {
                    // Each consumer that queues the batch holds its lease; the arrays come back when all are done.
                    lease.hold();
                    replay.publish(batch, lease::release);
                });
        RuntimeException failed = null;
        try {
            samples(recording, builder);
            builder.close();
        } catch (RuntimeException e) {
            // Interrupted while waiting for a consumer: the session still ends, its notes say how much it held.
            failed = e;
        }
        SessionSummary ended = replay.close(recording.summary());
        if (failed != null) {
            throw failed;
        }
        return ended;
    }

    /**
     * Replays {@code recording} to {@code consumer} alone, on this thread: its start, each batch
     * (its arrays reused once the consumer returns), its end with the recorded books.
     */
    static SessionSummary feed(SampleConsumer consumer, SessionReader.Recording recording) {
        consumer.sessionStarted(recording.info());
        BatchBuilder builder = new BatchBuilder(recording.info().sessionId(), BATCH, BatchBuilder.Reuse.AT_ONCE, 0,
                (batch, lease) -> consumer.samples(batch));
        samples(recording, builder);
        builder.close();
        consumer.sessionEnded(recording.summary());
        return recording.summary();
    }

    private static void samples(SessionReader.Recording recording, BatchBuilder to) {
        List<CounterConfig> counters = recording.info().counters();
        SampleRows rows = recording.rows();
        StackTable stacks = rows.stacks();
        for (int r = 0; r < rows.size(); r++) {
            int event = rows.column(r, SampleRows.EVENT);
            int counter = event < 0 || event >= counters.size() ? -1 : counters.get(event).counter();
            long time = SessionReader.time(rows.bucket(r), recording.timeBucketNanos());
            long n = rows.count(r);
            long weight = rows.weight(r);
            long each = weight / n;
            long heavier = weight % n;
            for (long k = 0; k < n; k++) {
                to.begin(rows.column(r, SampleRows.DOMAIN), rows.column(r, SampleRows.VCPU),
                        rows.column(r, SampleRows.MODE), counter, rows.pc(r), rows.column(r, SampleRows.IMAGE),
                        rows.column(r, SampleRows.SYMBOL), k < heavier ? each + 1 : each, time,
                        rows.column(r, SampleRows.CPU), rows.column(r, SampleRows.PID), rows.column(r, SampleRows.TID));
                to.flag(rows.column(r, SampleRows.FLAGS));
                to.comm(rows.column(r, SampleRows.COMM));
                stacks.appendCallers(rows.column(r, SampleRows.STACK), to);
                to.end();
            }
        }
    }
}
