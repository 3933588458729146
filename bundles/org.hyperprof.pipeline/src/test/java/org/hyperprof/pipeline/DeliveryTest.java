package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How batches reach consumers that asked for more than a queue: a lossless consumer makes a source
 * that can wait wait, a tap is called on the publishing thread, and a batch's arrays go back to its
 * builder only when no consumer reads them any more.
 */
class DeliveryTest {
    private static final long SECOND = 1_000_000_000L;

    private final Dispatcher dispatcher = new Dispatcher(2);

    @AfterEach
    void stop() {
        dispatcher.stopAll(1000);
    }

    private static SessionInfo session(long id) {
        return new SessionInfo(id, "simulator", "h", "i386/p6", "PIII", 2800, List.of(), Map.of(0, "Domain-0"), false,
                new Dictionary());
    }

    private static SessionSummary end(Dispatcher d, long id) {
        return d.sessionEnded(id, c -> new SessionSummary(id, Accounting.ZERO, List.of(), c, null, null, 0,
                SessionSummary.COMPLETED), 10 * SECOND);
    }

    private static ConsumerAccounting books(SessionSummary s, String name) {
        return s.consumers().stream().filter(c -> c.consumer().equals(name)).findFirst().orElseThrow();
    }

    /** Publishes {@code batches} batches of {@code size} samples through a builder of session {@code id}. */
    private static void fill(BatchBuilder b, int batches, int size) {
        for (int i = 0; i < batches * size; i++) {
            b.begin(0, 0, 1, 0, 0x1000 + i, 0, -1, 1, i, -1, -1, -1);
            b.end();
        }
    }

    @Test
    void aLosslessConsumerTooSlowForItsQueueMissesNothingOfASourceThatCanWait() throws Exception {
        RecordingConsumer slow = new RecordingConsumer();
        slow.gate = new CountDownLatch(1);
        RecordingConsumer queued = new RecordingConsumer();
        queued.gate = new CountDownLatch(1);
        dispatcher.add("store", slow, Delivery.LOSSLESS);
        dispatcher.add("queued", queued);
        dispatcher.sessionStarted(session(7), true);
        BatchBuilder b = new BatchBuilder(7, 5, BatchBuilder.Reuse.WHEN_RELEASED, 0, dispatcher::publish);
        Thread source = new Thread(() -> fill(b, 20, 5), "source");
        source.start();
        // The source waits for the lossless consumer, whose queue of 2 is full while it is held.
        assertTrue(slow.entered.await(5, TimeUnit.SECONDS));
        source.join(300);
        assertTrue(source.isAlive(), "a source that can wait waits for a lossless consumer's full queue");
        slow.gate.countDown();
        queued.gate.countDown();
        source.join(10_000);
        assertFalse(source.isAlive());
        SessionSummary s = end(dispatcher, 7);
        assertEquals(new ConsumerAccounting("store", 100, 0, null), books(s, "store"));
        assertEquals(100, slow.samples());
        ConsumerAccounting q = books(s, "queued");
        assertEquals(100, q.received() + q.missed());
        assertTrue(q.missed() > 0, "a queued consumer held up at the same time missed what its queue could not take");
    }

    @Test
    void aLosslessConsumerTooSlowForALiveSourceMissesAndSaysWhy() throws Exception {
        RecordingConsumer slow = new RecordingConsumer();
        slow.gate = new CountDownLatch(1);
        dispatcher.add("store", slow, Delivery.LOSSLESS);
        dispatcher.sessionStarted(session(8), false);
        BatchBuilder b = new BatchBuilder(8, 5, BatchBuilder.Reuse.WHEN_RELEASED, 0, dispatcher::publish);
        long t0 = System.nanoTime();
        fill(b, 10, 5);
        assertTrue(System.nanoTime() - t0 < 5 * SECOND, "a live source never waits");
        slow.gate.countDown();
        SessionSummary s = end(dispatcher, 8);
        ConsumerAccounting a = books(s, "store");
        assertEquals(50, a.received() + a.missed());
        assertTrue(a.missed() > 0);
        assertTrue(a.problem().contains("a source that cannot wait"), a.problem());
    }

