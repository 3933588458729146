package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.Sessions;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Guests with their own profilers: their rings are drained by the same reader, resolved through
 * the same resolvers, and published to the same consumers in a session of source
 * {@code guest profiler}, with books that balance; without system-wide profiling no Xenoprof step
 * is taken at all.
 */
class GuestProfilerTest {

    private static final long K = FakeHost.KERNEL;
    private static final long M = FakeHost.MODULE;
    private static final long U = FakeHost.USER;

    private final FakeHost host = FakeHost.withGuests();
    private final Sessions consumer = new Sessions();
    private final ProfilerImpl profiler = new ProfilerImpl(host.service(), 4, 64, Duration.ofSeconds(5));

    GuestProfilerTest() {
        profiler.addResolver("kallsyms", new FakeResolver());
        profiler.addConsumer("sessions", consumer);
        host.policy = "saverestore";
    }

    @AfterEach
    void stop() {
        profiler.deactivate();
    }

    private static ProfileRequest guestsOnly(long micros) {
        return new ProfileRequest(List.of(), micros, List.of(), List.of(), List.of(), 0, false);
    }

    private static void assertBalanced(Accounting a) {
        assertTrue(a.balanced(), a.line());
    }

    private static BufferAccounting ring(SessionSummary s, int domid, int vcpu) {
        return s.buffers().stream().filter(b -> b.domid() == domid && b.vcpu() == vcpu).findFirst().orElseThrow();
    }

    @Test
    void aGuestsOwnSamplesReachTheConsumersResolvedInASessionLabelledGuestProfiler() throws Exception {
        List<FakeSharedBuffer> rings = host.guestProfiler(2, 64, host.counter(0, "CPU_CLK_UNHALTED", 6000),
                host.counter(1, "INST_RETIRED", 8000));
        FakeSharedBuffer r = rings.get(0);
        r.sample(K + 0x20, 1, 0); // logged before the session: the restart discards it
        host.workload = (h, micros) -> {
            r.sample(K + 0x10, 1, 0);
            r.sample(U + 0x160, 0, 1);
            r.sample(M + 0x5, 1, 0);
            r.sample(K + 0x120, 1, 1);
            r.sample(0x10, 0, 0); // a user PC outside every mapping
        };
        SessionSummary s = profiler.profile(guestsOnly(1000), ProgressListener.NONE);

        SessionInfo info = consumer.bySource(GuestSession.SOURCE);
        assertEquals(s.sessionId(), info.sessionId(), "the summary returned is the guests' session's");
        assertEquals("fake-host", info.hostName());
        assertEquals(Map.of(2, "domU-pv"), info.domains());
        assertEquals(List.of(host.counter(0, "CPU_CLK_UNHALTED", 6000), host.counter(1, "INST_RETIRED", 8000)),
                info.counters());
        assertTrue(info.groundTruth());
        assertEquals(List.of(
                "2 0 1 0 0xffffffff80000010 vmlinux-2 netif_receive_skb",
                "2 0 0 1 0x400160 tcp_receiver recv_loop",
                "2 0 1 0 0xffffffff88000005 netback.ko net_tx_action",
                "2 0 1 1 0xffffffff80000120 vmlinux-2 br_handle_frame",
                "2 0 0 0 0x10 (unknown image) (no symbols)"), consumer.resolved(s.sessionId()));
        assertEquals(1, host.guestRestarts);
        assertEquals(1, host.guestEntriesDiscarded, "what was logged before the session is not in it");

        assertEquals(new Accounting(5, 5, 0, 0, 0), s.accounting());
        BufferAccounting b = ring(s, 2, 0);
        assertEquals(GuestSession.ROLE, b.role());
        assertEquals(new Accounting(5, 5, 0, 0, 0), b.accounting());
        assertEquals(2, b.userSamples());
        assertEquals(3, b.kernelSamples());
        assertEquals(5, b.drained());
        assertEquals(List.of(new org.hyperprof.api.sample.ConsumerAccounting("sessions", 5, 0, null)),
                s.consumers());
        assertEquals(1000L * 2800, s.simulatedCycles());
        assertSame(s, consumer.summaries.get(s.sessionId()));
        assertSame(s, profiler.lastSummary().orElseThrow());
        assertEquals(1, host.groundTruthResets, "the ground truth restarts when the guests' sampling does");
    }

