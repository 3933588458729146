package org.hyperprof.store.duckdb;

import static org.hyperprof.store.duckdb.StoreFixture.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

import org.duckdb.DuckDBDriver;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionStoreTest {
    @TempDir
    Path folder;

    private static void execute(Path store, String sql) throws SQLException {
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + store, StoreFile.settings());
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void aSessionIsStoredRunningAtItsStartAndWithItsRowsAndBooksAtItsEnd() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.store.sessionStarted(f.info(11, "simulator"));
        StoredSession running = f.store.session(11).orElseThrow();
        assertEquals(StoredSession.RUNNING, running.status());
        assertNull(running.endedAt());

        f.store.samples(f.batch(11));
        f.store.samples(f.batch(11));
        f.store.sessionEnded(StoreFixture.ended(11, 20, 0));

        StoredSession s = f.store.session(11).orElseThrow();
        assertEquals(StoredSession.COMPLETED, s.status());
        assertEquals("testhost", s.hostId());
        assertEquals("simulator", s.source());
        assertEquals("default-host", s.what());
        assertEquals("i386/p6", s.cpuType());
        assertEquals(List.of("CPU_CLK_UNHALTED:100000:0x00"), s.events());
        assertEquals(20, s.samples());
        assertEquals(new Accounting(24, 20, 1, 3, 0), s.accounting());
        assertEquals(20, s.received());
        assertEquals(0, s.missed());
        assertTrue(!s.endedAt().isBefore(s.startedAt()));
        assertEquals("", f.problems());

        // Aggregated rows: three keys, counts doubled by the second batch.
        assertEquals(List.of("0 0 0 0 3222274048 1 10 10", "0 1 0 1 3223322628 0 4 4", "1 0 1 3 4194560 0 6 6"),
                query(f.path, "SELECT domain, vcpu, image, symbol, pc, stack_id, samples, weight FROM samples"
                        + " WHERE session = 11 ORDER BY domain, vcpu"));
        assertEquals(List.of("1 0 3223322640 0 1 1"),
                query(f.path, "SELECT stack_id, depth, pc, image, symbol, mode FROM stacks WHERE session = 11"));
        // Only the names the rows use: never_sampled is left out.
        assertEquals(List.of("domain 0 Domain-0", "domain 1 domU", "image 0 vmlinux", "image 1 /usr/bin/app",
                "process 700 app", "symbol 0 schedule", "symbol 1 tcp_v4_rcv", "symbol 3 main"),
                query(f.path, "SELECT kind, id, name FROM names WHERE session = 11 ORDER BY kind, id"));
    }

    @Test
    void sessionsAreListedNewestFirstAndSelectedBySourceAndStart() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        Thread.sleep(5);
        Instant between = Instant.now();
        Thread.sleep(5);
        f.profile(2, "perf.data");
        f.profile(3, "simulator");

        assertEquals(List.of(3L, 2L, 1L), ids(f.store.sessions(SessionQuery.visible())));
        assertEquals(List.of(3L, 1L), ids(f.store.sessions(new SessionQuery(false, null, "simulator", 0))));
        assertEquals(List.of(3L, 2L), ids(f.store.sessions(new SessionQuery(false, between, null, 0))));
        assertEquals(List.of(3L), ids(f.store.sessions(new SessionQuery(false, null, null, 1))));
        assertEquals(3, f.store.info().sessions());
        assertTrue(f.store.delete(2));
        assertFalse(f.store.delete(2));
        assertEquals(List.of(3L, 1L), ids(f.store.sessions(SessionQuery.visible())));
        assertEquals(List.of(), query(f.path, "SELECT * FROM samples WHERE session = 2"));
    }

    private static List<Long> ids(List<StoredSession> sessions) {
        return sessions.stream().map(StoredSession::id).toList();
    }

    @Test
    void aSessionWhoseSamplesTheStoreMissedIsIncompleteWithTheNumberMissed() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.store.sessionStarted(f.info(5, "perf record"));
        f.store.samples(f.batch(5));
        f.store.sessionEnded(StoreFixture.ended(5, 10, 7));
        StoredSession s = f.store.session(5).orElseThrow();
        assertEquals(StoredSession.INCOMPLETE, s.status());
        assertEquals(7, s.missed());
        assertEquals(List.of("the store missed 7 of 17 samples"), s.notes());
    }

    @Test
    void aStoreThatCannotBeWrittenSaysNotStoredOnceAndTheSessionGoesOn() throws Exception {
        Path notAFolder = Files.writeString(folder.resolve("a-file"), "");
        StoreFixture f = new StoreFixture(notAFolder.resolve("store.duckdb"));
        f.profile(9, "simulator");
        String said = f.problems();
        assertTrue(said.startsWith("hyperprof: session 9 not stored: the session store " + f.path
                + " could not be written: "), said);
        assertEquals(1, said.lines().count(), said);
        assertEquals(List.of(), f.store.sessions(SessionQuery.visible()));
    }

    @Test
    void aReadOnlyFolderGivesNotStoredAndTheNextSessionsTooWithoutAnException() throws Exception {
        Path readOnly = Files.createDirectory(folder.resolve("read-only"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-x------"));
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(readOnly),
                "the user (root) writes a read-only folder anyway");
        StoreFixture f = new StoreFixture(readOnly.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "simulator");
        assertEquals(2, f.problems().lines().filter(l -> l.contains(" not stored: ")).count(), f.problems());
    }

    @Test
    void aNewStoreIsMadeWithSchemaVersionThreeItsFileOnlyForItsUserAndItsFolderToo() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("made/for/it/store.duckdb"));
        assertEquals(0, f.store.info().bytes());
        assertFalse(Files.exists(f.path), "a query makes no store");
        f.profile(1, "simulator");
        assertEquals(List.of("3"), query(f.path, "SELECT version FROM schema_version"));
        assertEquals(List.of("buffers", "consumers", "counters", "host_counters", "mappings", "names", "owners",
                "samples", "schema_version", "sessions", "stacks", "truth"),
                query(f.path, "SELECT table_name FROM information_schema.tables ORDER BY table_name"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.path)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.path.getParent())));
        assertEquals(3, f.store.info().schemaVersion());
        assertTrue(f.store.info().bytes() > 0);
    }

    @Test
    void aStoreOfAnotherSchemaVersionIsRefusedSayingWhatToDo() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        execute(f.path, "UPDATE schema_version SET version = 4");
        StoreException e = assertThrows(StoreException.class, () -> f.store.sessions(SessionQuery.visible()));
        assertTrue(e.getMessage().contains("its schema is version 4, and this Hyperprof reads version 3 only: use"
                + " the Hyperprof that made it, or move the file away"), e.getMessage());
        f.profile(2, "simulator");
        assertTrue(f.problems().contains("session 2 not stored: ") && f.problems().contains("schema is version 4"),
                f.problems());
    }

    @Test
    void aStoreOfVersionOneIsMigratedKeepingItsSessions() throws Exception {
        Path store = folder.resolve("store.duckdb");
        String v1;
        try (var in = SessionStoreTest.class.getResourceAsStream("schema-v1.sql")) {
            v1 = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        for (String statement : StoreFile.statements(v1)) {
            execute(store, statement);
        }
        execute(store, "INSERT INTO sessions VALUES (7, 'oldhost', 'simulator', NULL, [], 'default-host', 'i386/p6',"
                + " 'PIII', 2000, ['CPU_CLK_UNHALTED:100000:0x00'], TIMESTAMP '2026-11-01 10:00:00',"
                + " TIMESTAMP '2026-11-01 10:00:01', 'completed', 'completed', 10, 10, 10, 0, 0, 0, 10, 0, [], NULL,"
                + " false, 10000000)");
        StoreFixture f = new StoreFixture(store);

        StoredSession old = f.store.session(7).orElseThrow();
        assertEquals("oldhost", old.hostId());
        assertEquals(List.of(), old.origin());
        assertEquals(-1, old.profiledNanos());
        assertEquals(List.of("1", "2", "3"), query(store, "SELECT version FROM schema_version ORDER BY version"));
        f.profile(8, "simulator");
        assertEquals(List.of("0 CPU_CLK_UNHALTED 100000 cycles"),
                query(store, "SELECT slot, event, count, description FROM counters WHERE session = 8"));
        assertEquals(List.of(8L, 7L), ids(f.store.sessions(SessionQuery.visible())));
    }

    @Test
    void anEndedSessionKeepsItsCountersItsBooksAndTheTimeItProfiled() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.store.sessionStarted(f.info(3, "simulator"));
        f.store.samples(f.batch(3));
        Accounting books = new Accounting(14, 10, 1, 3, 0);
        // 2,000,000 cycles per physical CPU at 2000 MHz: 1 ms simulated.
        f.store.sessionEnded(new org.hyperprof.api.sample.SessionSummary(3, books,
                List.of(new org.hyperprof.api.sample.BufferAccounting(1, 0, "active", books, 3, 7, 0, 10, 0)),
                List.of(new org.hyperprof.api.sample.ConsumerAccounting("opreport", 9, 1, "slow"),
                        new org.hyperprof.api.sample.ConsumerAccounting(SessionStoreComponent.NAME, 10, 0, null)),
                new org.hyperprof.api.xenoprof.XenoprofStatistics(14, 10, 0, 1, 3, 3, 0, 0), null, 2_000_000,
                org.hyperprof.api.sample.SessionSummary.COMPLETED, java.util.Map.of("irq.postponed", 5L),
                List.of("a note")));

        assertEquals(1_000_000, f.store.session(3).orElseThrow().profiledNanos());
        assertEquals(List.of("0 CPU_CLK_UNHALTED 121 100000 0 true true"),
                query(f.path, "SELECT counter, event, code, count, unit_mask, count_kernel, count_user FROM counters"));
        assertEquals(List.of("1 0 active 14 10 1 3 0 3 7 0 10 0"),
                query(f.path, "SELECT domain, vcpu, role, taken, delivered, lost, dropped, invalid, user_samples,"
                        + " kernel_samples, xen_samples, drained, undrained FROM buffers"));
        assertEquals(List.of("0 opreport 9 1 slow", "1 store 10 0 null"),
                query(f.path, "SELECT position, consumer, received, missed, problem FROM consumers ORDER BY position"));
        assertEquals(List.of("irq.postponed 5"), query(f.path, "SELECT name, value FROM host_counters"));
        assertEquals(List.of("14 10 0 1 3 3 0 0 2000000 false"),
                query(f.path, "SELECT xen_total, xen_active, xen_passive, xen_lost, xen_others, xen_idle,"
                        + " xen_invalid_buffer, xen_corrupted_buffer, simulated_cycles, ground_truth FROM sessions"));
    }

    @Test
    void aRecordingsProfiledTimeRunsFromItsFirstToItsLastSample() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.store.sessionStarted(f.info(4, "perf.data"));
        org.hyperprof.testing.sample.TestBatches b = new org.hyperprof.testing.sample.TestBatches(4);
        b.sample(1, 0, (byte) 0, 0, 0x400100L, f.app, f.main, 1, 5_000_000_000L, 0, 700, 700);
        b.sample(1, 0, (byte) 0, 0, 0x400100L, f.app, f.main, 1, 5_250_000_000L, 0, 700, 700);
        b.sample(1, 0, (byte) 0, 0, 0x400100L, f.app, f.main, 1, SampleBatch.UNKNOWN, 0, 700, 700);
        f.store.samples(b.build());
        f.store.sessionEnded(StoreFixture.ended(4, 3, 0));
        assertEquals(250_000_000, f.store.session(4).orElseThrow().profiledNanos());
    }

    @Test
    void aFileWithOtherTablesIsNoStoreAndIsLeftAsItIs() throws Exception {
        Path other = folder.resolve("other.duckdb");
        execute(other, "CREATE TABLE accounts (id INTEGER)");
        StoreFixture f = new StoreFixture(other);
        StoreException e = assertThrows(StoreException.class, () -> f.store.sessions(SessionQuery.visible()));
        assertTrue(e.getMessage().contains("no Hyperprof session store"), e.getMessage());
        assertEquals(List.of("accounts"), query(other, "SELECT table_name FROM information_schema.tables"));
    }

    @Test
    void aCreateTableStatementNamesTheTableItMakes() {
        assertEquals("owners", StoreFile.createdTable("CREATE TABLE owners (\n    session BIGINT NOT NULL\n);"));
        assertNull(StoreFile.createdTable("INSERT INTO schema_version VALUES (2);"));
    }

    @Test
    void theSchemaScriptSplitsIntoItsStatements() {
        assertEquals(List.of("CREATE TABLE a (x INTEGER);", "INSERT INTO a\nVALUES (1);"),
                StoreFile.statements("-- a comment\nCREATE TABLE a (x INTEGER);\n\nINSERT INTO a\nVALUES (1);\n"));
    }
}
