package org.hyperprof.report.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/** Keeping the last sessions of a report consumer, routing deliveries to them, and counting strays. */
class SessionShelfTest {

    /** A stand-in aggregate: remembers its session and the batches routed to it. */
    private static final class Tally {
        final long sessionId;
        final List<SampleBatch> batches = new ArrayList<>();

        Tally(SessionInfo info) {
            this.sessionId = info.sessionId();
        }
    }

    private static SessionShelf<Tally> shelf(int retained) {
        return new SessionShelf<>("the test report", "ask for its report", retained, Tally::new);
    }

    private static SessionInfo info(long sessionId) {
        return new SessionInfo(sessionId, "simulator", "host", "i386/p6", "PIII", 2800, List.of(), Map.of(), false,
                null);
    }

    private static SampleBatch batch(long sessionId, int size) {
        return new SampleBatch(sessionId, size, new int[size], new int[size], new byte[size], new byte[size],
                new long[size], new int[size], new int[size], new long[size], new long[size], new int[size], new int[size],
                new int[size], new byte[size], new int[size + 1], new long[0], new int[0], new int[0], new byte[0]);
    }

    private static SessionSummary summary(long sessionId) {
        return new SessionSummary(sessionId, new Accounting(0, 0, 0, 0, 0), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED);
    }

