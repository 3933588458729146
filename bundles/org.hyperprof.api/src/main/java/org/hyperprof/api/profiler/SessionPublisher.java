package org.hyperprof.api.profiler;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.SessionDictionary;
import org.osgi.annotation.versioning.ProviderType;

/**
 * How a sample source other than the simulated host (a perf.data recording, a live
 * {@code perf record}) feeds a session to the same sample consumers, with the same isolation
 * and accounting: each consumer on its own thread behind a bounded queue, what it misses counted.
 * Implemented by the profiler.
 */
@ProviderType
public interface SessionPublisher {

    /**
     * Starts a session: every bound consumer gets {@code sessionStarted}.
     *
     * @param source     where samples come from, e.g. {@code perf.data} or {@code perf record}
     * @param hostName   the recording's name (file name, host name)
     * @param cpuType    the recorded CPU (perf's cpuid / arch), or {@code unknown}
     * @param cpuName    a display name for the header line
     * @param mhz        clock speed if known, else 0
     * @param counters   the recorded events as counters
     * @param domains    domain id to name (host, guests)
     * @param dictionary the source's own images and symbols, by the ids its batches carry
     */
    default Channel open(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary) {
        return open(source, hostName, cpuType, cpuName, mhz, counters, domains, dictionary, false);
    }

    /**
     * As the other {@code open}, saying whether the source is live: a live source (a recording
     * being made now) cannot be made to wait, so a lossless consumer too slow for it misses samples
     * (counted); any other source (a file) waits for lossless consumers.
     */
    Channel open(String source, String hostName, String cpuType, String cpuName, long mhz,
            List<CounterConfig> counters, Map<Integer, String> domains, SessionDictionary dictionary, boolean live);

    /**
     * Replays a session recorded earlier (a stored one) to every bound consumer, under what it was:
     * {@code recorded} is the {@code sessionStarted} they get, its id included, so a report of the
     * replay names the session as the live one did. One session at a time, as for {@link #open}; the
     * source (a file) waits for lossless consumers.
     *
     * @throws IllegalStateException when another session is open or live under the same id
     * @since 2.1
     */
    Replay replay(org.hyperprof.api.sample.SessionInfo recorded);

    /** A recorded session being replayed. Not thread-safe: one feeding thread. */
    @ProviderType
    interface Replay {
        /** The recorded session's id. */
        long sessionId();

        /** Lends a batch to every consumer, as {@link Channel#publish(org.hyperprof.api.sample.SampleBatch, Runnable)}. */
        void publish(org.hyperprof.api.sample.SampleBatch batch, Runnable returned);

        /**
         * Ends the replay: the consumers get {@code recorded} (the live session's summary, its books
         * and every consumer's as they were), with a note added for each consumer that missed
         * samples of the replay, so a replay that went wrong never reads as right.
         *
         * @return the summary the consumers got
         */
        org.hyperprof.api.sample.SessionSummary close(org.hyperprof.api.sample.SessionSummary recorded);
    }

    /** One session being fed. Not thread-safe: one feeding thread. */
    @ProviderType
    interface Channel {
        /** The session's id, unique among the profiler's sessions. */
        long sessionId();

        /**
         * Hands a batch over (its {@code sessionId} must be {@link #sessionId()}) to every consumer,
         * never blocking on a slow one (except a lossless one, for a source that is not live). The
         * channel keeps the batch: the source does not fill its arrays again.
         */
        void publish(org.hyperprof.api.sample.SampleBatch batch);

        /**
         * Lends a batch to every consumer, as {@link #publish(org.hyperprof.api.sample.SampleBatch)};
         * {@code returned} runs once no consumer reads it any more (every consumer returned from
         * {@code samples}, or it was dropped for them), possibly on another thread: from then on
         * the source may fill its arrays again.
         */
        void publish(org.hyperprof.api.sample.SampleBatch batch, Runnable returned);

        /**
         * Ends the session: waits (bounded) for consumers to take what is queued, then delivers
         * {@code sessionEnded} with a summary built from these books plus every consumer's.
         *
         * @param accounting taken = delivered + lost + dropped + invalid, in the source's terms
         *                   (for perf.data: samples read, delivered, LOST records, skipped, invalid)
         * @param counters   the source's own named counts (records by type, skipped records, ...)
         * @param notes      problems met that did not stop the import
         * @param endReason  {@code completed} or why the feed ended early
         */
        org.hyperprof.api.sample.SessionSummary close(org.hyperprof.api.sample.Accounting accounting,
                Map<String, Long> counters, List<String> notes, String endReason);
    }
}
