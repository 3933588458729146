package org.hyperprof.report.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        Profile p = Profiles.read(pprof.write(ReportRequest.latest(), "pprof", dir.resolve("l.pb.gz")));
        assertTrue(Profiles.comments(p).get(0).startsWith("Hyperprof session 2 "), Profiles.comments(p).get(0));
    }

    @Test
    void anOlderKeptSessionCanBeWritten() throws Exception {
        PprofConsumer pprof = withSessions(4, 1, 2);
        Profile p = Profiles.read(pprof.write(new ReportRequest(1, ReportRequest.ALL_DOMAINS, Set.of()), "pprof",
                dir.resolve("1.pb.gz")));
        assertTrue(Profiles.comments(p).get(0).startsWith("Hyperprof session 1 "));
    }

    @Test
    void aSessionNotKeptIsATypedErrorListingTheKeptOnes() {
        ReportException e = assertThrows(ReportException.class, () -> withSessions(2, 1, 2, 3)
                .write(new ReportRequest(1, ReportRequest.ALL_DOMAINS, Set.of()), "pprof", dir.resolve("x.pb.gz")));
        assertEquals("pprof has no session 1; the sessions it keeps are 2, 3 (the last 2 at most);"
                + " ask for one of them or for the latest", e.getMessage());
    }

    @Test
    void noSessionYetSaysToProfileFirst() {
        ReportException e = assertThrows(ReportException.class,
                () -> new PprofConsumer().write(ReportRequest.latest(), "pprof", dir.resolve("x.pb.gz")));
        assertTrue(e.getMessage().startsWith("pprof has no session yet; run a profile first"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("x.pb.gz")));
    }

    @Test
    void anUnknownFormatIsATypedErrorNamingTheFormat() {
        ReportException e = assertThrows(ReportException.class,
                () -> withSessions(1, 1).write(ReportRequest.latest(), "folded", dir.resolve("x.folded")));
        assertTrue(e.getMessage().startsWith("pprof writes the format 'pprof' only, not 'folded'"), e.getMessage());
    }

    @Test
    void optionsAreRefusedBecausePprofTakesNone() {
        ReportException e = assertThrows(ReportException.class, () -> withSessions(1, 1)
                .write(new ReportRequest(ReportRequest.LATEST, ReportRequest.ALL_DOMAINS, Set.of("symbols")), "pprof",
                        dir.resolve("x.pb.gz")));
        assertTrue(e.getMessage().startsWith("pprof takes no options, but got [symbols]"), e.getMessage());
    }

    @Test
    void anUnknownDomainIsATypedErrorListingTheSessionsDomains() {
        ReportException e = assertThrows(ReportException.class, () -> withSessions(1, 1)
                .write(new ReportRequest(1, 9, Set.of()), "pprof", dir.resolve("x.pb.gz")));
        assertEquals("session 1 has no domain 9; its domains are {0=Domain-0, 1=domU-rcv}"
                + " (ask for one of them, or for all domains)", e.getMessage());
    }

    @Test
    void aDirectoryTargetIsATypedErrorSuggestingAFileInIt() {
        ReportException e = assertThrows(ReportException.class,
                () -> withSessions(1, 1).write(ReportRequest.latest(), "pprof", dir));
        assertTrue(e.getMessage().contains("is a directory; name a file in it, e.g. "), e.getMessage());
    }

    @Test
    void aMissingTargetOrRequestIsATypedError() {
        assertThrows(ReportException.class, () -> withSessions(1, 1).write(ReportRequest.latest(), "pprof", null));
        assertThrows(ReportException.class, () -> withSessions(1, 1).write(null, "pprof", dir.resolve("x")));
    }

    @Test
    void writingLeavesOnlyTheTargetBehindAndCreatesMissingDirectories() throws Exception {
        Path target = dir.resolve("a/b/profile.pb.gz");
        Path written = withSessions(1, 1).write(ReportRequest.latest(), "pprof", target);
        assertEquals(target.toAbsolutePath(), written);
        try (Stream<Path> files = Files.list(target.getParent())) {
            assertEquals(List.of(target.getFileName().toString()),
                    files.map(f -> f.getFileName().toString()).toList());
        }
    }

    @Test
    void aFailedWriteLeavesTheOldFileUntouchedAndNoTemporaryFile() throws Exception {
        Path target = dir.resolve("keep.pb.gz");
        Files.writeString(target, "old");
        Path blocker = dir.resolve("not-a-dir");
        Files.writeString(blocker, "x");
        assertThrows(IOException.class,
                () -> withSessions(1, 1).write(ReportRequest.latest(), "pprof", blocker.resolve("p.pb.gz")));
        assertEquals("old", Files.readString(target));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(2, files.count(), "only keep.pb.gz and not-a-dir");
        }
    }

    @Test
    void theFileIsReadableByOthersLikeAnyNewFileNotOwnerOnly() throws Exception {
        Path target = dir.resolve("shared.pb.gz");
        Path probe = Files.createFile(dir.resolve("probe"));
        withSessions(1, 1).write(ReportRequest.latest(), "pprof", target);
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertEquals(Files.getPosixFilePermissions(probe), Files.getPosixFilePermissions(target));
        }
    }

    @Test
    void rewritingReplacesTheFile() throws Exception {
        Path target = dir.resolve("p.pb.gz");
        Files.writeString(target, "old");
        withSessions(1, 1).write(ReportRequest.latest(), "pprof", target);
        assertEquals(150, Profiles.total(Profiles.read(target), "samples"));
    }

    @Test
    void batchesForASessionItDoesNotKeepAreCountedAsStrays() throws Exception {
        PprofConsumer pprof = withSessions(1, 1);
        pprof.samples(new NetworkProfile(77).batch(0));
        pprof.samples(null);
        Profile p = Profiles.read(pprof.write(ReportRequest.latest(), "pprof", dir.resolve("s.pb.gz")));
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
            Profile p = Profiles.read(pprof.write(ReportRequest.latest(), "pprof", dir.resolve("live.pb.gz")));
            long total = Profiles.total(p, "samples");
            assertEquals(0, total % batch.size, "a snapshot never holds part of a batch: " + total);
        }
        delivery.join();
        assertEquals(null, failure.get());
        assertEquals(2000L * 150, Profiles.total(
                Profiles.read(pprof.write(ReportRequest.latest(), "pprof", dir.resolve("end.pb.gz"))), "samples"));
    }
}
