package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * Hands a session's batches to every bound consumer through its own {@link ConsumerChannel}.
 * Consumers come and go at any time: one that arrives mid-session gets {@code sessionStarted}
 * first and the batches from then on; one that leaves is stopped, and what it would have received
 * for the rest of the session counts as missed.
 */
final class ConsumerDispatcher {

    private record Target(ConsumerChannel channel, ConsumerBooks books) {
    }

    private final int queueCapacity;
    private final Map<String, ConsumerChannel> channels = new TreeMap<>();
    private final Map<String, ConsumerBooks> books = new TreeMap<>();
    private SessionInfo current;
    /** What {@link #publish} walks: a snapshot rebuilt on every change, read without a lock. */
    private volatile Target[] targets = new Target[0];

    ConsumerDispatcher(int queueCapacity) {
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("consumer queue capacity " + queueCapacity + " must be at least 1 batch");
        }
        this.queueCapacity = queueCapacity;
    }

    synchronized List<String> names() {
        return List.copyOf(channels.keySet());
    }

    /** Binds a consumer; a consumer with the same name is replaced. */
    synchronized void add(String name, SampleConsumer consumer) {
        if (channels.containsKey(name)) {
            remove(name);
        }
        ConsumerChannel channel = new ConsumerChannel(name, consumer, queueCapacity);
        channels.put(name, channel);
        if (current != null) {
            channel.sessionStarted(current, books.computeIfAbsent(name, ConsumerBooks::new));
        }
        rebuildTargets();
    }

    /** Unbinds a consumer mid-session or between sessions; returns whether it was bound. */
    synchronized boolean remove(String name) {
        ConsumerChannel channel = channels.remove(name);
        if (channel == null) {
            return false;
        }
        ConsumerBooks b = books.get(name);
        if (current != null && b != null) {
            // rebuildTargets leaves its books without a channel: later batches count as missed.
            b.problem("left mid-session; the samples of the session after it left are counted as missed");
        }
        channel.stop();
        rebuildTargets();
        return true;
    }

    /** Removes a consumer only if it is still the bound instance (DS unbind of a replaced service). */
    synchronized boolean remove(String name, SampleConsumer consumer) {
        ConsumerChannel channel = channels.get(name);
        return channel != null && channel.consumer == consumer && remove(name);
    }

    synchronized void sessionStarted(SessionInfo info) {
        current = info;
        books.clear();
        for (Map.Entry<String, ConsumerChannel> e : channels.entrySet()) {
            ConsumerBooks b = new ConsumerBooks(e.getKey());
            books.put(e.getKey(), b);
            e.getValue().sessionStarted(info, b);
        }
        rebuildTargets();
    }

    /** Offers a batch to every consumer without blocking. */
    void publish(SampleBatch batch) {
        for (Target t : targets) {
            if (t.channel() == null) {
                t.books().miss(batch.size);
            } else {
                t.channel().offer(batch, t.books());
            }
        }
    }

    /**
     * Ends the session: waits (up to {@code timeoutNanos} in all) until each consumer has taken
     * what is queued for it, counts what is left as missed, builds the summary with every
     * consumer's books and delivers {@code sessionEnded} after the last batch.
     */
    SessionSummary sessionEnded(Function<List<ConsumerAccounting>, SessionSummary> summary, long timeoutNanos) {
        List<ConsumerChannel> live;
        synchronized (this) {
            live = new ArrayList<>(channels.values());
        }
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        for (ConsumerChannel ch : live) {
            boolean idle = false;
            if (!interrupted) {
                try {
                    idle = ch.awaitIdle(deadline);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (!idle) {
                long dropped = ch.dropQueuedBatches();
                ConsumerBooks b;
                synchronized (this) {
                    b = books.get(ch.name);
                }
                if (b != null && dropped > 0) {
                    b.problem("too slow: " + dropped + " queued samples were still undelivered when the session ended");
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        SessionSummary s;
        List<ConsumerChannel> ending = new ArrayList<>();
        synchronized (this) {
            List<ConsumerAccounting> accounting = new ArrayList<>();
            for (ConsumerBooks b : books.values()) {
                accounting.add(b.accounting());
            }
            s = summary.apply(accounting);
            for (Map.Entry<String, ConsumerChannel> e : channels.entrySet()) {
                ConsumerBooks b = books.get(e.getKey());
                e.getValue().sessionEnded(s, b != null ? b : new ConsumerBooks(e.getKey()));
                ending.add(e.getValue());
            }
            current = null;
            books.clear();
            rebuildTargets();
        }
        // Whoever ended the session (a one-shot profile, a shell command) reads the consumers'
        // reports next: let each consumer finish its sessionEnded first, within the same bound.
        long endDeadline = Math.max(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        for (ConsumerChannel ch : ending) {
            try {
                ch.awaitIdle(endDeadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return s;
    }

    /** Stops every delivery thread (component deactivation). */
    void stopAll(long joinMillis) {
        List<ConsumerChannel> all;
        synchronized (this) {
            all = new ArrayList<>(channels.values());
            channels.clear();
            rebuildTargets();
        }
        for (ConsumerChannel ch : all) {
            ch.stop();
        }
        long deadline = System.currentTimeMillis() + joinMillis;
        for (ConsumerChannel ch : all) {
            try {
                ch.join(Math.max(1, deadline - System.currentTimeMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void rebuildTargets() {
        if (current == null) {
            targets = new Target[0];
            return;
        }
        List<Target> list = new ArrayList<>();
        for (Map.Entry<String, ConsumerBooks> e : books.entrySet()) {
            ConsumerChannel ch = channels.get(e.getKey());
            list.add(new Target(ch, e.getValue()));
        }
        targets = list.toArray(new Target[0]);
    }
}
