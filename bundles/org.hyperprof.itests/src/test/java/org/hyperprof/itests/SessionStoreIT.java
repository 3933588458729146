package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The session store in a framework: a profile of the default host lands in the store (in the test's
 * own folder, never the user's default store), hp:sessions lists it, and it is still there after the
 * store bundle stops and starts again.
 */
public class SessionStoreIT extends InFramework {

    public SessionStoreIT() {
        super("gogo");
    }

    @Test
    public void aProfileOfTheDefaultHostIsStoredAndListedAlsoAfterTheStoreRestarts() throws Exception {
        // In the build's output: tests never touch the default store.
        Path store = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "store-it").resolve("store.duckdb");
        Bundle storeBundle = startStore(this, store);
        hosts().load(HostService.DEFAULT_SCENARIO, null);
        Profiler profiler = profiler();
        assertFalse("the store, active and bound, has not loaded DuckDB before a session starts", duckDbLoaded());

        SessionSummary summary = profile(profiler, 100_000);
        assertTrue("the first session loaded DuckDB", duckDbLoaded());
        long stored = summary.consumers().stream().filter(c -> c.consumer().equals("store"))
                .mapToLong(ConsumerAccounting::received).sum();
        assertEquals("the store, a lossless consumer, missed nothing: " + summary.consumers(),
                summary.accounting().delivered(), stored);

        StoredSession s = ended(Services.await(context, SessionStore.class, ""), summary.sessionId());
        assertEquals(StoredSession.COMPLETED, s.status());
        assertEquals("it-host", s.hostId());
        assertEquals("simulator", s.source());
        assertEquals(summary.accounting(), s.accounting());
        assertEquals(stored, s.samples());
        String listed = gogo("hp:sessions");
        assertTrue(listed, listed.lines().anyMatch(l -> l.startsWith(summary.sessionId() + " ")
                && l.contains(" it-host ") && l.endsWith(" completed")));

        storeBundle.stop();
        storeBundle.start();
        StoredSession again = Services.await(context, SessionStore.class, "").session(summary.sessionId())
                .orElseThrow();
        assertEquals(s, again);
        assertTrue(gogo("hp:store"), gogo("hp:store").contains(store.toString()));
    }

    /** The store at {@code store}, host {@code it-host}, and DuckDB's bundle started in {@code test}'s framework; the store's bundle. */
    static Bundle startStore(InFramework test, Path store) throws Exception {
        Hashtable<String, Object> settings = new Hashtable<>();
        settings.put("path", store.toString());
        settings.put("host.id", "it-host");
        Services.await(test.context, ConfigurationAdmin.class, "").getConfiguration("org.hyperprof.store", "?")
                .update(settings);
        test.installAndStart("duckdb");
        Bundle storeBundle = test.installAndStart("store");
        Services.await(test.context, SessionStore.class, "");
        return storeBundle;
    }

    /** Whether DuckDB's native library is mapped into this JVM (the store removes its file, not the mapping). */
    private static boolean duckDbLoaded() throws Exception {
        return Files.readString(Path.of("/proc/self/maps")).contains("libduckdb_java");
    }

    /** The session once the store has written its end (the store writes on its own thread, after the profile returns). */
    static StoredSession ended(SessionStore store, long id) throws Exception {
        for (int i = 0; i < 600; i++) {
            StoredSession s = store.session(id).orElse(null);
            if (s != null && !s.status().equals(StoredSession.RUNNING)) {
                return s;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("session " + id + " was not stored within 30 s: " + store.session(id));
    }
}
