package org.hyperprof.api.sample;

import org.hyperprof.api.plugin.PluginIdentity;
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
 * <h2>Delivery</h2>
 * The {@value #DELIVERY} property chooses how batches arrive: {@code queued} (the default, as
 * above); {@code lossless}, for a consumer that must not miss samples (a store): when its queue is
 * full, a source that can wait (the simulator, a file import) waits for it instead, and only a live
 * recording may still make it miss, counted as above; {@code tap}, called on the source's thread as
 * it publishes, with no queue, for a consumer as fast as the source.
 *
 * <h2>Batches</h2>
 * A batch is lent for the {@link #samples} call only (see {@link SampleBatch}): a consumer that
 * keeps samples past the call copies them. Use the session's {@link SessionDictionary} for names.
 */
@ConsumerType
public interface SampleConsumer {
    /** Service property: the consumer's name, as reports and the shell show it. */
    String NAME = "consumer.name";

    /** A consumer is known by its {@value #NAME} property. */
    PluginIdentity IDENTITY = new PluginIdentity(NAME, "sample consumer", "opreport");

    /** Service property: {@code queued} (default), {@code lossless} or {@code tap}. */
    String DELIVERY = "consumer.delivery";

    /** A session starts (or was already running when this consumer arrived). */
    void sessionStarted(SessionInfo session);

    /** A batch of samples of a started session. */
    void samples(SampleBatch batch);

    /** The session ended; the summary says how, and where every sample went. */
    void sessionEnded(SessionSummary summary);
}
