package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.row;
import static org.hyperprof.report.opreport.Reports.section;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/** Sessions kept, batches that go wrong, and reports rendered while samples arrive. */
class ConsumerLifecycleTest {

    @Test
    void itKeepsTheLastSessionsOldestFirst() {
        OpreportConsumer opreport = new OpreportConsumer(3);
        for (long id = 1; id <= 5; id++) {
            opreport.sessionStarted(new NetworkSession(id).info);
        }
        assertEquals(List.of(3L, 4L, 5L), opreport.sessions());
    }

    @Test
    void byDefaultItKeepsSixteenSessions() {
        OpreportConsumer opreport = new OpreportConsumer();
        for (long id = 1; id <= 20; id++) {
            opreport.sessionStarted(new NetworkSession(id).info);
        }
        assertEquals(16, opreport.sessions().size());
        assertEquals(5L, opreport.sessions().get(0));
    }

    @Test
    void keepingNoSessionIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new OpreportConsumer(0));
        assertTrue(e.getMessage().contains("at least 1 session"), e.getMessage());
    }

    @Test
    void batchesOfInterleavedSessionsGoToTheirOwnSession() throws Exception {
        NetworkSession first = new NetworkSession(1);
        NetworkSession second = new NetworkSession(2);
        OpreportConsumer opreport = new OpreportConsumer();
        opreport.sessionStarted(first.info);
        opreport.sessionStarted(second.info);
        opreport.samples(new Batches(1).add(7, NetworkSession.DOM0, CpuMode.KERNEL, 0, first.e1000, -1).build());
        opreport.samples(new Batches(2).add(3, NetworkSession.DOM0, CpuMode.KERNEL, 0, second.e1000, -1).build());
        opreport.samples(new Batches(1).add(1, NetworkSession.DOM0, CpuMode.KERNEL, 0, first.e1000, -1).build());
        assertEquals("8", row(section(Reports.render(opreport, 1, -1), "All domains"), "Domain-0", "e1000").get(0));
        assertEquals("3", row(section(Reports.render(opreport, 2, -1), "All domains"), "Domain-0", "e1000").get(0));
    }

    @Test
    void aBadBatchNeverThrowsAndIsReportedInTheFooter() throws Exception {
        NetworkSession net = new NetworkSession(3);
        OpreportConsumer opreport = new OpreportConsumer();
        opreport.sessionStarted(net.info);
        SampleBatch bad = new Batches(3).add(4, NetworkSession.DOM0, CpuMode.KERNEL, 0, net.e1000, net.e1000Intr)
                .add(6, NetworkSession.DOM0, CpuMode.KERNEL, 0, 4242, -1).build();
        assertDoesNotThrow(() -> opreport.samples(bad));
        assertDoesNotThrow(() -> opreport.samples(null));
        assertDoesNotThrow(() -> opreport.samples(new NetworkSession(77).batch(0)));
        String report = all(opreport);
        assertTrue(report.contains("opreport: aggregated 4 samples, rejected 6 samples in 1 batches"
                + " (first: batch 1 sample 4: image id 4242 is outside the dictionary's 6 images)"), report);
        assertTrue(report.contains("opreport: ignored 2 deliveries (150 samples) that were unreadable or for sessions"
                + " it never saw start or no longer keeps (first: a null batch)"), report);
        assertEquals("4", row(section(report, "All domains"), "Domain-0", "e1000").get(0));
    }

    @Test
    void aConsumerThatSawOnlyPartOfTheSessionSaysSo() throws Exception {
        NetworkSession net = new NetworkSession(3);
        OpreportConsumer opreport = new OpreportConsumer();
        opreport.sessionStarted(net.info);
        opreport.samples(new Batches(3).add(100, NetworkSession.DOM0, CpuMode.KERNEL, 0, net.e1000, -1).build());
        opreport.sessionEnded(new SessionSummary(3, NetworkSession.SESSION_BOOKS, net.buffers(),
                List.of(new ConsumerAccounting("opreport", 100, 50, "queue full")), null, net.truth(), 1,
                SessionSummary.COMPLETED));
        String report = all(opreport);
        assertTrue(report.contains("consumer opreport: received 100, missed 50 (first problem: queue full)"), report);
        assertTrue(report.contains("note: opreport aggregated 100 of the 150 samples the profiler handed it"), report);
    }

    @Test
    void aSessionStartedAgainUnderTheSameIdStartsAfresh() throws Exception {
        NetworkSession net = new NetworkSession(3);
        OpreportConsumer opreport = net.completed();
        opreport.sessionStarted(net.info);
        assertEquals(List.of(3L), opreport.sessions());
        assertTrue(all(opreport).contains("running, 0 samples so far"));
    }

    @Test
    void renderingWhileBatchesArriveNeverThrowsAndLosesNoSample() throws Exception {
        NetworkSession net = new NetworkSession(3);
        OpreportConsumer opreport = new OpreportConsumer();
        opreport.sessionStarted(net.info);
        int batches = 400;
        SampleBatch batch = net.batch(0);
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger renders = new AtomicInteger();
        Thread delivery = new Thread(() -> {
            started.countDown();
            for (int i = 0; i < batches; i++) {
                opreport.samples(batch);
            }
            opreport.sessionEnded(net.summary());
        }, "opreport-delivery");
        Thread shell = new Thread(() -> {
            try {
                started.await();
                while (delivery.isAlive() || renders.get() == 0) {
                    String text = all(opreport);
                    if (!text.startsWith("CPU: PIII")) {
                        throw new AssertionError(text);
                    }
                    renders.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "shell");
        delivery.start();
        shell.start();
        delivery.join(TimeUnit.SECONDS.toMillis(20));
        shell.join(TimeUnit.SECONDS.toMillis(20));
        if (failure.get() != null) {
            throw new AssertionError("render failed while batches arrived", failure.get());
        }
        assertTrue(renders.get() > 0);
        String report = all(opreport);
        assertTrue(report.contains("opreport: aggregated " + 150 * batches + " samples, rejected none"),
                report);
        assertEquals(Integer.toString(50 * batches), row(section(report, "All domains"), "Domain-0", "xen-syms").get(0));
    }
}
