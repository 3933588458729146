package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.felix.service.command.Descriptor;
import org.duckdb.DuckDBDriver;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.profiler.SessionPublisher;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.command.kit.Console;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.hyperprof.testing.sample.TestBatches;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored session replayed through the pipeline reaches every consumer as it was live: the same
 * session (id, counters, domains, names), the same samples (counted by what they are, whatever ids
 * and batches carry them), and the same summary; the store does not store its own replay again.
 */
class SessionReplayTest {
    private static final long ID = 4_242_424_242L;

    @TempDir
    Path folder;

    private final Dispatcher dispatcher = new Dispatcher(8);
    private final Seen seen = new Seen();

    @AfterEach
    void stop() {
        dispatcher.stopAll(1000);
    }

    /** The profiler's part of a replay: the recorded session started under its id, ended by its summary. */
    private final SessionPublisher publisher = new ReplayingPublisher(dispatcher);

    /** What a consumer saw: the session, its samples by what they are, its summary. */
    private static final class Seen implements SampleConsumer {
        volatile SessionInfo info;
        final Map<String, long[]> samples = new TreeMap<>();
        volatile SessionSummary summary;

        @Override
        public void sessionStarted(SessionInfo session) {
            info = session;
        }

        @Override
        public synchronized void samples(SampleBatch batch) {
            count(samples, info.dictionary(), batch);
        }

        @Override
        public void sessionEnded(SessionSummary s) {
            summary = s;
        }
    }

