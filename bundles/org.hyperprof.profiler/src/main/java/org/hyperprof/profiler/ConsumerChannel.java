package org.hyperprof.profiler;

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

    private record Batch(SampleBatch batch, ConsumerBooks books) implements Message {
    }

    private record Ended(SessionSummary summary, ConsumerBooks books) implements Message {
    }

    private record Stop() implements Message {
    }

    final String name;
    final SampleConsumer consumer;
    private final int capacity;
    private final LinkedBlockingQueue<Message> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queuedBatches = new AtomicInteger();
    /** Messages offered and not yet fully handled by the thread (guarded by {@code this}). */
    private int outstanding;
    /** Set by {@link #stop()}: nothing is queued any more (guarded by {@code this}). */
    private boolean stopped;
    private final Thread thread;

    ConsumerChannel(String name, SampleConsumer consumer, int capacity) {
        this.name = name;
        this.consumer = consumer;
        this.capacity = capacity;
        this.thread = new Thread(this::run, "hyperprof-consumer-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    void sessionStarted(SessionInfo info, ConsumerBooks books) {
        enqueue(new Started(info, books));
    }

    /** Offers a batch without blocking; a full queue counts the batch's samples as missed. */
    void offer(SampleBatch batch, ConsumerBooks books) {
        if (queuedBatches.incrementAndGet() > capacity) {
            queuedBatches.decrementAndGet();
            books.miss(batch.size);
            books.problem("too slow: its queue of " + capacity + " batches was full, so batches were not queued for it");
            return;
        }
        books.queued(batch.size);
        if (!enqueue(new Batch(batch, books))) {
            queuedBatches.decrementAndGet();
            books.lose(batch.size);
        }
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
            } finally {
                done();
            }
        }
    }

    private void deliver(Message m) {
        if (m instanceof Batch b) {
            queuedBatches.decrementAndGet();
            try {
                consumer.samples(b.batch());
                b.books().receive(b.batch().size);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable t) {
                b.books().lose(b.batch().size);
                b.books().problem("samples(batch of " + b.batch().size + ") threw " + t);
            }
        } else if (m instanceof Started s) {
            try {
                consumer.sessionStarted(s.info());
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable t) {
                s.books().problem("sessionStarted threw " + t);
            }
        } else if (m instanceof Ended e) {
            try {
                consumer.sessionEnded(e.summary());
            } catch (VirtualMachineError err) {
                throw err;
            } catch (Throwable t) {
                e.books().problem("sessionEnded threw " + t);
            }
        }
    }
}