    @Test
    void withoutSystemWideProfilingNoXenoprofStepIsTaken() throws Exception {
        FakeSharedBuffer r = host.guestProfiler(2, 64, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        host.workload = (h, micros) -> r.sample(K + 0x10, 1, 0);
        profiler.profile(guestsOnly(1000), ProgressListener.NONE);
        assertEquals(List.of(), host.xenoprof.calls, "no hypercall, no mapping, no VIRQ binding");
        assertEquals(0, host.xenoprof.statistics().totalSamples());
        assertEquals(List.of("started " + GuestSession.SOURCE, "ended " + GuestSession.SOURCE), consumer.events);
    }

    @Test
    void aRingThatFilledCountsItsLostSamplesAndTheBooksBalancePerRingAndForTheSession() throws Exception {
        // dom1 has two vCPUs: vCPU 0's ring of 8 slots (7 usable) gets 10 samples before any drain.
        List<FakeSharedBuffer> dom1 = host.guestProfiler(1, 8, host.counter(0, "CPU_CLK_UNHALTED", 6000));
        FakeSharedBuffer dom2 = host.guestProfiler(2, 8, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        host.workload = (h, micros) -> {
            for (int i = 0; i < 10; i++) {
                dom1.get(0).sample(K + 0x10, 1, 0);
            }
            dom1.get(1).sample(U + 0x160, 0, 0);
            dom2.sample(K + 0x120, 1, 0);
            dom2.sample(K + 0x120, 1, 0);
        };
        SessionSummary s = profiler.profile(guestsOnly(1000), ProgressListener.NONE);
        assertEquals(new Accounting(10, 7, 3, 0, 0), ring(s, 1, 0).accounting(), "a full ring loses the newest");
        assertEquals(new Accounting(1, 1, 0, 0, 0), ring(s, 1, 1).accounting());
        assertEquals(new Accounting(2, 2, 0, 0, 0), ring(s, 2, 0).accounting());
        assertEquals(new Accounting(13, 10, 3, 0, 0), s.accounting());
        for (BufferAccounting b : s.buffers()) {
            assertBalanced(b.accounting());
        }
        assertBalanced(s.accounting());
        assertEquals(10, consumer.resolved(s.sessionId()).size());
        assertEquals(Map.of(1, "domU-rcv", 2, "domU-pv"), consumer.infos.get(s.sessionId()).domains());
        assertTrue(s.notes().stream().anyMatch(n -> n.contains("domain 1 vcpu 0") && n.contains("3 sample(s)")
                && n.contains("ring full")), s.notes().toString());
    }

    @Test
    void progressReportsDrainTheRingsDuringTheRunSoASmallRingLosesNothing() throws Exception {
        FakeSharedBuffer r = host.guestProfiler(2, 8, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        List<Integer> seenAtProgress = new ArrayList<>();
        host.workload = (h, micros) -> {
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 6; i++) {
                    r.sample(K + 0x10, 1, 0);
                }
                h.progress.progress(round * 100, micros, 0);
            }
        };
        SessionSummary s = profiler.profile(guestsOnly(1000),
                (done, total, samples) -> seenAtProgress.add(r.tail()));
        assertEquals(new Accounting(30, 30, 0, 0, 0), s.accounting(), "30 samples through a 7-slot ring");
        assertEquals(0, r.lost);
        assertEquals(6, seenAtProgress.size(), "the caller's listener still hears every report");
        assertEquals(6, seenAtProgress.get(0), "the ring was drained before the caller heard of the progress");
    }

    @Test
    void aHostileGuestWritingItsHeadIsCountedInvalidAndHarmsOnlyItself() throws Exception {
        FakeSharedBuffer hostile = host.guestProfiler(2, 16, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        List<FakeSharedBuffer> fair = host.guestProfiler(1, 16, host.counter(0, "CPU_CLK_UNHALTED", 6000),
                host.counter(1, "INST_RETIRED", 6000));
        host.workload = (h, micros) -> {
            for (int i = 0; i < 4; i++) {
                hostile.sample(K + 0x10, 1, 0);
            }
            hostile.writeHead(123_456);
            // The host refuses 2 more samples into the scribbled ring and counts them only in guest.samples.
            h.counters.put(GuestSession.HOST_SAMPLES, 4L + 2 + 4);
            fair.get(0).sample(K + 0x10, 1, 1);
            fair.get(0).sample(U + 0x160, 0, 0);
            fair.get(0).sample(K + 0x10, 2, 0); // a guest's profiler never logs Xen mode
            fair.get(1).sample(K + 0x10, 1, 5); // nor a counter it did not program
            h.progress.progress(500, micros, 0);
        };
        SessionSummary s = assertDoesNotThrow(() -> profiler.profile(guestsOnly(1000), ProgressListener.NONE));
        assertEquals(new Accounting(6, 0, 0, 0, 6), ring(s, 2, 0).accounting(),
                "4 logged but unreachable, 2 refused by the host: all charged to the only scribbled ring");
        assertEquals(new Accounting(3, 2, 0, 0, 1), ring(s, 1, 0).accounting(), "the Xen-mode entry is invalid");
        assertEquals(new Accounting(1, 0, 0, 0, 1), ring(s, 1, 1).accounting(), "the unknown counter is invalid");
        assertEquals(new Accounting(10, 2, 0, 0, 8), s.accounting());
        assertEquals(10, s.accounting().taken(), "the host's count of samples the guests took");
        assertBalanced(s.accounting());
        assertEquals(List.of(
                "1 0 1 1 0xffffffff80000010 vmlinux netif_receive_skb",
                "1 0 0 0 0x400160 tcp_receiver recv_loop"), consumer.resolved(s.sessionId()));
        assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 2 vcpu 0") && n.contains("garbage")
                && n.contains("4 logged entr(ies) could not be reached")), s.notes().toString());
        assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 1 vcpu 0") && n.contains("mode")),
                s.notes().toString());
        assertEquals(3, s.hostCounters().get("guest-profiler.head.out-of-range"),
                "read once per drain: the workload's progress report, the run's last one, the session's end");
        assertEquals(123_456, hostile.head(), "the reader never writes the producer's index");
    }

    @Test
    void samplesTheHostCountsButNoRingShowsAreNotedWhenNoSingleRingExplainsThem() throws Exception {
        FakeSharedBuffer r = host.guestProfiler(2, 16, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        host.workload = (h, micros) -> {
            r.sample(K + 0x10, 1, 0);
            h.counters.put(GuestSession.HOST_SAMPLES, 3L);
        };
        SessionSummary s = profiler.profile(guestsOnly(1000), ProgressListener.NONE);
        assertEquals(new Accounting(1, 1, 0, 0, 0), s.accounting(), "nothing is charged without a culprit");
        assertTrue(s.notes().stream().anyMatch(n -> n.contains("the host counts 3 sample(s)")
                && n.contains("their rings show 1")), s.notes().toString());
    }

    private static <T> T assertDoesNotThrow(org.junit.jupiter.api.function.ThrowingSupplier<T> s) {
        return org.junit.jupiter.api.Assertions.assertDoesNotThrow(s);
    }

    @Test
    void withoutGuestProfilersAProfileWithoutSystemWideSaysWhatToDo() {
        ProfileException e = assertThrows(ProfileException.class,
                () -> profiler.profile(guestsOnly(1000), ProgressListener.NONE));
        assertTrue(e.getMessage().contains("'saverestore' gives guests the PMU, but no guest runs a profiler"),
                e.getMessage());
        assertTrue(e.getMessage().contains("'profiler' lines") && e.getMessage().contains("system-wide"),
                e.getMessage());
        assertEquals(List.of(), host.xenoprof.calls);
        assertTrue(consumer.infos.isEmpty(), "no session was started");

        host.policy = "systemwide";
        ProfileException sw = assertThrows(ProfileException.class,
                () -> profiler.profile(guestsOnly(1000), ProgressListener.NONE));
        assertTrue(sw.getMessage().contains("Xenoprof owns the PMU and guests have none"), sw.getMessage());
    }

    @Test
    void systemWideProfilingReturnsXenoprofsSummaryAndPublishesTheGuestsSessionBesideIt() throws Exception {
        FakeSharedBuffer guest = host.guestProfiler(2, 64, host.counter(1, "INST_RETIRED", 6000)).get(0);
        host.workload = (h, micros) -> {
            FakeSharedBuffer dom0 = h.xenoprof.buffer(0, 0);
            dom0.sample(K + 0x10, 1, 0);
            dom0.sample(K + 0x110, 1, 0);
            h.xenoprof.virq(0, 0);
            guest.sample(K + 0x120, 1, 1);
            h.progress.progress(500, micros, 0);
            guest.sample(U + 0x160, 0, 1);
        };
        SessionSummary s = profiler.profile(new ProfileRequest(List.of(), 1000, List.of(0)),
                ProgressListener.NONE);
        SessionInfo xen = consumer.bySource("simulator");
        SessionInfo guests = consumer.bySource(GuestSession.SOURCE);
        assertEquals(xen.sessionId(), s.sessionId(), "the summary returned stays Xenoprof's");
        assertNotEquals(xen.sessionId(), guests.sessionId());
        assertFalse(host.xenoprof.hypercalls().isEmpty());
        assertEquals(List.of("0 0 1 0 0xffffffff80000010 vmlinux netif_receive_skb",
                "0 0 1 0 0xffffffff80000110 vmlinux br_handle_frame"), consumer.resolved(xen.sessionId()));
        assertEquals(List.of("2 0 1 1 0xffffffff80000120 vmlinux-2 br_handle_frame",
                "2 0 0 1 0x400160 tcp_receiver recv_loop"), consumer.resolved(guests.sessionId()),
                "each session has only its own samples");
        SessionSummary g = consumer.summaries.get(guests.sessionId());
        assertEquals(new Accounting(2, 2, 0, 0, 0), g.accounting());
        assertEquals(List.of(host.counter(1, "INST_RETIRED", 6000)), guests.counters());
        assertEquals(List.of("started simulator", "started " + GuestSession.SOURCE, "ended "
                + GuestSession.SOURCE, "ended simulator"), consumer.events);
        assertSame(consumer.summaries.get(xen.sessionId()), profiler.lastSummary().orElseThrow());
        assertEquals(1, host.guestRestarts);
    }

    @Test
    void guestsProgrammingTheSameCounterDifferentlyGetTheUnionWithANote() throws Exception {
        host.guestProfiler(1, 16, host.counter(0, "CPU_CLK_UNHALTED", 6000));
        host.guestProfiler(2, 16, host.counter(0, "INST_RETIRED", 6000), host.counter(1, "CPU_CLK_UNHALTED", 9000));
        SessionSummary s = profiler.profile(guestsOnly(1000), ProgressListener.NONE);
        assertEquals(List.of(host.counter(0, "CPU_CLK_UNHALTED", 6000), host.counter(1, "CPU_CLK_UNHALTED", 9000)),
                consumer.infos.get(s.sessionId()).counters(), "by counter number, the lowest domain's first");
        assertTrue(s.notes().stream().anyMatch(n -> n.contains("counter 0 differently") && n.contains("domain 2")
                && n.contains("INST_RETIRED")), s.notes().toString());
    }

    @Test
    void drainingAGuestsRingAllocatesNothingPerSample() throws Exception {
        ProfilerImpl big = new ProfilerImpl(host.service(), 1 << 20, 8, Duration.ofSeconds(5));
        big.addResolver("kallsyms", new FakeResolver());
        FakeSharedBuffer r = host.guestProfiler(2, 64, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        long[] pcs = {K + 0x10, K + 0x120, M, U + 0x160, 0x10};
        int rounds = 2000;
        int perRound = 60;
        long[] allocated = {0};
        host.workload = (h, micros) -> {
            for (int warm = 0; warm < 200; warm++) {
                fill(r, pcs, perRound);
                h.progress.progress(0, micros, 0);
            }
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int round = 0; round < rounds; round++) {
                fill(r, pcs, perRound);
                h.progress.progress(0, micros, 0);
            }
            allocated[0] = mx.getThreadAllocatedBytes(tid) - before;
        };
        try {
            SessionSummary s = big.profile(guestsOnly(1000), ProgressListener.NONE);
            long samples = (long) rounds * perRound;
            assertEquals(0, r.lost);
            assertEquals((200L + rounds) * perRound, s.accounting().delivered());
            assertTrue(allocated[0] < samples / 4, allocated[0] + " bytes allocated for " + samples + " samples");
        } finally {
            big.deactivate();
        }
    }

    private static void fill(FakeSharedBuffer b, long[] pcs, int n) {
        for (int i = 0; i < n; i++) {
            long pc = pcs[i % pcs.length];
            b.sample(pc, pc < 0 ? 1 : 0, 0); // kernel and module PCs are in the top half
        }
    }

    @Test
    void theProfilerStoppingMidRunEndsTheGuestsSessionOnceAndTheProfileStillReturns() throws Exception {
        FakeSharedBuffer r = host.guestProfiler(2, 64, host.counter(0, "CPU_CLK_UNHALTED", 6000)).get(0);
        host.workload = (h, micros) -> {
            r.sample(K + 0x10, 1, 0);
            profiler.deactivate();
            r.sample(K + 0x10, 1, 0);
            h.progress.progress(500, micros, 0);
        };
        SessionSummary s = profiler.profile(guestsOnly(1000), ProgressListener.NONE);
        assertTrue(s.endReason().contains("the profiler stopped"), s.endReason());
        assertEquals(1, consumer.summaries.size());
        assertEquals(List.of("started " + GuestSession.SOURCE, "ended " + GuestSession.SOURCE), consumer.events);
    }
}
