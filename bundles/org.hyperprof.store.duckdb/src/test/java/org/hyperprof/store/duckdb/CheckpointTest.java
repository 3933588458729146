package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A session running past the checkpoint interval writes its rows so far, and stays running. */
class CheckpointTest {
    @TempDir
    Path folder;

    private StoreFixture store(Duration interval) {
        return new StoreFixture(new StoreSettings(folder.resolve("store.duckdb"), true, "testhost", 2000, interval),
                TransactionHook.NONE);
    }

    @Test
    void aCheckpointWritesTheRowsAndTheStoresBooksSoFarAndTheSessionStaysRunning() throws Exception {
        StoreFixture f = store(Duration.ofNanos(1));
        f.store.sessionStarted(f.info(5, "simulator"));
        f.store.samples(f.batch(5));
        f.store.samples(f.batch(5));
        StoredSession s = f.store.session(5).orElseThrow();
        assertEquals(StoredSession.RUNNING, s.status());
        assertEquals(20, s.samples());
        assertEquals(20, s.received());

        f.store.sessionEnded(StoreFixture.ended(5, 20, 0));
        StoredSession ended = f.store.session(5).orElseThrow();
        assertEquals(StoredSession.COMPLETED, ended.status());
        assertEquals(20, ended.samples(), "the end replaces the checkpoint's rows");
    }

    @Test
    void anIntervalOfZeroNeverCheckpoints() throws Exception {
        StoreFixture f = store(Duration.ZERO);
        f.store.sessionStarted(f.info(6, "simulator"));
        f.store.samples(f.batch(6));
        assertEquals(0, f.store.session(6).orElseThrow().samples());
    }

    @Test
    void aSessionCutShortByTheStoresStopKeepsItsLastCheckpoint() throws Exception {
        StoreFixture f = store(Duration.ofNanos(1));
        f.store.sessionStarted(f.info(8, "simulator"));
        f.store.samples(f.batch(8));
        f.store.deactivate();
        StoredSession s = f.store.session(8).orElseThrow();
        assertEquals(StoredSession.INCOMPLETE, s.status());
        assertEquals(10, s.samples());
        List<String> notes = s.notes();
        assertTrue(notes.get(notes.size() - 1).startsWith("rows as of the last checkpoint at "), notes.toString());
    }
}