    @Test
    void aLosslessConsumerWhoseThreadDiesLetsTheSourceGoOnAndMissesTheRest() throws Exception {
        // An error that ends a thread (out of memory, say) in the consumer's samples(): a source waiting
        // for room in its queue must not wait for a thread that is gone.
        SampleConsumer dying = new SampleConsumer() {
            @Override
            public void sessionStarted(SessionInfo session) {
            }

            @Override
            public void samples(SampleBatch batch) {
                throw new StackOverflowError("consumer out of stack");
            }

            @Override
            public void sessionEnded(SessionSummary summary) {
            }
        };
        dispatcher.add("store", dying, Delivery.LOSSLESS);
        dispatcher.sessionStarted(session(11), true);
        BatchBuilder b = new BatchBuilder(11, 5, BatchBuilder.Reuse.WHEN_RELEASED, 0, dispatcher::publish);
        Thread source = new Thread(() -> fill(b, 20, 5), "source");
        source.start();
        source.join(10_000);
        assertFalse(source.isAlive(), "the source went on");
        ConsumerAccounting a = books(end(dispatcher, 11), "store");
        assertEquals(0, a.received());
        assertEquals(100, a.missed(), "received + missed = delivered");
        assertTrue(a.problem().contains("thread ended"), a.problem());
    }

    /** {@link #fill} on a thread named {@code the-source}, waiting for it to end. */
    private static void fillOnTheSourcesThread(BatchBuilder b, int batches, int size) throws InterruptedException {
        Thread source = new Thread(() -> fill(b, batches, size), "the-source");
        source.start();
        source.join(10_000);
    }

    @Test
    void aTapReadsEachBatchOnThePublishingThreadInOrder() throws Exception {
        RecordingConsumer tap = new RecordingConsumer();
        dispatcher.add("tap", tap, Delivery.TAP);
        dispatcher.sessionStarted(session(9));
        fillOnTheSourcesThread(new BatchBuilder(9, 4, BatchBuilder.Reuse.AT_ONCE, 0, dispatcher::publish), 3, 4);
        assertEquals(12, tap.samples(), "every batch was read before the source went on");
        SessionSummary s = end(dispatcher, 9);
        assertTrue(tap.awaitEnd());
        assertEquals(List.of("started", "samples", "samples", "samples", "ended"), tap.events);
        assertEquals(List.of("the-source", "the-source", "the-source"), tap.threads.subList(1, 4));
        assertEquals(new ConsumerAccounting("tap", 12, 0, null), books(s, "tap"));
    }

    @Test
    void aConsumerAsksForItsDeliveryByItsServicePropertiesWhoeverBindsIt() throws Exception {
        RecordingConsumer tap = new RecordingConsumer();
        RecordingConsumer queued = new RecordingConsumer();
        assertEquals("report", dispatcher.add(tap, Map.of(SampleConsumer.NAME, "report", SampleConsumer.DELIVERY,
                "tap")));
        dispatcher.add(queued, Map.of(SampleConsumer.NAME, "queued"));
        dispatcher.sessionStarted(session(11));
        fillOnTheSourcesThread(new BatchBuilder(11, 4, BatchBuilder.Reuse.WHEN_RELEASED, 0, dispatcher::publish), 2,
                4);
        assertEquals(8, tap.samples(), "the tap read every batch before the source went on");
        SessionSummary s = end(dispatcher, 11);
        assertEquals(List.of("the-source", "the-source"), tap.threads.subList(1, 3));
        assertEquals(new ConsumerAccounting("report", 8, 0, null), books(s, "report"));
        assertEquals(8, books(s, "queued").received() + books(s, "queued").missed());
        assertTrue(dispatcher.remove(tap, Map.of(SampleConsumer.NAME, "report")));
        assertEquals(List.of("queued"), dispatcher.names());
        assertThrows(IllegalArgumentException.class, () -> dispatcher.add(tap, Map.of(SampleConsumer.DELIVERY,
                "tap")), "a consumer without its name");
        assertThrows(IllegalArgumentException.class, () -> dispatcher.add(tap, Map.of(SampleConsumer.NAME, "x",
                SampleConsumer.DELIVERY, "eventually")), "a delivery no consumer can have");
    }

    @Test
    void aTapThatThrowsLosesThatBatchOnlyAndTheSourceGoesOn() throws Exception {
        RecordingConsumer tap = new RecordingConsumer();
        tap.throwOnSamples = true;
        dispatcher.add("tap", tap, Delivery.TAP);
        dispatcher.sessionStarted(session(10));
        BatchBuilder b = new BatchBuilder(10, 4, BatchBuilder.Reuse.AT_ONCE, 0, dispatcher::publish);
        fill(b, 2, 4);
        ConsumerAccounting a = books(end(dispatcher, 10), "tap");
        assertEquals(0, a.received());
        assertEquals(8, a.missed());
        assertTrue(a.problem().contains("consumer bug"), a.problem());
    }

    /** A consumer that notes, for each batch, the first PC it saw, then waits. */
    private static final class FirstPcs implements org.hyperprof.api.sample.SampleConsumer {
        final List<Long> firstPcs = new CopyOnWriteArrayList<>();
        final AtomicInteger wrongAfterwards = new AtomicInteger();

        @Override
        public void sessionStarted(SessionInfo session) {
        }