    /** Counts each sample under its key in names (ids differ between the live and the stored dictionary). */
    private static void count(Map<String, long[]> into, SessionDictionary d, SampleBatch b) {
        for (int i = 0; i < b.size; i++) {
            StringBuilder key = new StringBuilder().append(b.domain[i]).append('/').append(b.vcpu[i]).append('/')
                    .append(b.mode[i]).append('/').append(b.counter[i]).append('/').append(b.cpu[i]).append('/')
                    .append(b.pid[i]).append('/').append(b.tid[i]).append('/').append(b.flags[i]).append('/')
                    .append(b.time[i] < 0 ? -1 : b.time[i] / SampleRows.TIME_BUCKET_NANOS).append(' ')
                    .append(d.imageName(b.image[i])).append(':').append(d.symbolName(b.symbol[i])).append('@')
                    .append(Long.toHexString(b.pc[i]));
            for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                key.append(" <- ").append(d.imageName(b.chainImage[c])).append(':')
                        .append(d.symbolName(b.chainSymbol[c])).append('@').append(Long.toHexString(b.chainPc[c]))
                        .append('/').append(b.chainMode[c]);
            }
            long[] n = into.computeIfAbsent(key.toString(), k -> new long[2]);
            n[0]++;
            n[1] += b.weight[i];
        }
    }

    private static GroundTruth truth() {
        long[] cycles = new long[Signal.values().length];
        cycles[Signal.values()[0].ordinal()] = 123_456;
        long[] two = new long[Signal.values().length];
        two[0] = 7_000;
        two[Signal.values().length - 1] = 9;
        return new GroundTruth(List.of(new GroundTruth.Row(0, 0, CpuMode.KERNEL, "vmlinux", ImageKind.KERNEL,
                "schedule", cycles), new GroundTruth.Row(1, 0, CpuMode.USER, "/usr/bin/app", ImageKind.USER, "main",
                two)), List.of(new GroundTruth.Row(1, 0, CpuMode.USER, "/usr/bin/app", ImageKind.USER, "main",
                        cycles)));
    }

    private static SessionSummary summary(long received) {
        return new SessionSummary(ID, new Accounting(received + 4, received, 1, 3, 0),
                List.of(new BufferAccounting(0, 0, "active", new Accounting(7, 7, 0, 0, 0), 0, 7, 0, 9, 0),
                        new BufferAccounting(1, 0, "active", new Accounting(received - 3, received - 7, 1, 3, 0), 3,
                                0, 0, 4, 1)),
                List.of(new ConsumerAccounting("opreport", received, 0, null),
                        new ConsumerAccounting(SessionStoreComponent.NAME, received, 0, null),
                        new ConsumerAccounting("late", received - 5, 5, "arrived mid-session")),
                new XenoprofStatistics(received + 4, received, 0, 1, 3, 2, 0, 0), truth(), 2_000_000,
                SessionSummary.COMPLETED, Map.of("postponed", 3L, "nmi", 14L), List.of("a note of the live session"));
    }

    /** The fixture's batch plus samples at known times, weights that do not divide evenly, and an address symbol. */
    private static SampleBatch batch(StoreFixture f, int address) {
        TestBatches b = new TestBatches(ID);
        for (int i = 0; i < 3; i++) {
            b.sample(1, 1, (byte) 0, 0, 0x400200L, f.app, address, 4 - i, 25_000_000L + i, 1, 700, 701)
                    .flags(SampleBatch.CHAIN_FROM_PC).caller(0x400100L, f.app, f.main, 0);
        }
        return b.build();
    }

    @Test
    void aStoredSessionReplayedReachesEveryConsumerAsItWasLiveAndIsNotStoredTwice() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        int address = f.names.address(f.app, 0x200);
        SessionInfo live = new SessionInfo(ID, "simulator", "default-host", "i386/p6", "PIII", 2000,
                List.of(StoreFixture.CYCLES), Map.of(0, "Domain-0", 1, "domU", 2, "idle-guest"), true, f.names);
        Map<String, long[]> recorded = new TreeMap<>();
        f.store.sessionStarted(live);
        for (SampleBatch b : List.of(f.batch(ID), batch(f, address), f.batch(ID))) {
            count(recorded, f.names, b);
            f.store.samples(b);
        }
        SessionSummary books = summary(23);
        f.store.sessionEnded(books);
        long rows = f.store.sessions(SessionQuery.visible()).get(0).samples();

        f.store.publisher(publisher);
        dispatcher.add("seen", seen);
        dispatcher.add(SessionStoreComponent.NAME, f.store, Delivery.LOSSLESS);
        SessionSummary replayed = f.store.replay(ID).orElseThrow();

        SessionInfo again = seen.info;
        assertEquals(List.of(ID, "simulator", "default-host", "i386/p6", "PIII", 2000L, live.domains(), true),
                List.of(again.sessionId(), again.source(), again.hostName(), again.cpuType(), again.cpuName(),
                        again.mhz(), again.domains(), again.groundTruth()));
        CounterConfig k = again.counters().get(0);
        assertEquals(List.of(0, "CPU_CLK_UNHALTED", 0x79, 1L, 1L, "cycles", 100000L, 0L, true, true),
                List.of(k.counter(), k.event().name(), k.event().code(), k.event().counterMask(),
                        k.event().minimumCount(), k.event().description(), k.count(), k.unitMask(), k.kernel(),
                        k.user()));
        assertEquals("app", again.dictionary().processName(1, 700));
        assertEquals(keys(recorded), keys(seen.samples));
        assertEquals(counts(recorded), counts(seen.samples), "each sample, its weight exactly");

        for (SessionSummary s : List.of(replayed, seen.summary)) {
            assertEquals(List.of(ID, books.accounting(), books.buffers(), books.consumers(), books.hypervisor(),
                    books.simulatedCycles(), books.endReason(), books.hostCounters(), books.notes()),
                    List.of(s.sessionId(), s.accounting(), s.buffers(), s.consumers(), s.hypervisor(),
                            s.simulatedCycles(), s.endReason(), s.hostCounters(), s.notes()));
            assertTruthEquals(books.groundTruth().rows(), s.groundTruth().rows());
            assertTruthEquals(books.groundTruth().onBehalf(), s.groundTruth().onBehalf());
        }
        assertEquals(1, f.store.sessions(SessionQuery.visible()).size(), "the replay is not stored again");
        assertEquals(rows, f.store.sessions(SessionQuery.visible()).get(0).samples());
        assertEquals("", f.problems());
    }

    @Test
    void aReplayWithoutAProfilerOrOfAnUnknownSessionSaysSo() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(ID, "simulator");
        assertTrue(f.store.replay(99).isEmpty());
        String why = assertThrows(StoreException.class, () -> f.store.replay(ID)).getMessage();
        assertTrue(why.contains("no profiler is active"), why);
    }

    @Test
    void aConsumerThatMissesSamplesOfTheReplayIsNamedInTheNotes() throws Exception {
        StoreFixture f = replayable();
        RecordingConsumer broken = new RecordingConsumer();
        broken.throwOnSamples = true;
        dispatcher.add("broken", broken);
        SessionSummary s = f.store.replay(ID).orElseThrow();
        assertFalse(s.notes().isEmpty());
        assertTrue(s.notes().get(s.notes().size() - 1).startsWith("consumer broken missed 10 of the 10 samples of"
                + " the replay"), s.notes().toString());
        assertEquals(List.of(new ConsumerAccounting(SessionStoreComponent.NAME, 10, 0, null)), s.consumers(),
                "the books of the live session");
    }

    @Test
    void hpReplayFeedsAStoredSessionToTheConsumersAndRefusesAnUnknownId() throws Exception {
        StoreFixture f = replayable();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SessionCommands c = new SessionCommands(f.store, Console.of(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)));

        c.replay(Long.toString(ID));
        assertEquals("replayed session " + ID + ": 10 samples to the consumers (hp:report --session " + ID
                + " prints it)\n", out.toString(StandardCharsets.UTF_8));
        assertEquals(ID, seen.summary.sessionId());
        assertEquals(CommandFailure.FAILED, assertThrows(CommandFailure.class, () -> c.replay("7")).status());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no stored session 7 (hp:sessions lists them)"),
                err.toString(StandardCharsets.UTF_8));
        assertEquals(CommandFailure.USAGE, assertThrows(CommandFailure.class, () -> c.replay()).status());
        Method m = SessionCommands.class.getMethod("replay", String[].class);
        assertEquals(SessionCommands.REPLAY.arguments(), m.getParameters()[0].getAnnotation(Descriptor.class).value());
    }

    @Test
    void aSessionOfSchemaVersionOneReplaysWithTheCountersItsEventsName() throws Exception {
        Path path = folder.resolve("store.duckdb");
        List<String> v1 = new ArrayList<>();
        try (var in = SessionReplayTest.class.getResourceAsStream("schema-v1.sql")) {
            v1.addAll(StoreFile.statements(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        }
        v1.add("INSERT INTO sessions VALUES (7, 'oldhost', 'simulator', NULL, [], 'default-host', 'i386/p6', 'PIII',"
                + " 2000, ['CPU_CLK_UNHALTED:100000:0x00'], TIMESTAMP '2026-11-01 10:00:00',"
                + " TIMESTAMP '2026-11-01 10:00:01', 'completed', 'completed', 10, 10, 10, 0, 0, 0, 10, 0, [], NULL,"
                + " false, 10000000)");
        v1.add("INSERT INTO names VALUES (7, 'domain', 0, 0, 'Domain-0', NULL, NULL),"
                + " (7, 'image', 5, 0, 'vmlinux', 'KERNEL', NULL), (7, 'symbol', 9, 5, 'schedule', NULL, NULL)");
        v1.add("INSERT INTO samples VALUES (7, 0, 0, 0, -1, 1, -1, -1, 5, 9, 3222274048, 0, 3, 0, 10, 1000000)");
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + path, StoreFile.settings());
                Statement statement = c.createStatement()) {
            for (String sql : v1) {
                statement.execute(sql);
            }
        }
        StoreFixture f = new StoreFixture(path);
        f.store.publisher(publisher);
        dispatcher.add("seen", seen);

        SessionSummary s = f.store.replay(7).orElseThrow();
        CounterConfig k = seen.info.counters().get(0);
        assertEquals(List.of(0, "CPU_CLK_UNHALTED", 100000L, 0L, true, true),
                List.of(k.counter(), k.event().name(), k.count(), k.unitMask(), k.kernel(), k.user()));
        assertEquals(List.of("0/0/1/0/-1/-1/-1/0/3 vmlinux:schedule@c0100000 10 1000000"), counts(seen.samples));
        assertEquals(List.of(), s.consumers());
        assertNull(s.groundTruth());
        assertNull(s.hypervisor());
        assertEquals(new Accounting(10, 10, 0, 0, 0), s.accounting());
    }

    /** A store holding one session of the fixture, replayed through the test's publisher to {@link #seen}. */
    private StoreFixture replayable() {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(ID, "simulator");
        f.store.publisher(publisher);
        dispatcher.add("seen", seen);
        return f;
    }

    private static List<String> keys(Map<String, long[]> samples) {
        return new ArrayList<>(samples.keySet());
    }

    private static List<String> counts(Map<String, long[]> samples) {
        return samples.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()[0] + " " + e.getValue()[1])
                .toList();
    }

    private static void assertTruthEquals(List<GroundTruth.Row> expected, List<GroundTruth.Row> actual) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            GroundTruth.Row e = expected.get(i);
            GroundTruth.Row a = actual.get(i);
            assertEquals(List.of(e.domid(), e.vcpu(), e.mode(), e.image(), e.kind(), e.symbol()),
                    List.of(a.domid(), a.vcpu(), a.mode(), a.image(), a.kind(), a.symbol()));
            assertArrayEquals(e.signalMilli(), a.signalMilli());
        }
    }
}
