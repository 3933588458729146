package org.hyperprof.profiler;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/** Records what it is told, in order, and on which thread; can be made slow or failing. */
class RecordingConsumer implements SampleConsumer {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<SampleBatch> batches = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    volatile SessionInfo info;
    volatile SessionSummary summary;
    final CountDownLatch ended = new CountDownLatch(1);
    /** While closed, samples() blocks: a consumer that is too slow. */
    volatile CountDownLatch gate;
    volatile boolean throwOnSamples;
    /** Counted down when samples() is entered for the first time. */
    final CountDownLatch entered = new CountDownLatch(1);

    @Override
    public void sessionStarted(SessionInfo session) {
        threads.add(Thread.currentThread().getName());
        info = session;
        events.add("started");
    }

    @Override
    public void samples(SampleBatch batch) {
        threads.add(Thread.currentThread().getName());
        entered.countDown();
        CountDownLatch g = gate;
        if (g != null) {
            try {
                g.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (throwOnSamples) {
            throw new IllegalStateException("consumer bug");
        }
        batches.add(batch);
        events.add("samples");
    }

    @Override
    public void sessionEnded(SessionSummary s) {
        summary = s;
        events.add("ended");
        ended.countDown();
    }

    int samples() {
        int n = 0;
        for (SampleBatch b : batches) {
            n += b.size;
        }
        return n;
    }

    boolean awaitEnd() throws InterruptedException {
        return ended.await(10, TimeUnit.SECONDS);
    }
}