        @Override
        public void samples(SampleBatch batch) {
            long first = batch.pc[0];
            firstPcs.add(first);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (batch.pc[0] != first) {
                wrongAfterwards.incrementAndGet();
            }
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }
    }

    @Test
    void aBatchsArraysAreNotFilledAgainWhileAConsumerReadsThem() throws Exception {
        Dispatcher d = new Dispatcher(2);
        try {
            FirstPcs slow = new FirstPcs();
            d.add("slow", slow, Delivery.LOSSLESS);
            d.add("fast", new RecordingConsumer());
            d.sessionStarted(session(11), true);
            BatchBuilder b = new BatchBuilder(11, 8, BatchBuilder.Reuse.WHEN_RELEASED, 0, d::publish);
            fill(b, 50, 8);
            SessionSummary s = end(d, 11);
            assertEquals(new ConsumerAccounting("slow", 400, 0, null), books(s, "slow"));
            assertEquals(0, slow.wrongAfterwards.get(), "a batch changed under a consumer reading it");
            for (int i = 0; i < slow.firstPcs.size(); i++) {
                assertEquals(0x1000 + 8L * i, slow.firstPcs.get(i), "batch " + i);
            }
            // Held at most: 2 queued and 1 in hand for each consumer, 1 being filled, 1 being handed on.
            assertTrue(b.slabs() <= 8, "arrays came back and were used again: " + b.slabs() + " sets for 50 batches");
        } finally {
            d.stopAll(1000);
        }
    }

    @Test
    void aLeaseGoesBackOnceEveryHolderReleasedIt() {
        List<BatchBuilder.Lease> handed = new CopyOnWriteArrayList<>();
        BatchBuilder b = new BatchBuilder(1, 2, BatchBuilder.Reuse.WHEN_RELEASED, 0, (batch, lease) -> {
            lease.hold();
            handed.add(lease);
        });
        fill(b, 1, 2);
        fill(b, 1, 2);
        assertEquals(3, b.slabs(), "both batches are held: a third set of arrays is being filled");
        handed.get(0).release();
        fill(b, 1, 2);
        assertEquals(3, b.slabs(), "the first batch's arrays came back and were filled again");
        assertThrows(IllegalStateException.class, () -> {
            handed.get(0).release();
            handed.get(0).release();
        }, "a lease released more often than held is a bug, said at once");
    }

    @Test
    void aBuilderWithABoundWaitsForArraysToComeBack() throws Exception {
        List<BatchBuilder.Lease> handed = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean keep = new java.util.concurrent.atomic.AtomicBoolean(true);
        BatchBuilder b = new BatchBuilder(1, 2, BatchBuilder.Reuse.WHEN_RELEASED, 2, (batch, lease) -> {
            if (keep.get()) {
                lease.hold();
                handed.add(lease);
            }
        });
        Thread source = new Thread(() -> fill(b, 4, 2), "source");
        source.start();
        source.join(300);
        assertTrue(source.isAlive(), "two sets out, none back: the source waits");
        assertEquals(1, handed.size(), "the second batch waits for arrays to fill the third in");
        keep.set(false);
        handed.get(0).release();
        source.join(5000);
        assertFalse(source.isAlive());
        assertEquals(2, b.slabs());
    }

    @Test
    void flagsAndCallerModesTravelWithTheBatchAndAReusedSetStartsEachSampleWithNoFlags() {
        List<String> seen = new CopyOnWriteArrayList<>();
        BatchBuilder b = new BatchBuilder(1, 2, BatchBuilder.Reuse.WHEN_RELEASED, 0, (batch, lease) -> {
            for (int i = 0; i < batch.size; i++) {
                StringBuilder s = new StringBuilder().append(batch.pc[i]).append(" f").append(batch.flags[i]);
                for (int c = batch.chainStart[i]; c < batch.chainStart[i + 1]; c++) {
                    s.append(" m").append(batch.chainMode[c]);
                }
                seen.add(s.toString());
            }
        });
        for (int t = 1; t <= 6; t++) {
            b.begin(0, 0, 0, 0, t, 0, -1, 1, -1, -1, -1, -1);
            if (t <= 2) {
                b.flag(SampleBatch.CHAIN_FROM_PC | SampleBatch.MODE_UNKNOWN);
            }
            b.caller(0x100 + t, 0, -1, t % 3 == 0 ? SampleBatch.UNKNOWN : 1);
            b.end();
        }
        assertEquals(List.of("1 f3 m1", "2 f3 m1", "3 f0 m-1", "4 f0 m1", "5 f0 m1", "6 f0 m-1"), seen);
        assertEquals(2, b.slabs(), "released at once: the set being filled and the set handed on");
    }
}
