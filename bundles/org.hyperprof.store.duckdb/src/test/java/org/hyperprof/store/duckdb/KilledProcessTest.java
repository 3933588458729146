package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import org.duckdb.DuckDBDriver;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A Hyperprof killed with kill -9 inside a session's write: its store opens next time with the earlier
 * sessions whole and the killed session incomplete, with the rows and books of its last checkpoint.
 */
class KilledProcessTest {
    @TempDir
    Path folder;

    @ParameterizedTest(name = "killed inside {0}")
    @CsvSource({"checkpoint:3, 2", "end, 5"})
    void aProcessKilledInsideAWriteLeavesItsSessionIncompleteWithItsLastCheckpointAndTheEarlierOnesWhole(
            String write, int checkpointedBatches) throws Exception {
        Path store = folder.resolve("store.duckdb");
        try (ChildProcess child = new ChildProcess(folder, "kill", store.toString(), folder.toString(), write)) {
            child.await(folder.resolve("inside"));
            child.kill();
        }

        StoreFixture next = new StoreFixture(store);
        List<StoredSession> sessions = next.store.sessions(new SessionQuery(true, null, null, 0));
        assertEquals(List.of(3L, 2L, 1L), sessions.stream().map(StoredSession::id).toList(), "newest first");
        for (StoredSession earlier : sessions.subList(1, 3)) {
            assertEquals(StoredSession.COMPLETED, earlier.status(), earlier.toString());
            assertEquals(StoreChild.SAMPLES_PER_BATCH, earlier.samples());
            assertEquals(StoreChild.SAMPLES_PER_BATCH, storedSamples(store, earlier.id()));
        }
        StoredSession killed = sessions.get(0);
        long checkpointed = (long) checkpointedBatches * StoreChild.SAMPLES_PER_BATCH;
        assertEquals(StoredSession.INCOMPLETE, killed.status());
        assertEquals(checkpointed, killed.samples());
        assertEquals(checkpointed, killed.received(), "the store's books as of its last checkpoint");
        assertEquals(checkpointed, storedSamples(store, killed.id()), "its rows as of its last checkpoint");
        String note = killed.notes().get(killed.notes().size() - 1);
        assertTrue(note.startsWith("its process ended before the session did; rows as of the last checkpoint at "),
                note);
        assertEquals(List.of(), rows(store, "SELECT session FROM owners"), "no session is left running");
        assertEquals(checkpointed + 2 * StoreChild.SAMPLES_PER_BATCH,
                Long.parseLong(rows(store, "SELECT sum(samples) FROM samples").get(0)));
    }

    @Test
    void aRunningSessionOfALiveProcessStaysRunningAndIsMarkedIncompleteOnceItsProcessIsGone() throws Exception {
        Path store = folder.resolve("store.duckdb");
        StoreFixture here = new StoreFixture(store);
        try (ChildProcess child = new ChildProcess(folder, "run", store.toString(), folder.toString())) {
            child.await(folder.resolve("running"));
            StoredSession live = here.store.session(7).orElseThrow();
            assertEquals(StoredSession.RUNNING, live.status(), "another live Hyperprof's session is left alone");
            assertEquals(StoreChild.SAMPLES_PER_BATCH, live.samples(), "its first checkpoint");
            child.kill();
        }
        StoredSession gone = here.store.session(7).orElseThrow();
        assertEquals(StoredSession.INCOMPLETE, gone.status());
        assertEquals(StoreChild.SAMPLES_PER_BATCH, gone.samples());
    }

    private static long storedSamples(Path store, long session) throws Exception {
        return Long.parseLong(rows(store, "SELECT coalesce(sum(samples), 0) FROM samples WHERE session = " + session)
                .get(0));
    }

    private static List<String> rows(Path store, String sql) throws Exception {
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + store, StoreFile.settings());
                Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            List<String> out = new java.util.ArrayList<>();
            while (r.next()) {
                out.add(r.getString(1));
            }
            return out;
        }
    }
}
