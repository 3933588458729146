package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.Test;
import org.osgi.framework.Bundle;

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
        Path store = StoreSupport.ownStore(context, "it-host");
        installAndStart("duckdb");
        Bundle storeBundle = installAndStart("store");
        Services.await(context, SessionStore.class, "");
        hosts().load(HostService.DEFAULT_SCENARIO, null);
        Profiler profiler = profiler();
        assertFalse("the store, active and bound, has not loaded DuckDB before a session starts",
                StoreSupport.duckDbLoaded(storeBundle));

        SessionSummary summary = profile(profiler, 100_000);
        assertTrue("the first session loaded DuckDB", StoreSupport.duckDbLoaded(storeBundle));
        long stored = summary.consumers().stream().filter(c -> c.consumer().equals("store"))
                .mapToLong(ConsumerAccounting::received).sum();
        assertEquals("the store, a lossless consumer, missed nothing: " + summary.consumers(),
                summary.accounting().delivered(), stored);

        StoredSession s = StoreSupport.ended(Services.await(context, SessionStore.class, ""), summary.sessionId());
        assertEquals(StoredSession.COMPLETED, s.status());
        assertEquals("it-host", s.hostId());
        assertEquals("simulator", s.source());
        assertEquals(summary.accounting(), s.accounting());
        assertEquals(stored, s.samples());
        String listed = run("hp:sessions");
        assertTrue(listed, listed.lines().anyMatch(l -> l.startsWith(summary.sessionId() + " ")
                && l.contains(" it-host ") && l.endsWith(" completed")));

        storeBundle.stop();
        storeBundle.start();
        StoredSession again = Services.await(context, SessionStore.class, "").session(summary.sessionId())
                .orElseThrow();
        assertEquals(s, again);
        assertTrue(run("hp:store"), run("hp:store").contains(store.toString()));
    }

    private String run(String line) throws Exception {
        return StoreSupport.run(context, line);
    }
}
