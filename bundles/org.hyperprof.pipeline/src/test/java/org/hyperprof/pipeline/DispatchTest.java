package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.hyperprof.testing.sample.Sessions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A slow, failing or departing consumer never stalls sampling or the others, and what it missed is counted. */
class DispatchTest {
    private static final long SECOND = 1_000_000_000L;

    private final Dispatcher dispatcher = new Dispatcher(2);
    private final SessionInfo info = new SessionInfo(7, "simulator", "h", "i386/p6", "PIII", 2800, List.of(),
            Map.of(0, "Domain-0"), true, new Dictionary());

    @AfterEach
    void stop() {
        dispatcher.stopAll(1000);
    }

    private static SampleBatch batch(int size) {
        return new SampleBatch(7, size, new int[size], new int[size], new byte[size], new byte[size], new long[size],
                new int[size], new int[size], new long[size], new long[size], new int[size], new int[size],
                new int[size], new byte[size],
                new int[size + 1], new long[0], new int[0], new int[0], new byte[0]);
    }

    private SessionSummary end(long timeoutNanos) {
        return end(dispatcher, timeoutNanos);
    }

    private static SessionSummary end(Dispatcher d, long timeoutNanos) {
        return d.sessionEnded(c -> new SessionSummary(7, Accounting.ZERO, List.of(), c, null, null, 0,
                SessionSummary.COMPLETED), timeoutNanos);
    }

    /** The consumers whose received + missed is not what the session published, as "name: received+missed". */
    private static List<String> unbalanced(SessionSummary s, long published) {
        List<String> out = new ArrayList<>();
        for (ConsumerAccounting c : s.consumers()) {
            if (c.received() + c.missed() != published) {
                out.add(c.consumer() + ": " + c.received() + "+" + c.missed() + " of " + published);
            }
        }
        return out;
    }

    private static ConsumerAccounting books(SessionSummary s, String name) {
        return s.consumers().stream().filter(c -> c.consumer().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aSlowConsumerMissesWhatItsFullQueueCannotTakeWhileOthersGetEverything() throws Exception {
        RecordingConsumer fast = new RecordingConsumer();
        RecordingConsumer slow = new RecordingConsumer();
        slow.gate = new CountDownLatch(1);
        dispatcher.add("fast", fast);
        dispatcher.add("slow", slow);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(5));
        assertTrue(slow.entered.await(5, TimeUnit.SECONDS));
        for (int i = 0; i < 9; i++) {
            long t0 = System.nanoTime();
            dispatcher.publish(batch(5));
            // A publish that waited would wait for the gate, which opens only after the loop: any bound
            // far above a publish's cost tells the two apart, on a loaded machine too.
            assertTrue(System.nanoTime() - t0 < 5 * SECOND, "publishing never waits for a consumer");
            int expected = 5 * (i + 2);
            // The fast consumer keeps up; the slow one is stuck in its first batch the whole time.
            assertTrue(RecordingConsumer.waitFor(() -> fast.samples() == expected));
        }
        slow.gate.countDown();
        SessionSummary s = end(5 * SECOND);
        assertTrue(fast.awaitEnd() && slow.awaitEnd());
        assertEquals(50, fast.samples());
        assertEquals(new ConsumerAccounting("fast", 50, 0, null), books(s, "fast"));
        ConsumerAccounting sl = books(s, "slow");
        assertEquals(15, sl.received(), "the batch in hand plus a queue of 2");
        assertEquals(35, sl.missed());
        assertTrue(sl.problem().startsWith("too slow"), sl.problem());
    }

    @Test
    void aConsumerThatThrowsLosesThoseBatchesOnlyAndStillHearsTheEnd() throws Exception {
        RecordingConsumer good = new RecordingConsumer();
        RecordingConsumer bad = new RecordingConsumer();
        bad.throwOnSamples = true;
        dispatcher.add("bad", bad);
        dispatcher.add("good", good);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(3));
        dispatcher.publish(batch(4));
        SessionSummary s = end(5 * SECOND);
        assertTrue(bad.awaitEnd() && good.awaitEnd());
        assertEquals(new ConsumerAccounting("good", 7, 0, null), books(s, "good"));
        ConsumerAccounting b = books(s, "bad");
        assertEquals(0, b.received());
        assertEquals(7, b.missed());
        assertTrue(b.problem().contains("IllegalStateException: consumer bug"), b.problem());
        assertEquals(List.of("started", "ended"), bad.events);
    }

