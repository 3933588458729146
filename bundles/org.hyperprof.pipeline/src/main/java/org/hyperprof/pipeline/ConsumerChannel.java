package org.hyperprof.pipeline;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * One consumer's delivery: its own daemon thread {@code hyperprof-consumer-<name>} and a queue
 * bounded to {@code capacity} batches. Offering never blocks: a full queue means the batch's
 * samples are missed by this consumer only. Calls to the consumer never overlap and keep their
 * order (sessionStarted, samples*, sessionEnded); a consumer that throws loses that batch and the
 * first failure is recorded. Once {@link #stop()} has run nothing is queued any more: a batch offered
 * to a stopped channel (by a publisher that took it as a target just before) is counted as missed,
 * never left behind the stop marker where nobody would take or count it.
 */
final class ConsumerChannel {

    private sealed interface Message permits Started, Batch, Ended, Stop {
    }

    private record Started(SessionInfo info, ConsumerBooks books) implements Message {
    }

    private record Batch(SampleBatch batch, BatchBuilder.Lease lease, ConsumerBooks books) implements Message {
        void done() {
            if (lease != null) {
                lease.release();
            }
        }
    }

    private record Ended(SessionSummary summary, ConsumerBooks books) implements Message {
    }

    private record Stop() implements Message {
    }

    final String name;
    final SampleConsumer consumer;
    final Delivery delivery;
    /** Batches the queue holds; a new setting applies from the next batch offered. */
    private volatile int capacity;
    /** Held while the consumer is called: a tap is called on publishing threads, the rest on this channel's. */
    private final Object calling = new Object();
    private final LinkedBlockingQueue<Message> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queuedBatches = new AtomicInteger();
    /** Messages offered and not yet fully handled by the thread (guarded by {@code this}). */
    private int outstanding;
    /** Set by {@link #stop()}: nothing is queued any more (guarded by {@code this}). */
    private boolean stopped;
    /** What ended the thread while the channel was open, or null (guarded by {@code this}). */
    private VirtualMachineError died;
    private final Thread thread;

    ConsumerChannel(String name, SampleConsumer consumer, int capacity, Delivery delivery) {
        this.name = name;
        this.consumer = consumer;
        this.capacity = capacity;
        this.delivery = delivery;
        this.thread = new Thread(this::run, "hyperprof-consumer-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    void capacity(int batches) {
        capacity = batches;
    }

    void sessionStarted(SessionInfo info, boolean canWait, ConsumerBooks books) {
        enqueue(new Started(info, books));
    }

    /**
     * Offers a batch. Queued delivery never blocks: a full queue counts the batch's samples as
     * missed. A lossless consumer's full queue makes a source that can wait wait. A tap reads the
     * batch here, on the publishing thread, once what was queued before it (its sessionStarted) was
     * delivered.
     */
    void offer(SampleBatch batch, BatchBuilder.Lease lease, ConsumerBooks books, boolean canWait) {
        if (delivery == Delivery.TAP) {
            tap(batch, books);
            return;
        }
        if (queuedBatches.incrementAndGet() > capacity) {
            if (delivery != Delivery.LOSSLESS || !canWait || !awaitRoom()) {
                queuedBatches.decrementAndGet();
                books.miss(batch.size);
                VirtualMachineError dead = died();
                books.problem(dead != null ? "its thread ended (" + dead + "), so batches were not queued for it"
                        : delivery == Delivery.LOSSLESS && !canWait
                        ? "too slow for a source that cannot wait (a live recording): its queue of " + capacity
                                + " batches was full, so batches were not queued for it"
                        : "too slow: its queue of " + capacity + " batches was full, so batches were not queued for it");
                return;
            }
        }
        books.queued(batch.size);
        if (lease != null) {
            lease.hold();
        }
        Batch b = new Batch(batch, lease, books);
        if (!enqueue(b)) {
            queuedBatches.decrementAndGet();
            books.lose(batch.size);
            b.done();
        }
    }

    /**
     * A lossless consumer's queue is full (this offer already counted itself in): waits until the
     * consumer takes a batch, or the channel stops. Returns whether there is room now.
     */
    private boolean awaitRoom() {
        synchronized (this) {
            while (queuedBatches.get() > capacity) {
                if (stopped) {
                    return false;
                }
                try {
                    wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private void tap(SampleBatch batch, ConsumerBooks books) {
        try {
            // Calls keep their order: the tap's sessionStarted (queued) comes first.
            awaitIdle(System.nanoTime() + java.util.concurrent.TimeUnit.DAYS.toNanos(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            books.miss(batch.size);
            return;
        }
        synchronized (this) {
            if (stopped) {
                books.miss(batch.size);
                return;
            }
        }
        books.queued(batch.size);
        synchronized (calling) {
            deliverBatch(batch, books);
        }
    }

    private synchronized VirtualMachineError died() {
        return died;
    }

    void sessionEnded(SessionSummary summary, ConsumerBooks books) {
        enqueue(new Ended(summary, books));
    }

    /** Queues a message unless the channel was stopped; the check and the add are one step. */
    private boolean enqueue(Message m) {
        synchronized (this) {
            if (stopped) {
                return false;
            }
            outstanding++;
            queue.add(m);
            return true;
        }
    }

    /** Waits until everything offered so far was handled, or the deadline passes. */
    boolean awaitIdle(long deadlineNanos) throws InterruptedException {
        synchronized (this) {
            while (outstanding > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }

    /** Removes the batches still queued, counting their samples as missed; returns how many samples. */
    long dropQueuedBatches() {
        return dropQueued(false, 0);
    }

    /** Removes the batches of session {@code sessionId} still queued (others stay), counting them as missed. */
    long dropQueuedBatches(long sessionId) {
        return dropQueued(true, sessionId);
    }

    private long dropQueued(boolean oneSession, long sessionId) {
        long[] dropped = {0};
        queue.removeIf(m -> {
            if (m instanceof Batch b && (!oneSession || b.batch().sessionId == sessionId)) {
                b.books().lose(b.batch().size);
                dropped[0] += b.batch().size;
                queuedBatches.decrementAndGet();
                b.done();
                done();
                return true;
            }
            return false;
        });
        return dropped[0];
    }

    /**
     * Stops the thread: from now on nothing is queued, batches still queued are dropped and counted
     * as missed, and the thread ends after the message in hand.
     */
    void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
        }
        dropQueuedBatches();
        synchronized (this) {
            outstanding++;
            queue.add(new Stop());
        }
    }

    /** Waits a little for the thread to end (it is a daemon thread either way). */
    void join(long millis) throws InterruptedException {
        thread.join(millis);
    }

    private void done() {
        synchronized (this) {
            outstanding--;
            if (outstanding <= 0) {
                notifyAll();
            }
        }
    }

    private void run() {
        while (true) {
            Message m;
            try {
                m = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                if (m instanceof Stop) {
                    return;
                }
                deliver(m);
            } catch (VirtualMachineError e) {
                // The thread ends (out of memory, say): the channel stops as stop() would, so a
                // source waiting for room or for the queue to empty goes on instead of waiting forever.
                synchronized (this) {
                    died = e;
                    stopped = true;
                    notifyAll();
                }
                dropQueuedBatches();
                throw e;
            } finally {
                done();
            }
        }
    }

    /** A consumer's start or end call: what it throws is a problem in its books, never the source's. */
    private static void call(ConsumerBooks books, String method, Runnable call) {
        try {
            call.run();
        } catch (VirtualMachineError e) {
            books.problem(method + " threw " + e + "; the consumer's thread ended");
            throw e;
        } catch (Throwable t) {
            books.problem(method + " threw " + t);
        }
    }

    private void deliverBatch(SampleBatch batch, ConsumerBooks books) {
        try {
            consumer.samples(batch);
            books.receive(batch.size);
        } catch (VirtualMachineError e) {
            books.lose(batch.size);
            books.problem("samples(batch of " + batch.size + ") threw " + e + "; the consumer's thread ended");
            throw e;
        } catch (Throwable t) {
            books.lose(batch.size);
            books.problem("samples(batch of " + batch.size + ") threw " + t);
        }
    }

    private void deliver(Message m) {
        synchronized (calling) {
            deliverInOrder(m);
        }
    }

    private void deliverInOrder(Message m) {
        if (m instanceof Batch b) {
            // A batch in the consumer's hands no longer takes room in its queue.
            queuedBatches.decrementAndGet();
            if (delivery == Delivery.LOSSLESS) {
                synchronized (this) {
                    notifyAll();
                }
            }
            try {
                deliverBatch(b.batch(), b.books());
            } finally {
                b.done();
            }
        } else if (m instanceof Started s) {
            call(s.books(), "sessionStarted", () -> consumer.sessionStarted(s.info()));
        } else if (m instanceof Ended e) {
            call(e.books(), "sessionEnded", () -> consumer.sessionEnded(e.summary()));
        }
    }
}
