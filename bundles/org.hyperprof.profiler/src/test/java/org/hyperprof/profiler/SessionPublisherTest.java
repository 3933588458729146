package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.junit.jupiter.api.Test;

/**
 * The profiler as a {@link SessionPublisher}: sources other than the simulator (perf.data imports,
 * live perf record) feed the same consumers, with the same isolation and books, one session at a
 * time.
 */
class SessionPublisherTest {

    private static SampleBatch batch(long session, int size) {
        return new SampleBatch(session, size, new int[size], new int[size], new byte[size], new byte[size],
                new long[size], new int[size], new int[size], new long[size], new long[size], new int[size], new int[size],
                new int[size], new byte[size], new int[size + 1], new long[0], new int[0], new int[0], new byte[0]);
    }

    private static SessionPublisher.Channel open(SessionPublisher p, Dictionary dictionary) {
        return p.open("perf.data", "vm", "x86_64", "AMD EPYC", 0, List.of(), Map.of(0, "host", 1, "guest-4242"),
                dictionary);
    }

    @Test
    void openingStartsTheSessionForEveryConsumerWithTheSourcesNamesAndNoGroundTruth() throws Exception {
        try (Rig rig = new Rig()) {
            Dictionary dictionary = new Dictionary();
            dictionary.addImage("[kernel.kallsyms]", ImageKind.KERNEL, 0);
            SessionPublisher.Channel ch = open(rig.profiler, dictionary);
            ch.close(Accounting.ZERO, Map.of(), List.of(), SessionSummary.COMPLETED);
            assertTrue(rig.consumer.awaitEnd());
            var info = rig.consumer.info;
            assertEquals(ch.sessionId(), info.sessionId());
            assertEquals("perf.data", info.source());
            assertEquals("vm", info.hostName());
            assertEquals("x86_64", info.cpuType());
            assertEquals("guest-4242", info.domainName(1));
            assertFalse(info.groundTruth(), "only the simulator knows the ground truth");
            assertSame(dictionary, info.dictionary());
        }
    }

    @Test
    void publishedBatchesReachTheConsumersAndCloseEndsWithTheSourcesBooksCountersAndNotes() throws Exception {
        try (Rig rig = new Rig()) {
            SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
            ch.publish(batch(ch.sessionId(), 3));
            ch.publish(batch(ch.sessionId(), 4));
            Accounting books = new Accounting(10, 7, 2, 1, 0);
            SessionSummary s = ch.close(books, Map.of("records.MMAP2", 5L), List.of("a note"),
                    SessionSummary.COMPLETED);
            assertTrue(rig.consumer.awaitEnd());
            assertEquals(List.of("started", "samples", "samples", "ended"), rig.consumer.events);
            assertEquals(7, rig.consumer.samples());
            assertEquals(books, s.accounting());
            assertEquals(Map.of("records.MMAP2", 5L), s.hostCounters());
            assertEquals(List.of("a note"), s.notes());
            assertEquals(List.of(new ConsumerAccounting("rec", 7, 0, null)), s.consumers());
            assertEquals(List.of(), s.buffers(), "a recording has no Xenoprof buffers");
            assertSame(s, rig.consumer.summary);
            assertSame(s, rig.profiler.lastSummary().orElseThrow());
        }
    }

    @Test
    void aBatchOfAnotherSessionIsRefused() throws Exception {
        try (Rig rig = new Rig()) {
            SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
            assertThrows(IllegalArgumentException.class, () -> ch.publish(batch(ch.sessionId() + 1, 1)));
            ch.close(Accounting.ZERO, Map.of(), List.of(), SessionSummary.COMPLETED);
        }
    }

