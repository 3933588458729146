package org.hyperprof.testing.sample;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * Passes everything to the consumer under test and says when a session ended for it, so a test that
 * feeds it through the pipeline (an import, a profile) reads its report only once it has every batch.
 */
public final class EndingConsumer implements SampleConsumer {
    private final SampleConsumer consumer;
    private final CountDownLatch ended = new CountDownLatch(1);

    public EndingConsumer(SampleConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public void sessionStarted(SessionInfo session) {
        consumer.sessionStarted(session);
    }

    @Override
    public void samples(SampleBatch batch) {
        consumer.samples(batch);
    }

    @Override
    public void sessionEnded(SessionSummary summary) {
        consumer.sessionEnded(summary);
        ended.countDown();
    }

    /** Whether a session ended for the consumer within {@code seconds}. */
    public boolean awaitEnd(long seconds) throws InterruptedException {
        return ended.await(seconds, TimeUnit.SECONDS);
    }
}
