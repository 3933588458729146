package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.testing.host.NoHost;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.Test;

/** A session runs from the primary's --start-daemon to its --shutdown, and its summary accounts for every sample. */
class SessionTest {
    private static final long K = FakeHost.KERNEL;

    @Test
    void theSummaryFoldsXensStatisticsIntoBalancedBooksAndAccountsEachBufferAndConsumer() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(K, 1, 0);
            rig.xen.buffer(1, 0).sample(K, 0, 0);
            rig.xen.buffer(1, 1).sample(FakeHost.XEN + 0x1000, 2, 0);
            rig.xen.buffer(1, 1).sample(K, 1, 0);
            rig.host.run(1000, ProgressListener.NONE);
            XenoprofStatistics stats = new XenoprofStatistics(100, 80, 0, 5, 10, 2, 3, 2);
            rig.xen.statistics = stats;
            String out = rig.finish().output();
            SessionSummary s = rig.consumer.summary;
            assertSame(s, rig.profiler.lastSummary().orElseThrow());
            assertEquals(new Accounting(100, 80, 5, 10, 5), s.accounting());
            assertTrue(s.accounting().balanced());
            assertTrue(out.contains("samples taken 100 = delivered 80 + lost 5 + dropped 10 + invalid 5"), out);
            assertSame(stats, s.hypervisor());
            assertNotNull(s.groundTruth());
            assertEquals(1000 * 2800, s.simulatedCycles(), "cycles elapsed between --start and --stop");
            assertEquals(SessionSummary.COMPLETED, s.endReason());
            assertEquals(List.of(new ConsumerAccounting("rec", 4, 0, null)), s.consumers());
            assertEquals(List.of(
                    new BufferAccounting(0, 0, "active", new Accounting(1, 1, 0, 0, 0), 0, 1, 0, 1, 0),
                    new BufferAccounting(1, 0, "active", new Accounting(1, 1, 0, 0, 0), 1, 0, 0, 1, 0),
                    new BufferAccounting(1, 1, "active", new Accounting(2, 2, 0, 0, 0), 0, 1, 1, 2, 0)),
                    s.buffers());
        }
    }

    @Test
    void aBufferThatLostSamplesShowsThemInItsBooks() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            for (int i = 0; i < 20; i++) {
                b.sample(K, 1, 0);
            }
            rig.finish();
            BufferAccounting a = rig.consumer.summary.buffers().get(0);
            assertEquals(new Accounting(20, 15, 5, 0, 0), a.accounting(), "16 slots hold 15; the newest 5 are lost");
            assertEquals(15, rig.consumer.samples());
        }
    }

    @Test
    void entriesAGuestLeftBehindAreReportedAsUndrained() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.fail(1, XenoprofOp.DISABLE_VIRQ, Errno.EPERM.ret());
            assertFalse(rig.op(1, "--shutdown").ok(), "disable_virq while the primary profiles");
            // Xen keeps the domain active and goes on writing into pages nobody reads.
            rig.xen.buffer(1, 0).sample(K, 1, 0);
            rig.xen.buffer(1, 0).sample(K, 1, 0);
            Rig.ok(rig.op(0, "--shutdown"));
            assertTrue(rig.consumer.awaitEnd());
            BufferAccounting a = rig.consumer.summary.buffers().stream().filter(x -> x.domid() == 1 && x.vcpu() == 0)
                    .findFirst().orElseThrow();
            assertEquals(2, a.undrained());
            assertEquals(0, a.drained());
        }
    }

    @Test
    void aGuestThatRestartsItsDaemonKeepsOneSetOfBooksPerVcpu() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(1, 0).sample(K, 1, 0);
            rig.xen.virq(1, 0);
            Rig.ok(rig.op(0, "--stop"));
            Rig.ok(rig.op(1, "--shutdown"));
            Rig.ok(rig.op(1, "--start-daemon"));
            rig.xen.buffer(1, 0).sample(K, 1, 0);
            rig.xen.virq(1, 0);
            rig.finish();
            List<BufferAccounting> dom1 = rig.consumer.summary.buffers().stream().filter(b -> b.domid() == 1).toList();
            assertEquals(2, dom1.size(), "one record per vCPU: " + dom1);
            BufferAccounting v0 = dom1.stream().filter(b -> b.vcpu() == 0).findFirst().orElseThrow();
            assertEquals(new Accounting(2, 2, 0, 0, 0), v0.accounting());
            assertEquals(2, v0.kernelSamples());
            assertEquals(2, v0.drained());
            assertEquals(2, rig.consumer.samples());
        }
    }

    @Test
    void unbalancedBooksAreFlaggedInTheOutput() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.statistics = new XenoprofStatistics(10, 5, 0, 0, 0, 0, 0, 0);
            String out = rig.finish().output();
            assertTrue(out.contains("DOES NOT BALANCE"), out);
        }
    }

    @Test
    void groundTruthRestartsWhenThePrimaryStartsSampling() {
        try (Rig rig = new Rig()) {
            Rig.ok(rig.op(0, "--start-daemon"));
            assertEquals(0, rig.host.groundTruthResets);
            Rig.ok(rig.op(0, "--start"));
            assertEquals(1, rig.host.groundTruthResets);
        }
    }

    @Test
    void aHostThatStopsEndsTheSessionWithItsReasonAndKeepsWhatWasCollected() throws Exception {
        try (Rig rig = new Rig().profiling()) {
            rig.xen.buffer(0, 0).sample(K, 1, 0);
            rig.xen.buffer(1, 0).sample(K + 1, 1, 0);
            rig.host.stop("bundle org.hyperprof.pmu.p6 departed");
            assertTrue(rig.consumer.awaitEnd());
            assertEquals("bundle org.hyperprof.pmu.p6 departed", rig.consumer.summary.endReason());
            assertEquals(2, rig.consumer.samples(), "samples still in the buffers are drained at the end");
            assertEquals(rig.consumer.summary, rig.profiler.lastSummary().orElseThrow());
            assertFalse(rig.op(0, "--status").ok());
        }
    }

    @Test
    void loadingAnotherHostEndsTheSessionOfTheOldOne() throws Exception {
        FakeHost first = new FakeHost();
        FakeHost second = new FakeHost();
        AtomicReference<Host> current = new AtomicReference<>(first);
        HostService service = new HostService() {
            @Override
            public List<String> scenarios() {
                return List.of();
            }

            @Override
            public Host load(String scenario, String cpuTypeOverride) {
                return current.get();
            }

            @Override
            public Optional<Host> current() {
                return Optional.of(current.get());
            }
        };
        ProfilerImpl p = new ProfilerImpl(service, 64, 8, Duration.ofSeconds(5));
        RecordingConsumer c = new RecordingConsumer();
        p.addConsumer("rec", c);
        try {
            Rig.ok(p.opcontrol(0, List.of("--start-daemon")));
            current.set(second);
            Rig.ok(p.opcontrol(0, List.of("--status")));
            assertTrue(c.awaitEnd());
            assertEquals("host fake-host was replaced by fake-host", c.summary.endReason());
            assertTrue(first.listeners.isEmpty(), "the old host is no longer listened to");
            assertEquals(1, second.listeners.size());
        } finally {
            p.deactivate();
        }
    }

    @Test
    void consumersAreListedByTheirServiceName() {
        try (Rig rig = new Rig()) {
            rig.profiler.bindConsumer(new RecordingConsumer(), Map.of(SampleConsumer.NAME, "opreport"));
            assertEquals(List.of("opreport", "rec"), rig.profiler.consumers());
            assertTrue(rig.profiler.removeConsumer("rec"));
            assertEquals(List.of("opreport"), rig.profiler.consumers());
        }
    }

    @Test
    void consumersThatLeaveOrArriveMidSessionArePrintedWithBooksThatBalanceAndTheSessionGoesOn() throws Exception {
        try (Rig rig = new Rig(new FakeHost(), 1).profiling()) {
            RecordingConsumer leaves = new RecordingConsumer();
            rig.profiler.addConsumer("leaves", leaves);
            FakeSharedBuffer b = rig.xen.buffer(0, 0);
            b.sample(K, 1, 0);
            b.sample(K + 0x10, 1, 0);
            rig.xen.virq(0, 0);
            assertTrue(OpcontrolSequenceTest.waitFor(() -> leaves.samples() == 2));
            assertTrue(rig.profiler.removeConsumer("leaves"));
            RecordingConsumer late = new RecordingConsumer();
            rig.profiler.addConsumer("late", late);
            for (int i = 0; i < 3; i++) {
                b.sample(K + 0x110, 1, 0);
            }
            rig.xen.virq(0, 0);
            List<String> out = RealHost.lines(rig.finish().output());
            assertTrue(out.contains("  samples taken 5 = delivered 5 + lost 0 + dropped 0 + invalid 0"), out.toString());
            assertTrue(out.contains("  consumer leaves: received 2, missed 3 (left mid-session; the samples of the"
                    + " session after it left are counted as missed)"), out.toString());
            assertTrue(out.contains("  consumer late: received 3, missed 2 (arrived mid-session; the 2 samples"
                    + " published before it arrived are counted as missed)"), out.toString());
            assertTrue(out.contains("  consumer rec: received 5, missed 0"), out.toString());
            assertEquals(5, rig.consumer.samples(), "the session went on for the consumer that stayed");
            assertTrue(late.awaitEnd());
        }
    }

    // ------------------------------------------------------------ one-shot profile

    /** A workload that logs kernel samples into every buffer and raises each vCPU's VIRQ. */
    private static void sampleEveryVcpu(FakeHost h, long micros) {
        for (var e : h.xenoprof.buffers.entrySet()) {
            for (FakeSharedBuffer b : e.getValue()) {
                b.sample(K + 0x10, 1, 0);
                b.sample(K + 0x110, 1, 0);
                if (h.xenoprof.handlers.containsKey(e.getKey())) {
                    h.xenoprof.virq(e.getKey(), b.vcpuId());
                }
            }
        }
    }

    @Test
    void aOneShotProfileTakesTheDocumentedStepsInTheDocumentedOrder() throws Exception {
        try (Rig rig = new Rig()) {
            rig.host.workload = SessionTest::sampleEveryVcpu;
            List<Long> progress = new ArrayList<>();
            SessionSummary s = rig.profiler.profile(new ProfileRequest(List.of("CPU_CLK_UNHALTED:6000"), 200_000,
                    List.of()), (done, total, samples) -> progress.add(done));
            List<String> order = new ArrayList<>();
            for (String c : rig.xen.hypercalls()) {
                if (c.matches("\\d:(init|set_active.*|enable_virq|start|stop|disable_virq|release_counters)")) {
                    order.add(c);
                }
            }
            assertEquals(List.of("0:init", "0:set_active(0)", "0:set_active(1)", "0:enable_virq", "1:init",
                    "1:enable_virq", "0:start", "0:stop", "1:disable_virq", "0:disable_virq", "0:release_counters"),
                    order, "domUs are stopped and shut down before dom0");
            assertTrue(rig.xen.hypercalls().contains("0:counter(0,event=0x79,count=6000,um=0x0,k=1,u=1)"));
            assertEquals(List.of(200_000L), progress);
            assertTrue(rig.consumer.awaitEnd());
            assertEquals(6, rig.consumer.samples(), "two samples in each of three vCPU buffers");
            assertSame(s, rig.consumer.summary);
            assertEquals(SessionSummary.COMPLETED, s.endReason());
            assertEquals(200_000L * 2800, s.simulatedCycles());
        }
    }

    @Test
    void aOneShotProfileOfChosenDomainsListsOnlyThose() throws Exception {
        try (Rig rig = new Rig()) {
            rig.profiler.profile(new ProfileRequest(List.of(), 1000, List.of(0)), ProgressListener.NONE);
            assertEquals(List.of(), rig.xen.callsBy(1));
            assertTrue(rig.xen.callsBy(0).contains("set_active(0)"));
        }
    }

    @Test
    void aHostThatStopsDuringAOneShotProfileEndsItWithTheReasonAndKeepsTheSamples() throws Exception {
        try (Rig rig = new Rig()) {
            rig.host.workload = (h, micros) -> {
                sampleEveryVcpu(h, micros);
                h.stop("bundle org.hyperprof.pmu.p6 departed");
                throw new HostStoppedException("bundle org.hyperprof.pmu.p6 departed");
            };
            SessionSummary s = rig.profiler.profile(new ProfileRequest(List.of(), 1000, List.of()), ProgressListener.NONE);
            assertEquals("bundle org.hyperprof.pmu.p6 departed", s.endReason());
            assertTrue(rig.consumer.awaitEnd());
            assertEquals(6, rig.consumer.samples());
        }
    }

    @Test
    void aMisstepInAOneShotProfileThrowsWithTheExplanationAndShutsDownWhatStarted() throws Exception {
        try (Rig rig = new Rig()) {
            rig.xen.fail(1, XenoprofOp.ENABLE_VIRQ, Errno.EPERM.ret());
            ProfileException e = assertThrows(ProfileException.class, () -> rig.profiler.profile(
                    new ProfileRequest(List.of(), 1000, List.of()), ProgressListener.NONE));
            assertTrue(e.getMessage().contains("-1 (EPERM, Operation not permitted)"), e.getMessage());
            assertTrue(e.getMessage().contains("EXPLAIN XENOPROF_enable_virq by domain 1"), e.getMessage());
            assertTrue(rig.xen.callsBy(0).contains("release_counters"), "the primary was shut down again");
            assertTrue(rig.consumer.awaitEnd());
        }
    }

    @Test
    void aOneShotProfileNeedsAHostAndNoOpcontrolSessionInTheWay() {
        ProfilerImpl none = new ProfilerImpl(new NoHost());
        ProfileException e = assertThrows(ProfileException.class,
                () -> none.profile(new ProfileRequest(List.of(), 1000, List.of()), ProgressListener.NONE));
        assertTrue(e.getMessage().contains("hp:load"), e.getMessage());
        none.deactivate();
        try (Rig rig = new Rig()) {
            Rig.ok(rig.op(0, "--start-daemon"));
            ProfileException busy = assertThrows(ProfileException.class,
                    () -> rig.profiler.profile(new ProfileRequest(List.of(), 1000, List.of()), ProgressListener.NONE));
            assertTrue(busy.getMessage().contains("Daemons already run in domains [0]"), busy.getMessage());
            ProfileException bad = assertThrows(ProfileException.class,
                    () -> rig.profiler.profile(new ProfileRequest(List.of(), 0, List.of()), ProgressListener.NONE));
            assertTrue(bad.getMessage().contains("give 1 to 3600000000 simulated microseconds"), bad.getMessage());
        }
    }
}
