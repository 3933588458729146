package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.Test;

/**
 * Stored sessions through the commands that make them: hp:profile --name names its session in the store
 * (the name given as the command returns survives the store's final row, written on its own thread), a
 * taken name is refused before the run, hp:sql reads the store, and the sessions hp:study makes are
 * hidden from hp:sessions and shown by hp:sessions --all.
 */
public class StoredSessionsIT extends InFramework {

    public StoredSessionsIT() {
        super("opreport", "metatype", "fileinstall", "gogo", "shell", "study");
    }

    @Test
    public void sessionsNamedWhenMadeAndAStudysHidden() throws Exception {
        Path folder = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "stored-it");
        SessionStoreIT.startStore(this, folder.resolve("store.duckdb"));
        SessionStore store = Services.await(context, SessionStore.class, "");

        String made = gogo("hp:profile --ms 20 --no-report --name baseline");
        assertFalse(made, made.contains("failed"));
        long id = store.named("baseline").orElseThrow(() -> new AssertionError(made)).id();
        StoredSession baseline = SessionStoreIT.ended(store, id);
        assertEquals("baseline", baseline.name());
        assertEquals(StoredSession.COMPLETED, baseline.status());

        String again = gogo("hp:profile --ms 20 --no-report --name baseline");
        assertTrue(again, again.contains("--name baseline is taken by stored session " + id));
        assertFalse("refused before the run: " + again, again.contains("profiling "));

        String listed = gogo("hp:sessions --name baseline --format csv");
        assertEquals(listed, 2, listed.lines().count());
        assertTrue(gogo("hp:sql \"SELECT name FROM sessions WHERE id = " + id + "\""),
                gogo("hp:sql \"SELECT name FROM sessions WHERE id = " + id + "\"").contains("baseline"));

        String study = gogo("hp:study --policies systemwide --ms 5 --out " + folder);
        assertFalse(study, study.contains("failed"));
        List<StoredSession> all = store.sessions(new SessionQuery(true, null, null, 0));
        List<StoredSession> studied = all.stream().filter(s -> s.study() != null).toList();
        assertFalse("the study's sessions are stored: " + all, studied.isEmpty());
        assertTrue(studied.toString(), studied.stream().allMatch(s -> s.hidden() && s.study().startsWith("hp:study ")));
        assertEquals(List.of(id), store.sessions(SessionQuery.visible()).stream().map(StoredSession::id).toList());
        assertEquals(gogo("hp:sessions --format csv"), 2, gogo("hp:sessions --format csv").lines().count());
        assertEquals(gogo("hp:sessions --all --format csv"), all.size() + 1,
                gogo("hp:sessions --all --format csv").lines().count());
    }
}
