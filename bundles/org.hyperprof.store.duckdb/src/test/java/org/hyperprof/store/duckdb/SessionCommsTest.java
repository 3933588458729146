package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.duckdb.DuckDBDriver;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.Dispatcher;
import org.hyperprof.testing.sample.TestBatches;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What schema version 3 keeps of a recording: each sample's comm, the comms with their threads (a
 * renamed comm, a thread with two names), the mappings, the images' build-ids and whether names were
 * demangled. A stored session gives them back as they were, in a replay, an archive and a Parquet
 * export; a version 2 store is migrated, its old samples of no comm.
 */
class SessionCommsTest {
    private static final long ID = 19;

    @TempDir
    Path folder;

    private final Dispatcher dispatcher = new Dispatcher(8);

    @AfterEach
    void stop() {
        dispatcher.stopAll(1000);
    }

    /** A recording's names: an app exec'd by bash (thread 0), a worker thread named late, a mapping, a build-id. */
    private final Dictionary names = new Dictionary();
    private final int app = names.addImage("/usr/bin/app", ImageKind.USER, 0);
    private final int libc = names.addImage("/usr/lib/libc.so.6", ImageKind.USER, 0);
    private final int run = names.addSymbol("_ZN3app3runEv", app, 0x1040L);
    private final int memcpy = names.addSymbol("memcpy", libc);
    private final int bash = names.addComm("bash", 0);
    private final int worker = names.addComm(":701", 1);
    private final int exec = names.addComm("app", 0);
    private final int ticker = names.addComm("ticker", 2);

