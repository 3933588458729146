package org.hyperprof.api.sample;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives a session's resolved samples. Register it as a DS service with the {@value #NAME}
 * property; the profiler binds every consumer dynamically, also while a session runs (a consumer
 * that arrives mid-session gets {@link #sessionStarted} first, then the batches from then on).
 *
 * <h2>Threading and isolation</h2>
 * Each consumer has its own delivery thread and a bounded queue of batches; calls to one consumer
 * never overlap and come in order: {@code sessionStarted}, {@code samples}*, {@code sessionEnded}.
 * A consumer that is slow never stalls sampling or the other consumers: when its queue is full,
 * the batch is not queued for it and its samples are counted as missed. A consumer that throws
 * loses that batch (counted as missed, the exception recorded in {@link ConsumerAccounting}); the
 * session and the other consumers carry on. A consumer that departs mid-session stops receiving;
 * the session survives.
 *
 * <h2>Batches</h2>
 * Batches are immutable and may be kept. Use the session's {@link SessionDictionary} for names.
 */
@ConsumerType
public interface SampleConsumer {
    /** Service property: the consumer's name, as reports and the shell show it. */
    String NAME = "consumer.name";

    /** A session starts (or was already running when this consumer arrived). */
    void sessionStarted(SessionInfo session);

    /** A batch of samples of a started session. */
    void samples(SampleBatch batch);

    /** The session ended; the summary says how, and where every sample went. */
    void sessionEnded(SessionSummary summary);
}
