package org.hyperprof.report.flamegraph;

import org.hyperprof.testing.sample.TestDictionary;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionInfo;
import org.junit.jupiter.api.Test;

/** Sessions kept, asked for, and deliveries that fit no session. */
class ConsumerLifecycleTest {

    @Test
    void itKeepsTheLastSessionsOldestFirstAndRendersTheLatestByDefault() throws Exception {
        FlameGraphConsumer consumer = new FlameGraphConsumer(2);
        for (long id = 1; id <= 3; id++) {
            NetworkStacks n = new NetworkStacks(id);
            consumer.sessionStarted(n.info);
            consumer.samples(new Batches(id).add((int) id, NetworkStacks.DOMU,
                    CpuMode.USER, n.rcv22, n.main).build());
        }
        assertEquals(List.of(2L, 3L), consumer.sessions());
        assertEquals("domU-rcv;main 3\n", Reports.folded(consumer));
        StringBuilder out = new StringBuilder();
        consumer.render(new ReportRequest(2, ReportRequest.ALL_DOMAINS, Set.of()), out);
        assertEquals("domU-rcv;main 2\n", out.toString());
    }

    @Test
    void anUnknownSessionIsAClearErrorListingTheKeptOnes() {
        FlameGraphConsumer consumer = new NetworkStacks(5).completed();
        ReportException e = assertThrows(ReportException.class, () -> consumer
                .render(new ReportRequest(4, ReportRequest.ALL_DOMAINS, Set.of()), new StringBuilder()));
        assertTrue(e.getMessage().contains("no session 4; the sessions it keeps are 5"), e.getMessage());
    }

    @Test
    void beforeAnySessionAReportIsAClearError() {
        ReportException e = assertThrows(ReportException.class,
                () -> new FlameGraphConsumer().render(ReportRequest.latest(), new StringBuilder()));
        assertTrue(e.getMessage().contains("no session yet; run a profile first"), e.getMessage());
    }

    @Test
    void batchesAndEndsForSessionsItDoesNotKeepAreCountedNotFatal() throws Exception {
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        consumer.samples(new NetworkStacks(9).batch());
        consumer.samples(null);
        consumer.sessionEnded(new NetworkStacks(9).summary());
        consumer.sessionStarted(null);
        assertArrayEquals(new long[] { 4, 150 }, consumer.strays());
        assertEquals(NetworkStacks.FOLDED, Reports.folded(consumer));
    }

    @Test
    void aRestartedSessionIdStartsAfresh() throws Exception {
        NetworkStacks n = new NetworkStacks(1);
        FlameGraphConsumer consumer = n.completed();
        consumer.sessionStarted(n.info);
        consumer.samples(new Batches(1).add(1, NetworkStacks.DOMU, CpuMode.USER, n.rcv22,
                n.main).build());
        assertEquals("domU-rcv;main 1\n", Reports.folded(consumer));
        assertEquals(List.of(1L), consumer.sessions());
    }

    @Test
    void aSessionTheAggregateRefusesIsAStrayNotAnExceptionOnTheDeliveryThread() {
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        List<CounterConfig> many = Collections.nCopies(257, NetworkStacks.CYCLES_100000);
        consumer.sessionStarted(new SessionInfo(6, "simulator", "h", "i386/p6", "PIII", 1, many, Map.of(), false,
                new TestDictionary()));
        assertEquals(List.of(), consumer.sessions());
        assertArrayEquals(new long[] { 1, 0 }, consumer.strays());
        ReportException e = assertThrows(ReportException.class,
                () -> consumer.render(ReportRequest.latest(), new StringBuilder()));
        assertTrue(e.getMessage().contains("first: the start of session 6:"), e.getMessage());
        assertTrue(e.getMessage().contains("at most 256"), e.getMessage());
    }

    @Test
    void itKeepsAtLeastOneSession() {
        assertThrows(IllegalArgumentException.class, () -> new FlameGraphConsumer(0));
    }

    @Test
    void theOptionsAreListedWithDescriptions() {
        List<String> options = new FlameGraphConsumer().options();
        assertTrue(options.stream().anyMatch(o -> o.startsWith("counter=N: ")), options.toString());
        assertTrue(options.stream().anyMatch(o -> o.startsWith("vcpus: ")), options.toString());
    }
}