    @Test
    void keepingNoSessionIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> shelf(0));
        assertEquals("the test report must keep at least 1 session, not 0", e.getMessage());
    }

    @Test
    void aStartedSessionGetsItsOwnAggregateFromTheFactory() {
        SessionShelf<Tally> shelf = shelf(2);
        Tally t = shelf.started(info(7));
        assertEquals(7, t.sessionId);
        assertEquals(List.of(7L), shelf.sessions());
    }

    @Test
    void pastTheLimitTheOldestSessionIsDropped() {
        SessionShelf<Tally> shelf = shelf(2);
        shelf.started(info(1));
        shelf.started(info(2));
        shelf.started(info(3));
        assertEquals(List.of(2L, 3L), shelf.sessions());
    }

    @Test
    void aRestartedSessionIdReplacesTheOldAggregateAndBecomesNewest() {
        SessionShelf<Tally> shelf = shelf(3);
        Tally first = shelf.started(info(1));
        shelf.started(info(2));
        Tally again = shelf.started(info(1));
        assertEquals(List.of(2L, 1L), shelf.sessions());
        assertSame(again, shelf.aggregateFor(batch(1, 1)));
        assertFalse(first == again);
    }

    @Test
    void batchesOfInterleavedSessionsGoToTheirOwnAggregate() throws ReportException {
        SessionShelf<Tally> shelf = shelf(4);
        Tally one = shelf.started(info(1));
        Tally two = shelf.started(info(2));
        assertSame(one, shelf.aggregateFor(batch(1, 3)));
        assertSame(two, shelf.aggregateFor(batch(2, 3)));
        assertSame(one, shelf.aggregateFor(batch(1, 3)));
        assertSame(two, shelf.aggregateFor(2));
        assertSame(one, shelf.resolve(1).aggregate());
        assertEquals(SessionShelf.Strays.NONE, shelf.strays());
    }

    @Test
    void deliveriesForUnknownOrDroppedSessionsAreCountedAsStraysWithTheirSamples() {
        SessionShelf<Tally> shelf = shelf(1);
        shelf.started(info(1));
        shelf.started(info(2)); // drops 1
        assertNull(shelf.aggregateFor(batch(1, 40)));
        assertNull(shelf.aggregateFor(batch(9, 60)));
        assertNull(shelf.aggregateFor(null));
        assertNull(shelf.aggregateFor(5));
        assertNull(shelf.ended(summary(9)));
        assertNull(shelf.ended(null));
        assertNull(shelf.started(null));
        SessionShelf.Strays strays = shelf.strays();
        assertEquals(7, strays.deliveries());
        assertEquals(100, strays.samples());
        assertEquals("a batch of 40 samples for session 1", strays.first());
        assertTrue(strays.any());
    }

    @Test
    void deliverAndEndedHandTheBatchAndSummaryToTheirOwnAggregateOnly() throws ReportException {
        SessionShelf<Tally> shelf = shelf(2);
        Tally one = shelf.started(info(1));
        Tally two = shelf.started(info(2));
        SampleBatch b = batch(2, 5);
        shelf.deliver(b, (t, batch) -> t.batches.add(batch));
        shelf.deliver(batch(4, 6), (t, batch) -> t.batches.add(batch));
        assertEquals(List.of(b), two.batches);
        assertEquals(List.of(), one.batches);
        List<Long> closed = new ArrayList<>();
        shelf.ended(summary(1), (t, s) -> closed.add(t.sessionId));
        shelf.ended(summary(4), (t, s) -> closed.add(t.sessionId));
        assertEquals(List.of(1L), closed);
        assertEquals(1, shelf.resolve(1).summary().sessionId());
        assertEquals(new SessionShelf.Strays(2, 6, "a batch of 6 samples for session 4"), shelf.strays());
    }

    /** Counts what it is handed without allocating, so only the shelf's own allocation is measured. */
    private static final class Counter {
        long samples;

        Counter(SessionInfo info) {
        }

        void accept(SampleBatch batch) {
            samples += batch.size;
        }
    }

    @Test
    void routingBatchesOfKeptSessionsAllocatesNothing() {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
                "the JVM reports per-thread allocation");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        SessionShelf<Counter> shelf = new SessionShelf<>("x", "y", 2, Counter::new);
        Counter one = shelf.started(info(1));
        Counter two = shelf.started(info(2));
        SampleBatch b1 = batch(1, 3);
        SampleBatch b2 = batch(2, 4);
        // One call site, as in a consumer: linking a method reference allocates once, at its first use.
        java.util.function.BiConsumer<Counter, SampleBatch> accept = Counter::accept;
        for (int warm = 0; warm < 20_000; warm++) {
            shelf.deliver(b1, accept);
            shelf.deliver(b2, accept);
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 10_000; i++) {
            shelf.deliver(b1, accept);
            shelf.deliver(b1, accept);
            shelf.deliver(b2, accept);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertEquals(3L * 40_000, one.samples);
        assertEquals(4L * 30_000, two.samples);
        assertTrue(allocated < 1024, "30000 deliveries allocated " + allocated + " bytes");
    }

    @Test
    void aStartTheFactoryRefusesIsAStrayNamingWhy() {
        SessionShelf<Tally> shelf = new SessionShelf<>("x", "y", 2, i -> {
            throw new IllegalArgumentException("too many counters");
        });
        assertNull(shelf.started(info(4)));
        assertEquals(List.of(), shelf.sessions());
        assertEquals("the start of session 4: too many counters", shelf.strays().first());
    }

    @Test
    void anEndRecordsTheSummaryOnItsSessionAndReturnsTheAggregate() throws ReportException {
        SessionShelf<Tally> shelf = shelf(2);
        Tally t = shelf.started(info(3));
        assertNull(shelf.resolve(3).summary());
        SessionSummary s = summary(3);
        assertSame(t, shelf.ended(s));
        assertSame(s, shelf.resolve(3).summary());
        assertEquals(3, shelf.resolve(3).info().sessionId());
    }

    @Test
    void theLatestRequestResolvesToTheNewestSession() throws ReportException {
        SessionShelf<Tally> shelf = shelf(3);
        shelf.started(info(5));
        Tally newest = shelf.started(info(2));
        assertSame(newest, shelf.resolve(ReportRequest.latest()).aggregate());
        assertEquals(2, shelf.resolve(ReportRequest.LATEST).sessionId());
    }

    @Test
    void beforeAnySessionResolvingSaysToRunAProfileFirst() {
        ReportException e = assertThrows(ReportException.class, () -> shelf(2).resolve(ReportRequest.latest()));
        assertEquals("the test report has no session yet; run a profile first (e.g. hp:profile),"
                + " then ask for its report", e.getMessage());
    }

    @Test
    void beforeAnySessionTheErrorAlsoNamesTheStraysItGot() {
        SessionShelf<Tally> shelf = shelf(2);
        shelf.aggregateFor(batch(8, 10));
        ReportException e = assertThrows(ReportException.class, () -> shelf.resolve(ReportRequest.LATEST));
        assertTrue(e.getMessage().endsWith("(it got 1 deliveries for no session it knew, first: a batch of 10"
                + " samples for session 8)"), e.getMessage());
    }

    @Test
    void anUnknownSessionIdIsAnErrorListingTheKeptSessionsAndTheLimit() {
        SessionShelf<Tally> shelf = shelf(2);
        shelf.started(info(3));
        shelf.started(info(8));
        ReportException e = assertThrows(ReportException.class,
                () -> shelf.resolve(new ReportRequest(99, ReportRequest.ALL_DOMAINS, Set.of())));
        assertEquals("the test report has no session 99; the sessions it keeps are 3, 8 (the last 2 at most);"
                + " ask for one of them or for the latest", e.getMessage());
    }

    @Test
    void aNullRequestIsAnErrorSayingWhatToAskFor() {
        ReportException e = assertThrows(ReportException.class, () -> shelf(1).resolve((ReportRequest) null));
        assertTrue(e.getMessage().contains("ask for a session (or the latest)"), e.getMessage());
    }
}