    @Test
    void batchesAfterTheEndAreRefusedAndASecondCloseReturnsTheSameSummary() throws Exception {
        try (Rig rig = new Rig()) {
            SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
            SessionSummary s = ch.close(Accounting.ZERO, Map.of(), List.of(), SessionSummary.COMPLETED);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ch.publish(batch(ch.sessionId(), 1)));
            assertTrue(e.getMessage().contains("has ended"), e.getMessage());
            assertSame(s, ch.close(new Accounting(5, 5, 0, 0, 0), Map.of(), List.of(), "again"));
        }
    }

    @Test
    void booksThatDoNotBalanceOrDisagreeWithWhatWasPublishedAreNoted() throws Exception {
        try (Rig rig = new Rig()) {
            SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
            ch.publish(batch(ch.sessionId(), 2));
            SessionSummary s = ch.close(new Accounting(9, 5, 0, 0, 0), Map.of(), List.of(), SessionSummary.COMPLETED);
            assertTrue(s.notes().stream().anyMatch(n -> n.contains("do not balance")), s.notes().toString());
            assertTrue(s.notes().stream().anyMatch(n -> n.contains("counts 5 samples delivered but published 2")),
                    s.notes().toString());
        }
    }

    @Test
    void aConsumerThatThrowsLosesItsBatchesAndTheSessionGoesOn() throws Exception {
        try (Rig rig = new Rig()) {
            RecordingConsumer good = new RecordingConsumer();
            rig.profiler.addConsumer("good", good);
            rig.consumer.throwOnSamples = true;
            SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
            ch.publish(batch(ch.sessionId(), 3));
            SessionSummary s = ch.close(new Accounting(3, 3, 0, 0, 0), Map.of(), List.of(), SessionSummary.COMPLETED);
            assertEquals(3, good.samples());
            ConsumerAccounting bad = s.consumers().stream().filter(c -> c.consumer().equals("rec")).findFirst()
                    .orElseThrow();
            assertEquals(0, bad.received());
            assertEquals(3, bad.missed());
            assertTrue(bad.problem().contains("consumer bug"), bad.problem());
        }
    }

    @Test
    void aPublishedSessionCannotOpenWhileASimulatedOneRuns() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> open(rig.profiler, new Dictionary()));
            assertTrue(e.getMessage().contains("simulated session"), e.getMessage());
            rig.finish();
            open(rig.profiler, new Dictionary()).close(Accounting.ZERO, Map.of(), List.of(), "done");
        }
    }

    @Test
    void aSimulatedSessionCannotStartWhileAPublishedOneIsOpenAndNeitherCanASecondPublishedOne() throws Exception {
        try (Rig rig = new Rig()) {
            SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
            OpcontrolResult r = rig.op(0, "--start-daemon", "--active-domains=0,1");
            assertFalse(r.ok(), r.output());
            assertTrue(r.output().contains("fed by perf.data is open"), r.output());
            assertThrows(ProfileException.class, () -> rig.profiler.profile(
                    new ProfileRequest(List.of(), 1000, List.of()), ProgressListener.NONE));
            assertThrows(IllegalStateException.class, () -> open(rig.profiler, new Dictionary()));
            ch.close(Accounting.ZERO, Map.of(), List.of(), SessionSummary.COMPLETED);
            Rig.ok(rig.op(0, "--start-daemon", "--active-domains=0,1"));
            rig.op(0, "--shutdown");
        }
    }

    @Test
    void publishedAndSimulatedSessionsHaveDistinctIds() throws Exception {
        try (Rig rig = new Rig()) {
            SessionPublisher.Channel first = open(rig.profiler, new Dictionary());
            first.close(Accounting.ZERO, Map.of(), List.of(), SessionSummary.COMPLETED);
            SessionPublisher.Channel second = open(rig.profiler, new Dictionary());
            second.close(Accounting.ZERO, Map.of(), List.of(), SessionSummary.COMPLETED);
            assertNotEquals(first.sessionId(), second.sessionId());
        }
    }

    @Test
    void stoppingTheProfilerEndsAnOpenPublishedSessionWithWhatWasPublished() throws Exception {
        Rig rig = new Rig();
        SessionPublisher.Channel ch = open(rig.profiler, new Dictionary());
        ch.publish(batch(ch.sessionId(), 4));
        rig.close();
        assertTrue(rig.consumer.awaitEnd());
        SessionSummary s = rig.consumer.summary;
        assertEquals(new Accounting(4, 4, 0, 0, 0), s.accounting());
        assertTrue(s.endReason().contains("profiler stopped"), s.endReason());
        assertThrows(IllegalStateException.class, () -> ch.publish(batch(ch.sessionId(), 1)));
        assertSame(s, ch.close(new Accounting(4, 4, 0, 0, 0), Map.of(), List.of(), SessionSummary.COMPLETED));
    }

    @Test
    void openingNeedsItsNamesCountersDomainsAndDictionary() {
        ProfilerImpl p = new ProfilerImpl(new FakeHost().service(), 64, 8, Duration.ofSeconds(1));
        assertThrows(IllegalArgumentException.class,
                () -> p.open(" ", "vm", "x", "y", 0, List.of(), Map.of(), new Dictionary()));
        assertThrows(IllegalArgumentException.class,
                () -> p.open("perf.data", "vm", "x", "y", 0, List.of(), Map.of(), null));
    }
}