    private SessionStoreComponent store(Path path) {
        return new SessionStoreComponent(new StoreSettings(path, true, "testhost", 2000), Engine.CLASS_PATH,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), TransactionHook.NONE);
    }

    /** Stores the recording: 2 samples of bash, 3 of the worker, 1 of app, with names shown raw. */
    private SessionStoreComponent recorded(Path path) {
        names.renameComm(worker, "worker");
        names.addMapping(0, 700, app, 0x400000L, 0x401000L, 0);
        names.addMapping(0, 700, libc, 0x7f0000000000L, 0x7f0000020000L, 0x1000);
        names.buildId(app, "0123ABCDEF");
        names.demangle(false);
        SessionStoreComponent store = store(path);
        store.sessionStarted(new SessionInfo(ID, "perf.data", "host", "x86_64", "cpu", 0,
                List.of(StoreFixture.CYCLES), Map.of(0, "host"), false, names));
        TestBatches t = new TestBatches(ID);
        int[] comms = {bash, bash, worker, worker, worker, exec};
        int[] tids = {700, 700, 701, 701, 701, 700};
        for (int i = 0; i < comms.length; i++) {
            t.sample(0, 0, (byte) 0, 0, 0x400100L + i % 2, i % 2 == 0 ? app : libc, i % 2 == 0 ? run : memcpy, 1,
                    i * 1_000_000L, 0, 700, tids[i]);
        }
        SampleBatch b = t.build();
        System.arraycopy(comms, 0, b.comm, 0, comms.length);
        store.samples(b);
        store.sessionEnded(StoreFixture.ended(ID, 6, 0));
        return store;
    }

    @Test
    void aStoredRecordingReadsBackWithItsCommsThreadsMappingsBuildIdsAndRawNames() throws Exception {
        Path path = folder.resolve("store.duckdb");
        recorded(path);
        SessionDictionary d = new StoreFile(path, 2000).recording(ID).orElseThrow().info().dictionary();

        assertEquals(List.of("bash/app/0", "worker/worker/1", "app/app/0", "ticker/ticker/2"), comms(d),
                "every comm, its thread's last name and its thread, the unsampled one too");
        assertEquals(List.of(new ImageMapping(0, 700, image(d, "/usr/bin/app"), 0x400000L, 0x401000L, 0),
                new ImageMapping(0, 700, image(d, "/usr/lib/libc.so.6"), 0x7f0000000000L, 0x7f0000020000L, 0x1000)),
                List.of(d.mapping(0), d.mapping(1)));
        assertEquals(2, d.mappingCount());
        assertEquals("0123abcdef", d.imageBuildId(image(d, "/usr/bin/app")));
        assertNull(d.imageBuildId(image(d, "/usr/lib/libc.so.6")));
        assertFalse(d.demangles(), "imported with demangling off, so shown raw");
        assertEquals("_ZN3app3runEv", d.shownName(0));
        assertEquals(0x1040L, d.symbolStart(0), "a symbol's start in its file, as the source told it");
        assertEquals(SampleBatch.UNKNOWN, d.symbolStart(1), "a symbol whose start the source did not tell");
    }

    @Test
    void aReplayCarriesEachSamplesCommAsTheLiveSessionDid() throws Exception {
        Path path = folder.resolve("store.duckdb");
        SessionStoreComponent store = recorded(path);
        // As recorded: even samples in run, odd ones in memcpy; the last one after the exec.
        Map<String, Integer> live = new TreeMap<>(Map.of("bash 700 _ZN3app3runEv", 1, "bash 700 memcpy", 1, "worker 701 _ZN3app3runEv", 2,
                "worker 701 memcpy", 1, "app 700 memcpy", 1));
        Counted seen = new Counted();
        dispatcher.add("seen", seen);
        store.publisher(new ReplayingPublisher(dispatcher));

        store.replay(ID).orElseThrow();
        assertEquals(live, seen.counts);
    }

    @Test
    void anArchivedRecordingIsRestoredWithItsCommsAndMappings() throws Exception {
        recorded(folder.resolve("origin/store.duckdb"));
        Path archive = folder.resolve("19.zip");
        Console quiet = Console.of(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        new ArchiveCommands(store(folder.resolve("origin/store.duckdb")), new OutputFilesComponent(), quiet)
                .archive(Long.toString(ID), archive.toString());
        Path fresh = folder.resolve("fresh/store.duckdb");
        new ArchiveCommands(store(fresh), new OutputFilesComponent(), quiet).restore(archive.toString());

        assertEquals(List.of("0 700 0x400000 0x401000 0", "0 700 0x7f0000000000 0x7f0000020000 4096"),
                StoreFixture.query(fresh, "SELECT m.domain, m.pid, printf('0x%x', m.start_address),"
                        + " printf('0x%x', m.limit_address), m.file_offset FROM mappings m ORDER BY position"));
        assertEquals(List.of("bash 2", "worker 3", "app 1"), StoreFixture.query(fresh, "SELECT c.name, sum(s.samples)"
                + " FROM samples s JOIN names c ON c.kind = 'comm' AND c.id = s.comm GROUP BY c.id, c.name ORDER BY c.id"));
        assertEquals(List.of("false"), StoreFixture.query(fresh, "SELECT demangled FROM sessions"));
    }

    @Test
    void theParquetExportNamesEachRowsComm() throws Exception {
        Path path = folder.resolve("store.duckdb");
        recorded(path);
        assertEquals(List.of("app 1", "bash 2", "worker 3"), StoreFixture.query(path, "SELECT comm_name, sum(samples)"
                + " FROM (" + SamplesParquet.query(ID, SamplesParquet.ALL_DOMAINS) + ") GROUP BY ALL ORDER BY 1"));
    }

    @Test
    void aStoreOfVersionTwoIsMigratedItsOldSamplesOfNoComm() throws Exception {
        Path path = folder.resolve("store.duckdb");
        List<String> v2 = new ArrayList<>();
        try (var in = SessionCommsTest.class.getResourceAsStream("schema-v2.sql")) {
            v2.addAll(StoreFile.statements(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        }
        v2.add("INSERT INTO sessions (id, host_id, source, labels, what, cpu_type, cpu_name, mhz, events, started_at,"
                + " ended_at, status, end_reason, samples, taken, delivered, lost, dropped, invalid, received, missed,"
                + " notes, hidden, time_bucket_ns) VALUES (7, 'oldhost', 'perf.data', [], 'host', 'x86_64', 'cpu', 0,"
                + " ['cpu-clock:0:0x00'], TIMESTAMP '2026-11-01 10:00:00', TIMESTAMP '2026-11-01 10:00:01',"
                + " 'completed', 'completed', 4, 4, 4, 0, 0, 0, 4, 0, [], false, 10000000)");
        v2.add("INSERT INTO names VALUES (7, 'domain', 0, 0, 'host', NULL, NULL),"
                + " (7, 'image', 0, 0, '/usr/bin/app', 'USER', NULL), (7, 'symbol', 0, 0, '_ZN3app3runEv', NULL, NULL)");
        v2.add("INSERT INTO samples VALUES (7, 0, 0, 0, 0, 0, 700, 700, 0, 0, 4194560, 0, 0, 0, 4, 4)");
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + path, StoreFile.settings());
                Statement statement = c.createStatement()) {
            for (String sql : v2) {
                statement.execute(sql);
            }
        }

        SessionReader.Recording old = new StoreFile(path, 2000).recording(7).orElseThrow();
        assertEquals(List.of("2", "3"), StoreFixture.query(path, "SELECT version FROM schema_version ORDER BY 1"));
        assertEquals(List.of("-1 4"), StoreFixture.query(path, "SELECT comm, samples FROM samples"));
        assertEquals(SampleBatch.UNKNOWN, old.rows().column(0, SampleRows.COMM));
        assertEquals(0, old.info().dictionary().commCount());
        assertEquals("_ZN3app3runEv", old.info().dictionary().symbolName(0));
        assertEquals(true, old.info().dictionary().demangles(), "a session of version 2 was shown demangled");
        recorded(path);
        assertEquals(List.of("bash 2", "worker 3", "app 1"), StoreFixture.query(path, "SELECT c.name, sum(s.samples)"
                + " FROM samples s JOIN names c ON c.session = s.session AND c.kind = 'comm' AND c.id = s.comm"
                + " GROUP BY c.id, c.name ORDER BY c.id"), "a new session in the migrated store keeps its comms");
    }

    /** Each comm of {@code d} as "name/thread's name/thread". */
    private static List<String> comms(SessionDictionary d) {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < d.commCount(); c++) {
            out.add(d.commName(c) + "/" + d.threadName(c) + "/" + d.commThread(c));
        }
        return out;
    }

    private static int image(SessionDictionary d, String name) {
        for (int i = 0; i < d.imageCount(); i++) {
            if (d.imageName(i).equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no image " + name);
    }

    /** Samples counted by comm, tid and symbol as a report shows them. */
    private static final class Counted implements SampleConsumer {
        private volatile SessionDictionary dictionary;
        final Map<String, Integer> counts = new TreeMap<>();

        @Override
        public void sessionStarted(SessionInfo session) {
            dictionary = session.dictionary();
        }

        @Override
        public synchronized void samples(SampleBatch b) {
            for (int i = 0; i < b.size; i++) {
                counts.merge(dictionary.commName(b.comm[i]) + " " + b.tid[i] + " " + dictionary.shownName(b.symbol[i]),
                        1, Integer::sum);
            }
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
        }
    }
}
