package org.hyperprof.pipeline;

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
 * Hands sessions' batches to every bound consumer through its own {@link ConsumerChannel}.
 * Consumers come and go at any time: one that arrives mid-session gets {@code sessionStarted}
 * first and the batches from then on (what was published before counts as missed); one that
 * leaves is stopped, and what it would have received for the rest of the session counts as
 * missed. Whatever comes and goes, each consumer's books of a session end with received + missed =
 * the samples published for it: a session's publishing, its consumers' arrivals and departures and
 * its end take turns on the session's own lock, and a stopped channel queues nothing more.
 *
 * <p>Several sessions may be live at once (a one-shot profile's Xenoprof session and the session
 * of the guests' own profilers): each has its own books per consumer, a batch goes to the session
 * its {@code sessionId} names (a batch of no live session is not delivered), and each session ends
 * on its own. A consumer sees each session's calls in order (started, samples*, ended); the calls
 * of two live sessions interleave, which consumers keyed by session id (such as
 * the reports' {@code org.hyperprof.report.kit.SessionShelf}) handle.
 */
public final class Dispatcher {

    private record Target(ConsumerChannel channel, ConsumerBooks books) {
    }

    /**
     * One live session: what it is, each consumer's books (guarded by the dispatcher), and, guarded
     * by this object, what {@link #publish} walks for it, what it published and whether it ended.
     */
    private static final class Live {
        final SessionInfo info;
        final boolean canWait;
        final Map<String, ConsumerBooks> books = new TreeMap<>();
        private Target[] targets = new Target[0];
        private long published;
        private boolean ended;

        Live(SessionInfo info, boolean canWait) {
            this.info = info;
            this.canWait = canWait;
        }

        long id() {
            return info.sessionId();
        }
    }

    /** Batches each consumer's queue holds (guarded by {@code this}). */
    private int queueCapacity;
    /**
     * Runs in {@link #publish} after it took a session's targets and before it offers the batch to
     * them: a seam for tests that force a consumer to leave (or arrive) exactly there. A no-op in use.
     */
    private final Runnable targetsTaken;
    private final Map<String, ConsumerChannel> channels = new TreeMap<>();
    /** Live sessions in the order they started (guarded by {@code this}). */
    private final List<Live> live = new ArrayList<>();
    /** What {@link #publish} looks sessions up in: a snapshot rebuilt on every change, read without a lock. */
    private volatile Live[] liveSnapshot = new Live[0];

    public Dispatcher(int queueCapacity) {
        this(queueCapacity, () -> {
        });
    }

    /** With a hook that runs between taking a session's targets and offering a batch to them (tests). */
    public Dispatcher(int queueCapacity, Runnable targetsTaken) {
        this.queueCapacity = checkedCapacity(queueCapacity);
        this.targetsTaken = targetsTaken;
    }

    /**
     * Sets how many batches each consumer's queue holds, for the consumers bound now and later: a
     * setting changed while the dispatcher runs (the profiler's configuration) applies from the next
     * batch, without unbinding anyone.
     */
    public synchronized void queueCapacity(int batches) {
        queueCapacity = checkedCapacity(batches);
        for (ConsumerChannel channel : channels.values()) {
            channel.capacity(batches);
        }
    }

    private static int checkedCapacity(int batches) {
        if (batches < 1) {
            throw new IllegalArgumentException("consumer queue capacity " + batches + " must be at least 1 batch");
        }
        return batches;
    }

    public synchronized List<String> names() {
        return List.copyOf(channels.keySet());
    }

    /**
     * Binds a consumer as its service properties ask, the one contract for every consumer (a DS
     * service, or a source's own consumer such as the perf import's report): its name from
     * {@value SampleConsumer#NAME}, its delivery (queued, lossless or tap) from
     * {@value SampleConsumer#DELIVERY}. Returns the name it is bound under.
     */
    public String add(SampleConsumer consumer, Map<String, ?> properties) {
        String name = SampleConsumer.IDENTITY.of(properties, consumer);
        add(name, consumer, Delivery.of(properties.get(SampleConsumer.DELIVERY)));
        return name;
    }

    /** Unbinds a consumer bound by its service properties, if it is still the bound instance. */
    public boolean remove(SampleConsumer consumer, Map<String, ?> properties) {
        return remove(SampleConsumer.IDENTITY.of(properties, consumer), consumer);
    }

    /** Binds a consumer with queued delivery; a consumer with the same name is replaced. */
    public synchronized void add(String name, SampleConsumer consumer) {
        add(name, consumer, Delivery.QUEUED);
    }

    /** Binds a consumer; a consumer with the same name is replaced. */
    public synchronized void add(String name, SampleConsumer consumer, Delivery delivery) {
        if (channels.containsKey(name)) {
            remove(name);
        }
        ConsumerChannel channel = new ConsumerChannel(name, consumer, queueCapacity, delivery);
        channels.put(name, channel);
        for (Live l : live) {
            synchronized (l) {
                ConsumerBooks b = l.books.get(name);
                if (b == null) {
                    // Books of a consumer that left and comes back carry on; a newcomer missed what came before.
                    b = new ConsumerBooks(name);
                    l.books.put(name, b);
                    if (l.published > 0) {
                        b.miss(l.published);
                        b.problem("arrived mid-session; the " + l.published + " samples published before it"
                                + " arrived are counted as missed");
                    }
                }
                channel.sessionStarted(l.info, l.canWait, b);
                rebuildTargets(l);
            }
        }
    }

    /** Unbinds a consumer mid-session or between sessions; returns whether it was bound. */
    public synchronized boolean remove(String name) {
        ConsumerChannel channel = channels.remove(name);
        if (channel == null) {
            return false;
        }
        for (Live l : live) {
            ConsumerBooks b = l.books.get(name);
            if (b != null) {
                // rebuildTargets leaves its books without a channel: later batches count as missed.
                b.problem("left mid-session; the samples of the session after it left are counted as missed");
            }
        }
        // Stopped first: a publish waiting for this lossless consumer's queue (holding its session)
        // gives up, and a publish that took the channel as a target before the rebuild finds it
        // stopped: missed either way.
        channel.stop();
        rebuildTargets();
        return true;
    }

    /** Removes a consumer only if it is still the bound instance (DS unbind of a replaced service). */
    public synchronized boolean remove(String name, SampleConsumer consumer) {
        ConsumerChannel channel = channels.get(name);
        return channel != null && channel.consumer == consumer && remove(name);
    }

    /** Starts a session whose source can wait for lossless consumers; sessions already live go on. */
    public synchronized void sessionStarted(SessionInfo info) {
        sessionStarted(info, true);
    }

    /**
     * Starts a session for every bound consumer; sessions already live go on.
     *
     * @param canWait whether the source may be slowed down for a {@link Delivery#LOSSLESS}
     *                consumer (the simulator, a file import): then publishing waits for its queue
     *                instead of counting samples as missed. A live recording cannot wait.
     */
    public synchronized void sessionStarted(SessionInfo info, boolean canWait) {
        for (Live l : live) {
            if (l.id() == info.sessionId()) {
                throw new IllegalStateException("session " + info.sessionId() + " is already live");
            }
        }
        Live l = new Live(info, canWait);
        for (Map.Entry<String, ConsumerChannel> e : channels.entrySet()) {
            ConsumerBooks b = new ConsumerBooks(e.getKey());
            l.books.put(e.getKey(), b);
            e.getValue().sessionStarted(info, canWait, b);
        }
        live.add(l);
        rebuildTargets();
    }

    /** Offers a batch that the dispatcher may keep: its arrays are never filled again. */
    public void publish(SampleBatch batch) {
        publish(batch, null);
    }

    /**
     * Offers a batch to every consumer of its session. Waits for no consumer, except a lossless one
     * whose queue is full when the session's source can wait; a tap reads the batch in this call.
     * Each consumer that queues the batch holds its lease until it returns from
     * {@code samples} or the batch is dropped, so the arrays go back when nobody reads them.
     * No allocation beyond each queue's entry.
     *
     * @param lease the batch's lease, or null when the batch is never refilled
     */
    public void publish(SampleBatch batch, BatchBuilder.Lease lease) {
        Live[] sessions = liveSnapshot;
        Live l = null;
        for (Live s : sessions) {
            if (s.id() == batch.sessionId) {
                l = s;
                break;
            }
        }
        if (l == null) {
            return;
        }
        synchronized (l) {
            if (l.ended) {
                return;
            }
            l.published += batch.size;
            Target[] targets = l.targets;
            targetsTaken.run();
            for (Target t : targets) {
                if (t.channel() == null) {
                    t.books().miss(batch.size);
                } else {
                    t.channel().offer(batch, lease, t.books(), l.canWait);
                }
            }
        }
    }

    /** Ends the oldest live session (the only one, for a caller that runs one session at a time). */
    public SessionSummary sessionEnded(Function<List<ConsumerAccounting>, SessionSummary> summary, long timeoutNanos) {
        long id;
        synchronized (this) {
            id = live.isEmpty() ? Long.MIN_VALUE : live.get(0).id();
        }
        return sessionEnded(id, summary, timeoutNanos);
    }

    /**
     * Ends session {@code sessionId}: waits (up to {@code timeoutNanos} in all) until each consumer
     * has taken what is queued for it, then stops taking its batches, counts what is left of it
     * (queued, or in a consumer's hands) as missed, builds the summary with every consumer's final
     * books of this session and delivers {@code sessionEnded} after its last batch. Other live
     * sessions go on.
     */
    public SessionSummary sessionEnded(long sessionId, Function<List<ConsumerAccounting>, SessionSummary> summary,
            long timeoutNanos) {
        List<ConsumerChannel> waiting;
        synchronized (this) {
            waiting = new ArrayList<>(channels.values());
        }
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        for (ConsumerChannel ch : waiting) {
            if (interrupted) {
                break;
            }
            try {
                ch.awaitIdle(deadline);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        SessionSummary s;
        List<ConsumerChannel> ending = new ArrayList<>();
        synchronized (this) {
            Live l = find(sessionId);
            Map<String, ConsumerBooks> books = l == null ? Map.of() : l.books;
            List<ConsumerAccounting> accounting = new ArrayList<>();
            if (l != null) {
                synchronized (l) {
                    l.ended = true;
                }
                // Nothing of this session is published any more: what is still queued is missed.
                for (Map.Entry<String, ConsumerChannel> e : channels.entrySet()) {
                    long dropped = e.getValue().dropQueuedBatches(sessionId);
                    ConsumerBooks b = books.get(e.getKey());
                    if (b != null && dropped > 0) {
                        b.problem("too slow: " + dropped + " queued samples were still undelivered when the"
                                + " session ended");
                    }
                }
                for (ConsumerBooks b : books.values()) {
                    accounting.add(b.close());
                }
            }
            s = summary.apply(accounting);
            for (Map.Entry<String, ConsumerChannel> e : channels.entrySet()) {
                ConsumerBooks b = books.get(e.getKey());
                e.getValue().sessionEnded(s, b != null ? b : new ConsumerBooks(e.getKey()));
                ending.add(e.getValue());
            }
            if (l != null) {
                live.remove(l);
            }
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

    /** The ids of the live sessions, oldest first. */
    public synchronized List<Long> liveSessions() {
        List<Long> out = new ArrayList<>();
        for (Live l : live) {
            out.add(l.id());
        }
        return out;
    }

    /** Stops every delivery thread (component deactivation). */
    public void stopAll(long joinMillis) {
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

    private Live find(long sessionId) {
        for (Live l : live) {
            if (l.id() == sessionId) {
                return l;
            }
        }
        return null;
    }

    /** Caller holds this dispatcher's monitor. */
    private void rebuildTargets() {
        for (Live l : live) {
            synchronized (l) {
                rebuildTargets(l);
            }
        }
        liveSnapshot = live.toArray(new Live[0]);
    }

    /** Caller holds this dispatcher's monitor and the session's. */
    private void rebuildTargets(Live l) {
        List<Target> list = new ArrayList<>();
        for (Map.Entry<String, ConsumerBooks> e : l.books.entrySet()) {
            list.add(new Target(channels.get(e.getKey()), e.getValue()));
        }
        l.targets = list.toArray(new Target[0]);
    }
}
