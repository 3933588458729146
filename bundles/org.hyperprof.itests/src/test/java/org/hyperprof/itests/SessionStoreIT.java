package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.Test;
import org.osgi.framework.Bundle;

/**
 * The session store in a framework: a profile of the default host lands in the store (in the test's
 * own folder, never the user's default store), hp:sessions lists it, and it is still there after the
 * store bundle stops and starts again; sessions are named by the commands that make them, and a study's
 * are hidden.
 */
public class SessionStoreIT extends InFramework {

    public SessionStoreIT() {
        super("opreport", "metatype", "fileinstall", "gogo", "shell", "study");
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
        String listed = gogo("hp:sessions");
        assertTrue(listed, listed.lines().anyMatch(l -> l.startsWith(summary.sessionId() + " ")
                && l.contains(" it-host ") && l.endsWith(" completed")));

        storeBundle.stop();
        storeBundle.start();
        StoredSession again = Services.await(context, SessionStore.class, "").session(summary.sessionId())
                .orElseThrow();
        assertEquals(s, again);
        assertTrue(gogo("hp:store"), gogo("hp:store").contains(store.toString()));

        // Archived, deleted and restored: the same session, its id kept (hp:archive, hp:restore).
        long id = summary.sessionId();
        Path archive = store.resolveSibling("session.zip");
        String archived = gogo("hp:archive " + id + " " + archive);
        assertTrue(archived, archived.startsWith("archived session " + id + " to " + archive));
        gogo("hp:delete " + id);
        String restored = gogo("hp:restore " + archive);
        assertTrue(restored, restored.startsWith("restored session " + id + " (it-host, simulator, "));
        assertEquals(s, Services.await(context, SessionStore.class, "").session(id).orElseThrow());

        // In the same test: DuckDB, once loaded, stays loaded in the JVM, which the first check must not see.
        sessionsNamedWhenMadeAndAStudysHidden(store.getParent());
    }

    /**
     * Stored sessions through the commands that make them: hp:profile --name names its session in the store
     * (the name given as the command returns survives the store's final row, written on its own thread), a
     * taken name is refused before the run, hp:sql reads the store, and the sessions hp:study --jobs 1 makes are
     * hidden from hp:sessions and shown by hp:sessions --all.
     */
    private void sessionsNamedWhenMadeAndAStudysHidden(Path folder) throws Exception {
        SessionStore store = Services.await(context, SessionStore.class, "");
        String made = gogo("hp:profile --ms 20 --no-report --name baseline");
        assertFalse(made, made.contains("failed"));
        long id = store.named("baseline").orElseThrow(() -> new AssertionError(made)).id();
        StoredSession baseline = StoreSupport.ended(store, id);
        assertEquals("baseline", baseline.name());
        assertEquals(StoredSession.COMPLETED, baseline.status());

        String again = gogo("hp:profile --ms 20 --no-report --name baseline");
        assertTrue(again, again.contains("--name baseline is taken by stored session " + id));
        assertFalse("refused before the run: " + again, again.contains("profiling "));

        String listed = gogo("hp:sessions --name baseline --format csv");
        assertEquals(listed, 2, listed.lines().count());
        String sql = gogo("hp:sql \"SELECT name FROM sessions WHERE id = " + id + "\"");
        assertEquals("name\nbaseline\n", sql);

        String study = gogo("hp:study --policies systemwide --seeds 1 --ms 5 --jobs 1 --out " + folder);
        assertFalse(study, study.contains("failed"));
        List<StoredSession> all = store.sessions(new SessionQuery(true, null, null, 0));
        List<StoredSession> studied = all.stream().filter(s -> s.study() != null).toList();
        assertFalse("the study's sessions are stored: " + all, studied.isEmpty());
        assertTrue(studied.toString(), studied.stream().allMatch(s -> s.hidden() && s.study().startsWith("hp:study ")));
        List<StoredSession> visible = store.sessions(SessionQuery.visible());
        assertEquals(all.size() - studied.size(), visible.size());
        assertEquals(visible.size() + 1, gogo("hp:sessions --format csv").lines().count());
        assertEquals(all.size() + 1, gogo("hp:sessions --all --format csv").lines().count());
    }
}
