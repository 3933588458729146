package org.hyperprof.testing.sample;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * Records what it is told, in order, and on which thread; can be made slow or failing. Keeps a copy
 * of each batch (batches are lent for the call only).
 */
public class RecordingConsumer implements SampleConsumer {
    public final List<String> events = new CopyOnWriteArrayList<>();
    public final List<SampleBatch> batches = new CopyOnWriteArrayList<>();
    public final List<String> threads = new CopyOnWriteArrayList<>();
    public volatile SessionInfo info;
    public volatile SessionSummary summary;
    public final CountDownLatch ended = new CountDownLatch(1);
    /** While closed, samples() blocks: a consumer that is too slow. */
    public volatile CountDownLatch gate;
    public volatile boolean throwOnSamples;
    /** Counted down when samples() is entered for the first time. */
    public final CountDownLatch entered = new CountDownLatch(1);

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
        batches.add(batch.copy());
        events.add("samples");
    }

    @Override
    public void sessionEnded(SessionSummary s) {
        summary = s;
        events.add("ended");
        ended.countDown();
    }

    public int samples() {
        int n = 0;
        for (SampleBatch b : batches) {
            n += b.size;
        }
        return n;
    }

    public boolean awaitEnd() throws InterruptedException {
        return ended.await(10, TimeUnit.SECONDS);
    }

    /** Waits up to 5 s for a condition that other threads make true. */
    public static boolean waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(2);
        }
        return true;
    }
}
