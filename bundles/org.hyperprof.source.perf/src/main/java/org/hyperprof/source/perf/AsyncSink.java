package org.hyperprof.source.perf;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.pipeline.BatchBuilder;

/**
 * Runs a sink (the call-graph report) on a thread of its own, so that building the report overlaps
 * with reading and resolving. Batches wait in a short queue: when it is full the resolving thread
 * waits, so memory stays bounded. Each batch's arrays are given back once the sink is done with
 * them.
 */
final class AsyncSink implements BatchBuilder.Sink {

    private record Item(SampleBatch batch, BatchBuilder.Lease lease) {
    }

    private static final Item END = new Item(null, null);

    /**
     * Batches the report thread may hold at once. The call-graph report's speed comes in bursts
     * (a stack new to the tree costs several times one met before): with 4 the resolving thread
     * waited 7-10 ms of a 65 ms import for the report to give arrays back, with 12 it waits 2-3 ms.
     * Each set of 4,096 samples is about 0.5 MB.
     */
    static final int POOL = 12;

    private final BatchBuilder.Sink inner;
    private final ArrayBlockingQueue<Item> queue = new ArrayBlockingQueue<>(POOL);
    private final Thread thread;
    private volatile Throwable failure;

    AsyncSink(BatchBuilder.Sink inner, String name) {
        this.inner = inner;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Holds the batch's lease until the sink on the other thread is done with it. */
    @Override
    public void batch(SampleBatch batch, BatchBuilder.Lease lease) {
        lease.hold();
        put(new Item(batch, lease));
    }

    private void put(Item item) {
        try {
            while (!queue.offer(item, 100, TimeUnit.MILLISECONDS)) {
                if (!thread.isAlive()) {
                    throw new IllegalStateException("the report thread stopped: " + failure);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while handing a batch to the report", e);
        }
    }

    private void run() {
        try {
            while (true) {
                Item item = queue.take();
                if (item == END) {
                    return;
                }
                try {
                    inner.batch(item.batch(), item.lease());
                } finally {
                    item.lease().release();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    /** Waits until every batch handed on was taken by the sink; rethrows what the sink threw. */
    void close() {
        if (thread.isAlive()) {
            put(END);
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Throwable f = failure;
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f instanceof Error r) {
            throw r;
        }
    }
}