    @Test
    void aConsumerThatLeavesMidSessionIsStoppedAndTheSessionGoesOn() throws Exception {
        RecordingConsumer stays = new RecordingConsumer();
        RecordingConsumer leaves = new RecordingConsumer();
        dispatcher.add("stays", stays);
        dispatcher.add("leaves", leaves);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(2));
        assertTrue(RecordingConsumer.waitFor(() -> leaves.samples() == 2));
        assertTrue(dispatcher.remove("leaves"));
        dispatcher.publish(batch(3));
        SessionSummary s = end(5 * SECOND);
        assertTrue(stays.awaitEnd());
        assertEquals(5, stays.samples());
        ConsumerAccounting l = books(s, "leaves");
        assertEquals(2, l.received());
        assertEquals(3, l.missed(), "what it would have got after leaving counts as missed");
        assertTrue(l.problem().startsWith("left mid-session"), l.problem());
        assertEquals(List.of("stays"), dispatcher.names());
        assertEquals(List.of("started", "samples"), leaves.events, "no sessionEnded after leaving");
        assertTrue(RecordingConsumer.waitFor(() -> !alive("hyperprof-consumer-leaves")), "its delivery thread ended");
    }

    @Test
    void aConsumerArrivingMidSessionHearsSessionStartedThenOnlyLaterBatches() throws Exception {
        RecordingConsumer early = new RecordingConsumer();
        dispatcher.add("early", early);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(4));
        RecordingConsumer late = new RecordingConsumer();
        dispatcher.add("late", late);
        dispatcher.publish(batch(6));
        SessionSummary s = end(5 * SECOND);
        assertTrue(late.awaitEnd());
        assertEquals(List.of("started", "samples", "ended"), late.events);
        assertEquals(7, late.info.sessionId());
        assertEquals(6, late.samples());
        assertEquals(new ConsumerAccounting("late", 6, 4, "arrived mid-session; the 4 samples published before it"
                + " arrived are counted as missed"), books(s, "late"), "received + missed = the 10 published");
    }

    @Test
    void sessionEndedComesAfterEveryQueuedBatch() throws Exception {
        RecordingConsumer c = new RecordingConsumer();
        c.gate = new CountDownLatch(1);
        dispatcher.add("c", c);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(1));
        dispatcher.publish(batch(1));
        Thread opener = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            c.gate.countDown();
        });
        opener.start();
        SessionSummary s = end(5 * SECOND);
        assertTrue(c.awaitEnd());
        assertEquals(List.of("started", "samples", "samples", "ended"), c.events);
        assertEquals(2, books(s, "c").received(), "the summary counts batches delivered before the end");
    }

    @Test
    void batchesStillQueuedWhenTheEndTimesOutAreCountedAsMissed() throws Exception {
        RecordingConsumer stuck = new RecordingConsumer();
        stuck.gate = new CountDownLatch(1);
        dispatcher.add("stuck", stuck);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(1));
        assertTrue(stuck.entered.await(5, TimeUnit.SECONDS));
        dispatcher.publish(batch(2));
        dispatcher.publish(batch(3));
        long t0 = System.nanoTime();
        SessionSummary s = end(SECOND / 5);
        assertTrue(System.nanoTime() - t0 < 20 * SECOND, "the end gives up on the stuck consumer (its gate never opens)");
        ConsumerAccounting a = books(s, "stuck");
        assertEquals(0, a.received(), "the batch it is stuck in was not received when the session ended");
        assertEquals(6, a.missed(), "the two queued batches and the one in its hands");
        assertNotNull(a.problem());
        stuck.gate.countDown();
        assertTrue(stuck.awaitEnd(), "the end still reaches it, after the batch it was stuck in");
        assertEquals(List.of("started", "samples", "ended"), stuck.events);
    }

    @Test
    void eachConsumerHasItsOwnNamedDaemonThread() throws Exception {
        RecordingConsumer a = new RecordingConsumer();
        RecordingConsumer b = new RecordingConsumer();
        dispatcher.add("opreport", a);
        dispatcher.add("flame", b);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(1));
        end(5 * SECOND);
        assertTrue(a.awaitEnd() && b.awaitEnd());
        assertEquals(List.of("hyperprof-consumer-opreport"), a.threads.stream().distinct().toList());
        assertEquals(List.of("hyperprof-consumer-flame"), b.threads.stream().distinct().toList());
        Thread t = Thread.getAllStackTraces().keySet().stream()
                .filter(x -> x.getName().equals("hyperprof-consumer-opreport")).findFirst().orElseThrow();
        assertTrue(t.isDaemon());
        dispatcher.stopAll(2000);
        assertFalse(t.isAlive(), "threads stop on deactivation");
    }

    private static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
    }

    @Test
    void withoutASessionNothingIsPublished() {
        RecordingConsumer c = new RecordingConsumer();
        dispatcher.add("c", c);
        dispatcher.publish(batch(3));
        assertNull(c.info);
        assertTrue(c.events.isEmpty());
    }

    @Test
    void endingTheSessionReturnsOnlyAfterEachConsumerHandledSessionEnded() throws Exception {
        // The caller (a one-shot profile) renders the consumers' reports right after the end.
        RecordingConsumer slowToFinish = new RecordingConsumer() {
            @Override
            public void sessionEnded(SessionSummary s) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.sessionEnded(s);
            }
        };
        dispatcher.add("late", slowToFinish);
        dispatcher.sessionStarted(info);
        dispatcher.publish(batch(3));
        SessionSummary s = end(5 * SECOND);
        assertNotNull(slowToFinish.summary, "sessionEnded was handled before the end returned");
        assertEquals(s.sessionId(), slowToFinish.summary.sessionId());
    }
    @Test
    void twoLiveSessionsKeepTheirOwnBooksAndEndOneAtATime() throws Exception {
        SessionInfo other = new SessionInfo(8, "guest profiler", "h", "i386/p6", "PIII", 2800, List.of(),
                Map.of(2, "domU-pv"), true, new Dictionary());
        Sessions c = new Sessions();
        dispatcher.add("c", c);
        dispatcher.sessionStarted(info);
        dispatcher.sessionStarted(other);
        dispatcher.publish(batch(3));
        dispatcher.publish(new SampleBatch(8, 2, new int[2], new int[2], new byte[2], new byte[2], new long[2],
                new int[2], new int[2], new long[2], new long[2], new int[2], new int[2], new int[2], new byte[2],
                new int[3], new long[0],
                new int[0], new int[0], new byte[0]));
        dispatcher.publish(new SampleBatch(99, 5, new int[5], new int[5], new byte[5], new byte[5], new long[5],
                new int[5], new int[5], new long[5], new long[5], new int[5], new int[5], new int[5], new byte[5],
                new int[6], new long[0],
                new int[0], new int[0], new byte[0]));
        SessionSummary eight = dispatcher.sessionEnded(8, b -> new SessionSummary(8, Accounting.ZERO, List.of(), b,
                null, null, 0, SessionSummary.COMPLETED), 5 * SECOND);
        assertEquals(List.of(7L), dispatcher.liveSessions(), "session 7 goes on");
        dispatcher.publish(batch(4));
        SessionSummary seven = end(5 * SECOND);
        assertEquals(2, books(eight, "c").received());
        assertEquals(7, books(seven, "c").received());
        assertEquals(2, c.batches.get(8L).stream().mapToInt(b -> b.size).sum());
        assertEquals(7, c.batches.get(7L).stream().mapToInt(b -> b.size).sum(), "no batch of session 99 (not live)");
        assertEquals(List.of("started simulator", "started guest profiler", "ended guest profiler",
                "ended simulator"), c.events);
    }

    // ---------------------------------------------------------------- books: received + missed = published

    /** A dispatcher that runs what {@code atTargets} holds, once, when a publish has taken its targets. */
    private static Dispatcher runningAtTargets(AtomicReference<Runnable> atTargets) {
        return new Dispatcher(8, () -> {
            Runnable r = atTargets.getAndSet(null);
            if (r != null) {
                r.run();
            }
        });
    }

    @Test
    void aConsumerLeavingWhilePublishHoldsItsTargetsMissesThatBatchAndTheSessionGoesOn() throws Exception {
        AtomicReference<Runnable> atTargets = new AtomicReference<>();
        Dispatcher d = runningAtTargets(atTargets);
        try {
            RecordingConsumer stays = new RecordingConsumer();
            RecordingConsumer leaves = new RecordingConsumer();
            d.add("stays", stays);
            d.add("leaves", leaves);
            d.sessionStarted(info);
            d.publish(batch(2));
            assertTrue(RecordingConsumer.waitFor(() -> leaves.samples() == 2));
            // publish has taken the targets (the leaving consumer's channel among them) when it leaves.
            atTargets.set(() -> assertTrue(d.remove("leaves")));
            d.publish(batch(3));
            d.publish(batch(4));
            SessionSummary s = end(d, 5 * SECOND);
            assertTrue(stays.awaitEnd(), "the session survives: the one that stays hears the end");
            assertEquals(new ConsumerAccounting("stays", 9, 0, null), books(s, "stays"));
            ConsumerAccounting l = books(s, "leaves");
            assertEquals(2, l.received());
            assertEquals(7, l.missed(), "the batch publish was offering when it left, and the one after");
            assertTrue(l.problem().startsWith("left mid-session"), l.problem());
            assertEquals(List.of("started", "samples"), leaves.events);
            assertEquals(List.of("stays"), d.names());
        } finally {
            d.stopAll(1000);
        }
    }

    @Test
    void aConsumerArrivingWhilePublishHoldsItsTargetsMissesThatBatch() throws Exception {
        AtomicReference<Runnable> atTargets = new AtomicReference<>();
        Dispatcher d = runningAtTargets(atTargets);
        try {
            RecordingConsumer early = new RecordingConsumer();
            RecordingConsumer late = new RecordingConsumer();
            d.add("early", early);
            d.sessionStarted(info);
            d.publish(batch(2));
            atTargets.set(() -> d.add("late", late));
            d.publish(batch(3));
            d.publish(batch(4));
            SessionSummary s = end(d, 5 * SECOND);
            assertTrue(late.awaitEnd());
            assertEquals(4, late.samples(), "only the batch published after it arrived");
            assertEquals(new ConsumerAccounting("early", 9, 0, null), books(s, "early"));
            ConsumerAccounting l = books(s, "late");
            assertEquals(4, l.received());
            assertEquals(5, l.missed(), "what was published before it arrived, the batch in hand included");
            assertTrue(l.problem().startsWith("arrived mid-session"), l.problem());
        } finally {
            d.stopAll(1000);
        }
    }

    /** Counts what it receives; keeps nothing. */
    private static final class Counting implements SampleConsumer {
        final AtomicLong samples = new AtomicLong();

        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch batch) {
            samples.addAndGet(batch.size);
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }
    }

    /**
     * Consumers leave and come back (as DS unbinds and binds them) while batches keep arriving:
     * whenever and however often that happens, every consumer's books balance at the end.
     */
    @Test
    void consumersLeavingAndComingBackWhileBatchesArriveKeepExactBooks() throws Exception {
        Dispatcher d = new Dispatcher(4);
        String[] names = {"a", "b", "c", "d"};
        try {
            for (String n : names) {
                d.add(n, new Counting());
            }
            d.sessionStarted(info);
            AtomicBoolean churning = new AtomicBoolean(true);
            AtomicLong published = new AtomicLong();
            SampleBatch batch = batch(3);
            Thread publisher = new Thread(() -> {
                while (churning.get()) {
                    d.publish(batch);
                    published.addAndGet(batch.size);
                    // Let the churning thread have the session between two batches.
                    Thread.yield();
                }
            }, "publisher");
            publisher.start();
            for (int i = 0; i < 400; i++) {
                String n = names[i % names.length];
                d.remove(n);
                d.add(n, new Counting());
            }
            churning.set(false);
            publisher.join(10_000);
            SessionSummary s = end(d, 5 * SECOND);
            assertEquals(names.length, s.consumers().size());
            assertEquals(List.of(), unbalanced(s, published.get()),
                    "received + missed = published for every consumer");
        } finally {
            d.stopAll(1000);
        }
    }
}
