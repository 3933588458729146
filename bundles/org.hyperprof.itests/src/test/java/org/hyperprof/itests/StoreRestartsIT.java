package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.Test;
import org.osgi.framework.Bundle;

/**
 * Stopping and starting the store bundle 100 times, with a session stored after every tenth start,
 * neither leaks nor breaks it: no thread of DuckDB's more, the JVM's threads do not grow with the
 * restarts, DuckDB's native library is loaded once (one copy mapped, its file removed), and every
 * session is stored.
 */
public class StoreRestartsIT extends InFramework {
    private static final int RESTARTS = 100;
    private static final int SESSION_EVERY = 10;

    public StoreRestartsIT() {
        super("gogo");
    }

    @Test
    public void theStoreBundleStopsAndStarts100TimesWithNoThreadOrLibraryCopyLeftAndStillStores() throws Exception {
        StoreSupport.ownStore(context, "restarts");
        installAndStart("duckdb");
        Bundle storeBundle = installAndStart("store");
        hosts().load(HostService.DEFAULT_SCENARIO, null);
        // Earlier tests' frameworks in this JVM may have mapped copies of their own.
        Set<String> earlier = mappedCopies();
        List<Long> sessions = new ArrayList<>();
        sessions.add(stored());
        int duckDbThreads = duckDbThreads();
        int threads = tasks();
        Set<String> copies = mappedCopies();
        copies.removeAll(earlier);
        assertEquals("the first session mapped one copy of DuckDB's library: " + copies, 1, copies.size());

        for (int restart = 1; restart <= RESTARTS; restart++) {
            storeBundle.stop();
            storeBundle.start();
            if (restart % SESSION_EVERY == 0) {
                sessions.add(stored());
            }
        }

        assertTrue("DuckDB's threads grew from " + duckDbThreads + ": " + threadNames(),
                duckDbThreads() <= duckDbThreads);
        // A thread left by each restart would add 100; the JVM's own (compilers, GC) come and go by a few.
        assertTrue("the JVM's threads grew from " + threads + " to " + tasks() + ": " + threadNames(),
                tasks() - threads < RESTARTS / 4);
        Set<String> added = mappedCopies();
        added.removeAll(earlier);
        assertEquals("DuckDB's library is still the one copy loaded first", copies, added);
        for (String copy : copies) {
            assertFalse(copy + " was removed once loaded", Files.exists(Path.of(copy)));
        }
        List<Long> listed = Services.await(context, SessionStore.class, "")
                .sessions(new SessionQuery(true, null, null, 0)).stream().map(StoredSession::id).toList();
        assertEquals(sessions.size(), listed.size());
        assertTrue(listed.containsAll(sessions));
        String table = gogo("hp:sessions");
        assertTrue(table, table.lines().filter(l -> l.endsWith(" completed")).count() == sessions.size());
    }

    /** A profile of the default host, once the store (started again) has stored it whole. */
    private long stored() throws Exception {
        SessionStore store = Services.await(context, SessionStore.class, "");
        SessionSummary summary = profile(profiler(), 20_000);
        StoredSession s = StoreSupport.ended(store, summary.sessionId());
        assertEquals(s.toString(), StoredSession.COMPLETED, s.status());
        assertEquals(summary.accounting(), s.accounting());
        return s.id();
    }

    /** Java threads whose name says DuckDB's (its driver's query-cancel scheduler). */
    private static int duckDbThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().toLowerCase(Locale.ROOT).contains("duckdb")).count();
    }

    /** All of the JVM's threads, native ones (DuckDB's workers) included. */
    private static int tasks() throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            return (int) tasks.count();
        }
    }

    private static List<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted().toList();
    }

    /** The files of DuckDB's library this JVM has mapped (each load maps a new copy). */
    private static Set<String> mappedCopies() throws Exception {
        Set<String> copies = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int slash = line.indexOf('/');
            if (slash >= 0 && line.contains("libduckdb_java")) {
                copies.add(line.substring(slash).replace(" (deleted)", ""));
            }
        }
        return copies;
    }
}
