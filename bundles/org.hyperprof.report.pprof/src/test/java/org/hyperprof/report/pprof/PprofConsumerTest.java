package org.hyperprof.report.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.pprof.proto.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The consumer's life: sessions kept, which one a request names, bad requests, and how files are written. */
class PprofConsumerTest {

    @TempDir
    Path dir;

    private static PprofConsumer withSessions(int kept, long... ids) {
        PprofConsumer pprof = new PprofConsumer(kept, 1000, 1000, () -> 0L);
        for (long id : ids) {
            NetworkProfile net = new NetworkProfile(id);
            pprof.sessionStarted(net.info);
            pprof.samples(net.batch(0));
            pprof.sessionEnded(net.summary());
        }
        return pprof;
    }

    @Test
    void formatsNamePprofWithADescription() {
        List<String> formats = new PprofConsumer().formats();
        assertEquals(1, formats.size());
        assertTrue(formats.get(0).startsWith("pprof: "), formats.get(0));
    }

    @Test
    void keepsTheLastSessionsOldestFirst() {
        assertEquals(List.of(3L, 4L, 5L), withSessions(3, 1, 2, 3, 4, 5).sessions());
    }

    @Test
    void latestIsTheNewestSession() throws Exception {
        PprofConsumer pprof = withSessions(4, 1, 2);
        Profile p = Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("l.pb.gz")));
        assertTrue(Profiles.comments(p).get(0).startsWith("Hyperprof session 2 "), Profiles.comments(p).get(0));
    }

    @Test
    void anOlderKeptSessionCanBeWritten() throws Exception {
        PprofConsumer pprof = withSessions(4, 1, 2);
        Profile p = Profiles.read(Profiles.write(pprof, new ReportRequest(1, ReportRequest.ALL_DOMAINS, Set.of()), "pprof",
                dir.resolve("1.pb.gz")));
        assertTrue(Profiles.comments(p).get(0).startsWith("Hyperprof session 1 "));
    }

    @Test
    void aSessionNotKeptIsATypedErrorListingTheKeptOnes() {
        ReportException e = assertThrows(ReportException.class, () -> withSessions(2, 1, 2, 3)
                .content(new ReportRequest(1, ReportRequest.ALL_DOMAINS, Set.of()), "pprof"));
        assertEquals("pprof has no session 1; the sessions it keeps are 2, 3 (the last 2 at most);"
                + " ask for one of them or for the latest", e.getMessage());
    }

    @Test
    void noSessionYetSaysToProfileFirstAndTouchesNoFile() {
        Path target = dir.resolve("x.pb.gz");
        ReportException e = assertThrows(ReportException.class,
                () -> Profiles.write(new PprofConsumer(), ReportRequest.latest(), "pprof", target));
        assertTrue(e.getMessage().startsWith("pprof has no session yet; run a profile first"), e.getMessage());
        assertFalse(Files.exists(target));
    }

    @Test
    void anUnknownFormatIsATypedErrorNamingTheFormat() {
        ReportException e = assertThrows(ReportException.class,
                () -> withSessions(1, 1).content(ReportRequest.latest(), "folded"));
        assertTrue(e.getMessage().startsWith("pprof writes the format 'pprof' only, not 'folded'"), e.getMessage());
    }

    @Test
    void optionsOtherThanTheReportFiltersAreRefusedListingThem() {
        ReportException e = assertThrows(ReportException.class, () -> withSessions(1, 1)
                .content(new ReportRequest(ReportRequest.LATEST, ReportRequest.ALL_DOMAINS, Set.of("symbols")),
                        "pprof"));
        assertTrue(e.getMessage().startsWith("unknown pprof option 'symbols'; the options are: image=REGEX: "),
                e.getMessage());
    }

    private static Profile filtered(Path file, String... options) throws Exception {
        return Profiles.read(Profiles.write(withSessions(1, 1), new ReportRequest(ReportRequest.LATEST,
                ReportRequest.ALL_DOMAINS, Set.of(options)), "pprof", file));
    }

    @Test
    void theFiltersKeepTheSamplesWhoseOwnFrameAndVcpuTheyMatchWithTheirCallers(@TempDir Path dir)
            throws Exception {
        // gnttab_copy, also in xen-syms, ran on vCPU 1
        Profile p = filtered(dir.resolve("xen.pb.gz"), "image=^xen-syms$", "vcpu=0");
        assertEquals(Map.of("find_domain_by_id", 40L), Profiles.flat(p, "samples"));
        assertTrue(p.getSampleList().stream().anyMatch(s -> Profiles.stack(p, s)
                .equals(List.of("find_domain_by_id", "do_grant_table_op"))));
        assertTrue(Profiles.comments(p).contains("only the samples whose own frame passes the filter"
                + " image=^xen-syms$, vcpu=0; their callers are kept whatever their names"), Profiles.comments(p)
                .toString());
    }

    @Test
    void excludedSymbolsLeaveTheProfile(@TempDir Path dir) throws Exception {
        Profile p = filtered(dir.resolve("ex.pb.gz"), "exclude=^(find_domain_by_id|tcp_v4_rcv|main)$");
        assertEquals(Set.of("gnttab_copy", "e1000_intr", "netif_rx", "vmlinux-xen0 (no symbols)"),
                Profiles.flat(p, "samples").keySet());
        assertEquals(70, Profiles.total(p, "samples"));
    }

    @Test
    void anUnknownDomainIsATypedErrorListingTheSessionsDomains() {
        ReportException e = assertThrows(ReportException.class, () -> withSessions(1, 1)
                .content(new ReportRequest(1, 9, Set.of()), "pprof"));
        assertEquals("session 1 has no domain 9; its domains are {0=Domain-0, 1=domU-rcv}"
                + " (ask for one of them, or for all domains)", e.getMessage());
    }

    @Test
    void aMissingRequestIsATypedError() {
        assertThrows(ReportException.class, () -> withSessions(1, 1).content(null, "pprof"));
    }

    @Test
    void aRefusedRequestLeavesAnExistingFileUntouched() throws Exception {
        Path target = Files.writeString(dir.resolve("keep.pb.gz"), "old");
        assertThrows(ReportException.class, () -> Profiles.write(withSessions(1, 1),
                new ReportRequest(7, ReportRequest.ALL_DOMAINS, Set.of()), "pprof", target));
        assertEquals("old", Files.readString(target));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("keep.pb.gz"), files.map(f -> f.getFileName().toString()).toList());
        }
    }

    @Test
    void rewritingReplacesTheFile() throws Exception {
        Path target = dir.resolve("p.pb.gz");
        Files.writeString(target, "old");
        Profiles.write(withSessions(1, 1), ReportRequest.latest(), "pprof", target);
        assertEquals(150, Profiles.total(Profiles.read(target), "samples"));
    }

    @Test
    void batchesForASessionItDoesNotKeepAreCountedAsStrays() throws Exception {
        PprofConsumer pprof = withSessions(1, 1);
        pprof.samples(new NetworkProfile(77).batch(0));
        pprof.samples(null);
        Profile p = Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("s.pb.gz")));
        assertTrue(Profiles.comments(p).contains("the pprof consumer could not attribute 2 deliveries (150 samples)"
                + " to a session it keeps; first: a batch of 150 samples for session 77"),
                () -> Profiles.comments(p).toString());
        assertEquals(150, Profiles.total(p, "samples"));
    }

    @Test
    void aSessionWithoutCountersIsAStrayNotACrash() {
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(new NetworkProfile(3, new org.hyperprof.api.pmu.CounterConfig[0]).info);
        assertEquals(List.of(), pprof.sessions());
    }

    @Test
    void filesWrittenWhileBatchesArriveHoldWholeBatchesOnly() throws Exception {
        NetworkProfile net = new NetworkProfile(8);
        PprofConsumer pprof = new PprofConsumer();
        pprof.sessionStarted(net.info);
        SampleBatch batch = net.batch(0);
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread delivery = new Thread(() -> {
            try {
                for (int i = 0; i < 2000; i++) {
                    pprof.samples(batch);
                    started.countDown();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "delivery");
        delivery.start();
        started.await();
        for (int i = 0; i < 20; i++) {
            Profile p = Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("live.pb.gz")));
            long total = Profiles.total(p, "samples");
            assertEquals(0, total % batch.size, "a snapshot never holds part of a batch: " + total);
        }
        delivery.join();
        assertEquals(null, failure.get());
        assertEquals(2000L * 150, Profiles.total(
                Profiles.read(Profiles.write(pprof, ReportRequest.latest(), "pprof", dir.resolve("end.pb.gz"))), "samples"));
    }
}
