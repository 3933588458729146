package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Hyperprof processes on one store: while another process holds the store's lock inside a write,
 * a session's write waits for it, at most the lock wait, and says so when it waited in vain.
 */
class LockWaitTest {
    @TempDir
    Path folder;

    private StoreFixture store(long lockWaitMillis) {
        return new StoreFixture(new StoreSettings(folder.resolve("store.duckdb"), true, "testhost", lockWaitMillis,
                Duration.ZERO), TransactionHook.NONE);
    }

    @Test
    void aWriteWaitsForAnotherProcesssLockAndSucceedsOnceItIsReleased() throws Exception {
        StoreFixture f = store(TimeUnit.MINUTES.toMillis(2));
        try (ChildProcess child = new ChildProcess(folder, "hold", f.path.toString(), folder.toString())) {
            child.await(folder.resolve("holding"));
            AtomicReference<Thread> writer = new AtomicReference<>();
            CompletableFuture<Void> profiled = CompletableFuture.runAsync(() -> {
                writer.set(Thread.currentThread());
                f.profile(21, "simulator");
            });
            // The writer sleeps between its tries of the lock: it found the lock held and waits.
            while (writer.get() == null || writer.get().getState() != Thread.State.TIMED_WAITING) {
                assertFalse(profiled.isDone(), "stored while another process held the lock");
                Thread.sleep(5);
            }
            Files.createFile(folder.resolve("release"));
            profiled.get(2, TimeUnit.MINUTES);
            assertEquals(0, child.exit(), child.log());
        }
        assertEquals("", f.problems());
        StoredSession s = f.store.session(21).orElseThrow();
        assertEquals(StoredSession.COMPLETED, s.status());
        assertEquals(10, s.samples());
    }

    @Test
    void aWriteThatWaitsLongerThanItsLockWaitIsNotStoredAndSaysWhy() throws Exception {
        StoreFixture f = store(200);
        try (ChildProcess child = new ChildProcess(folder, "hold", f.path.toString(), folder.toString())) {
            child.await(folder.resolve("holding"));
            f.profile(22, "simulator");
            String problems = f.problems();
            assertTrue(problems.startsWith("hyperprof: session 22 not stored: "), problems);
            assertTrue(problems.contains("another process holds its lock (waited 200 ms)"), problems);
            assertEquals(1, problems.lines().count(), problems);
            Files.createFile(folder.resolve("release"));
            assertEquals(0, child.exit(), child.log());
        }
    }
}
