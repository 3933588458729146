package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.host.StopAtFirstReport;
import org.junit.jupiter.api.Test;

/**
 * The real hypervisor on the multi-domain scenario: domains destroyed or paused from another thread
 * while the machine runs, a held daemon, and the one-shot profile with passive domains and call
 * traces.
 */
class RealHostLifecycleTest {

    /** Runs the host on a thread of its own and calls {@code midway} on this thread once a third has run. */
    private static void runWith(RealHost h, long micros, Runnable midway) throws Exception {
        CountDownLatch third = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                h.host.run(micros, (done, total, samples) -> {
                    if (done * 3 >= total) {
                        third.countDown();
                    }
                });
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                third.countDown();
            }
        }, "simulation");
        runner.start();
        assertTrue(third.await(60, TimeUnit.SECONDS));
        midway.run();
        runner.join(60_000);
        if (failure.get() != null) {
            throw new AssertionError("the run failed", failure.get());
        }
    }

    private static void assertBalanced(SessionSummary s) {
        assertTrue(s.accounting().balanced(), s.accounting().line());
        assertTrue(s.hypervisor().balanced());
        for (BufferAccounting b : s.buffers()) {
            assertTrue(b.accounting().balanced(), b.toString());
        }
        long delivered = s.buffers().stream().mapToLong(b -> b.accounting().delivered()).sum();
        assertEquals(s.accounting().delivered(), delivered, "every delivered sample sits in a tracked buffer");
    }

    private static long undrained(SessionSummary s, int domid) {
        return s.buffers().stream().filter(b -> b.domid() == domid).mapToLong(BufferAccounting::undrained).sum();
    }

    @Test
    void domainsDestroyedFromAnotherThreadWhileRunningStopCleanlyAndTheOthersGoOn() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            Rig.ok(h.op(0, "--start-daemon", "--active-domains=0,1,4", "--passive-domains=2,3", "--callgraph=4"));
            Rig.ok(h.op(1, "--start-daemon"));
            Rig.ok(h.op(4, "--start-daemon"));
            Rig.ok(h.op(0, "--start"));
            runWith(h, 60_000, () -> {
                h.host.destroyDomain(1);
                h.host.destroyDomain(2);
            });
            Map<Integer, Long> before = h.receivedByDomain();
            h.run(10_000);
            Rig.ok(h.op(0, "--stop"));
            Rig.ok(h.op(4, "--shutdown"));
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary s = h.sessions.last();
            assertBalanced(s);
            Map<Integer, Long> received = h.receivedByDomain();
            assertTrue(received.getOrDefault(1, 0L) > 0 && received.getOrDefault(2, 0L) > 0,
                    "what was drained before the destruction is kept: " + received);
            assertTrue(received.get(0) > before.getOrDefault(0, 0L) && received.get(4) > before.getOrDefault(4, 0L),
                    "the other domains went on: " + before + " then " + received);
            assertEquals(s.hostCounters().get("xenoprof.destroyed.undrained"), undrained(s, 1) + undrained(s, 2),
                    "what the destroyed domains left unread is what Xen counted when it freed their buffers");
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 1 (web-pv) was destroyed during the"
                    + " session: its daemon stopped with it")), s.notes().toString());
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("passive domain 2 (db-pv) was destroyed during the"
                    + " session")), s.notes().toString());
            assertEquals(DomainState.DESTROYED, h.host.domainState(1));
        }
    }

    /**
     * Domains destroyed in the middle of a quantum, at a step fixed by the scenario: the request,
     * made while the run holds the machine, reaches it at the next safe point, and until then the
     * domains run and sample. Their daemon and the primary see the destroy only once Xen has freed
     * the buffers, so what they fix as undrained is exactly what Xen counted then.
     */
    @Test
    void domainsDestroyedInTheMiddleOfAQuantumLeaveUndrainedExactlyWhatXenCountedWhenItFreedThem() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            Rig.ok(h.op(0, "--start-daemon", "--active-domains=0,1,4", "--passive-domains=2,3"));
            Rig.ok(h.op(1, "--start-daemon"));
            Rig.ok(h.op(4, "--start-daemon"));
            Rig.ok(h.op(0, "--start"));
            // Domain 4's VIRQ is then the test's (its daemon reads nothing more), and its first one
            // asks, from another thread as the shell would, for domains 1 and 2 to be destroyed.
            List<DomainState> seenInTheQuantum = new java.util.ArrayList<>();
            h.host.xenoprof().bindVirq(4, vcpu -> {
                if (seenInTheQuantum.isEmpty()) {
                    Thread shell = new Thread(() -> {
                        h.host.destroyDomain(1);
                        h.host.destroyDomain(2);
                    }, "shell");
                    shell.start();
                    try {
                        shell.join(60_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    seenInTheQuantum.add(h.host.domainState(1));
                    seenInTheQuantum.add(h.host.domainState(2));
                }
            });
            h.run(30_000);
            assertEquals(List.of(DomainState.RUNNING, DomainState.RUNNING), seenInTheQuantum,
                    "until the safe point the domains run on, as the machine has them");
            Rig.ok(h.op(0, "--stop"));
            Rig.ok(h.op(4, "--shutdown"));
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary s = h.sessions.last();
            assertBalanced(s);
            assertTrue(undrained(s, 1) + undrained(s, 2) > 0, "the domains left entries unread");
            assertEquals(s.hostCounters().get("xenoprof.destroyed.undrained"), undrained(s, 1) + undrained(s, 2),
                    "what the destroyed domains left unread is what Xen counted when it freed their buffers");
            assertEquals(DomainState.DESTROYED, h.host.domainState(1));
            assertEquals(DomainState.DESTROYED, h.host.domainState(2));
        }
    }

    @Test
    void aGuestPausedMidRunFillsItsRingAndTheSummarySaysSo() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            Rig.ok(h.op(0, "--start-daemon", "--active-domains=0,1", "--passive-domains=3"));
            Rig.ok(h.op(1, "--start-daemon"));
            Rig.ok(h.op(0, "--start"));
            runWith(h, 30_000, () -> {
                h.host.pauseDomain(1);
                h.host.pauseDomain(3);
            });
            Rig.ok(h.op(0, "--stop"));
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary s = h.sessions.last();
            assertBalanced(s);
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 1 was paused during the session")),
                    s.notes().toString());
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 3 was paused during the session")
                    && n.contains("as a passive domain its buffers stayed readable by the primary")), s.notes().toString());
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 1 (web-pv) was paused when the session"
                    + " ended")), s.notes().toString());
            assertEquals(0, undrained(s, 3), "the primary drained the paused passive domain's buffers");
            assertEquals(2L, s.hostCounters().get("domains.paused"), "two pauses during the session");
        }
    }

    @Test
    void aHeldGuestDaemonLetsItsRingsFillSoXenCountsLostSamples() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI).profiling()) {
            Rig.ok(h.op(1, "--hold"));
            h.run(20_000);
            Rig.ok(h.op(0, "--stop"));
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary s = h.sessions.last();
            assertBalanced(s);
            List<BufferAccounting> dom1 = s.buffers().stream().filter(b -> b.domid() == 1).toList();
            for (BufferAccounting b : dom1) {
                assertEquals(15, b.undrained(), "a full 16-slot ring: " + b);
                assertTrue(b.accounting().lost() > 0, b.toString());
                assertEquals(0, b.drained());
            }
            assertTrue(s.accounting().lost() >= dom1.stream().mapToLong(b -> b.accounting().lost()).sum());
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("the daemon of domain 1 (web-pv) was held")),
                    s.notes().toString());
            assertEquals(0, h.receivedByDomain().getOrDefault(1, 0L));
        }
    }

    @Test
    void whatAHeldDaemonLeftInItsRingIsTheEndedSessionsAndNeverReachesTheNextOne() throws Exception {
        // Found by MultiDomainPropertyTest (seed 7864488669608579795): the entries domain 1's held
        // daemon left were counted undrained in the first session, and its release delivered them
        // into the second, which then held more samples of that buffer than Xen wrote for it.
        try (RealHost h = new RealHost(RealHost.MULTI).profiling()) {
            h.run(500);
            Rig.ok(h.op(1, "--hold"));
            h.run(20_000);
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary first = h.sessions.last();
            long left = first.buffers().stream().filter(b -> b.domid() == 1).mapToLong(BufferAccounting::undrained)
                    .sum();
            assertTrue(left > 0, "the held daemon left entries in its ring: " + first.buffers());
            Rig.ok(h.op(0, "--start-daemon"));
            Rig.ok(h.op(0, "--start"));
            Rig.ok(h.op(1, "--release"));
            h.run(2_000);
            Rig.ok(h.op(0, "--shutdown"));
            SessionSummary second = h.sessions.last();
            assertTrue(second.sessionId() != first.sessionId());
            assertBalanced(second);
            for (BufferAccounting b : second.buffers()) {
                if (b.domid() == 1) {
                    assertEquals(0, b.drained(), "the earlier session's entries are passed over: " + b);
                    assertEquals(0, b.undrained(), b.toString());
                }
            }
            assertEquals(0, h.receivedByDomain().getOrDefault(1, 0L),
                    "domain 1 is not profiled in the second session, and its old entries are not delivered there");
        }
    }

    @Test
    void aOneShotProfileWithPassiveDomainsAndCallTracesAttributesEveryDomainItsOwnWay() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 60_000, List.of(), List.of(2, 3),
                    List.of("vmlinux-syms-2.6.18-53.el5xen"), 6), ProgressListener.NONE);
            assertBalanced(s);
            assertEquals(SessionSummary.COMPLETED, s.endReason());
            assertEquals(List.of("active", "passive"), s.buffers().stream().map(BufferAccounting::role).distinct()
                    .sorted().toList());
            SessionDictionary d = h.sessions.infos.get(s.sessionId()).dictionary();
            boolean dom3Apps = false;
            boolean dom2Kernel = false;
            long chained = 0;
            for (SampleBatch b : h.sessions.batches.get(s.sessionId())) {
                for (int i = 0; i < b.size; i++) {
                    assertEquals(b.domain[i], d.imageDomain(b.image[i]), "a sample's image is its own domain's");
                    String image = d.imageName(b.image[i]);
                    dom3Apps |= b.domain[i] == 3 && image.equals("domain3-apps");
                    dom2Kernel |= b.domain[i] == 2 && image.equals("vmlinux-syms-2.6.18-53.el5xen")
                            && b.symbol[i] != SessionDictionary.NO_SYMBOL;
                    if (b.domain[i] == 2 || b.domain[i] == 3) {
                        assertTrue(image.startsWith("domain" + b.domain[i] + "-") || image.equals(
                                "vmlinux-syms-2.6.18-53.el5xen"), "passive image " + image);
                    }
                    chained += b.chainLength(i);
                    assertTrue(b.chainLength(i) <= 6);
                }
            }
            assertTrue(dom3Apps && dom2Kernel, "passive HVM userland coarse, passive PV kernel symbolised");
            assertTrue(chained > 0, "call traces reached the consumers");
            assertTrue(h.receivedByDomain().containsKey(4), "by default every PV domain not passive is active");
        }
    }

    @Test
    void anUnlistedDomainHasABooksLineOfItsOwnWithWhatXenDroppedOfIt() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 30_000, List.of(0, 1), List.of(2, 3),
                    List.of(), 0), ProgressListener.NONE);
            long dropped = s.accounting().dropped() - s.hypervisor().idleSamples();
            assertTrue(dropped > 0, "batch-pv ran: " + s.accounting().line());
            List<String> unlisted = s.notes().stream().filter(n -> n.contains("unlisted")).toList();
            assertEquals(List.of("batch-pv (domain 4, unlisted): samples taken " + dropped + " = delivered 0 + lost 0"
                    + " + dropped " + dropped + " + invalid 0 (Xen drops the samples of a domain in neither list)"),
                    unlisted, "its books are what the session dropped besides the idle domain's");
        }
    }

    @Test
    void aOneShotProfileDuringWhichAGuestIsDestroyedEndsNormallyAndNotesIt() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            ProgressListener destroyAtAThird = (done, total, samples) -> {
                if (done * 3 >= total && h.host.domainState(4) != DomainState.DESTROYED) {
                    h.host.destroyDomain(4);
                }
            };
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 30_000, List.of(0, 1, 4), List.of(2),
                    List.of(), 0), destroyAtAThird);
            assertBalanced(s);
            assertEquals(SessionSummary.COMPLETED, s.endReason());
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("domain 4 (batch-pv) was destroyed during the"
                    + " session")), s.notes().toString());
            assertTrue(h.receivedByDomain().get(4) > 0, "what domain 4 drained before it went is kept");
            assertTrue(h.profiler.opcontrol(1, List.of("--status")).output().contains("daemon:  not running"),
                    "the profile shut the surviving guests down");
        }
    }
    @Test
    void aOneShotProfileStoppedOnRequestEndsItsSessionWithTheSamplesTakenBooksExactAndANote() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            // Ctrl-C as the run reports progress for the first time.
            StopAtFirstReport ctrlCAtFirstReport = new StopAtFirstReport();
            List<Long> reports = ctrlCAtFirstReport.reports;
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 200_000, List.of(0, 1, 4), List.of(2),
                    List.of(), 4), ctrlCAtFirstReport);
            assertBalanced(s);
            assertEquals(SessionSummary.COMPLETED, s.endReason(), "the session ended the usual way");
            assertTrue(s.accounting().taken() > 0, "the samples taken before the stop are kept");
            long received = h.receivedByDomain().values().stream().mapToLong(Long::longValue).sum();
            assertEquals(s.accounting().delivered(), received, "the consumers got every delivered sample");
            String ran = String.format(java.util.Locale.ROOT, "%.3f", reports.get(0) / 1000.0);
            assertTrue(s.notes().contains("the run was stopped early on request after " + ran + " of 200 ms simulated;"
                    + " the samples taken until then are kept and counted"), s.notes().toString());
            assertTrue(h.profiler.opcontrol(1, List.of("--status")).output().contains("daemon:  not running"),
                    "the profile shut the guests down");
        }
    }

    @Test
    void aOneShotProfileLongerThanAnHourIsRefusedBeforeAnyStep() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            org.hyperprof.api.profiler.ProfileException e = org.junit.jupiter.api.Assertions.assertThrows(
                    org.hyperprof.api.profiler.ProfileException.class, () -> h.profiler.profile(new ProfileRequest(
                            List.of(), Host.MAX_RUN_MICROS + 1, List.of()), ProgressListener.NONE));
            assertTrue(e.getMessage().contains("give 1 to 3600000000 simulated microseconds"), e.getMessage());
            assertTrue(h.profiler.opcontrol(0, List.of("--status")).output().contains("daemon:  not running"));
        }
    }
}
