package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;

/**
 * Profiles outlive the framework that made them: one framework stores two sessions and stops;
 * the next, a new framework with a new store bundle on the same file, lists both with their
 * metadata and reports each, replayed from the store, exactly as the first reported it live.
 * Pax Exam starts a framework for each method ({@link PerMethod}), in name order; the first
 * leaves what it made in a file beside the store for the second.
 */
@ExamReactorStrategy(PerMethod.class)
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class FrameworkRestartIT extends InFramework {
    /** A fixed place under the build's output (each method's framework is new: nothing else carries over). */
    private static final Path FOLDER = Path.of("target", "framework-restart-it").toAbsolutePath();
    private static final Path STORE = FOLDER.resolve("store.duckdb");

    public FrameworkRestartIT() {
        super("opreport", "metatype", "fileinstall", "gogo", "shell");
    }

    @Test
    public void a_oneFrameworkStoresTwoSessionsAndStops() throws Exception {
        if (Files.exists(FOLDER)) {
            try (var files = Files.walk(FOLDER)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(FOLDER);
        SessionStore store = storeOn();
        for (String name : List.of("before", "after")) {
            String made = gogo("hp:profile --ms 20 --no-report --name " + name);
            StoredSession s = store.named(name).orElseThrow(() -> new AssertionError("no session named " + name
                    + ": " + made));
            s = StoreSupport.ended(store, s.id());
            assertEquals(s.toString(), StoredSession.COMPLETED, s.status());
            Files.writeString(FOLDER.resolve(name + ".id"), Long.toString(s.id()));
            Files.writeString(FOLDER.resolve(name + ".report"), gogo("hp:report --session " + s.id()),
                    StandardCharsets.UTF_8);
        }
    }

    @Test
    public void b_theNextFrameworkListsAndReportsThem() throws Exception {
        assertTrue("the method before this one stores the sessions (run the whole class)",
                Files.exists(FOLDER.resolve("after.id")));
        SessionStore store = storeOn();
        String listed = gogo("hp:sessions --format csv");
        for (String name : List.of("before", "after")) {
            long id = Long.parseLong(Files.readString(FOLDER.resolve(name + ".id")));
            StoredSession s = store.session(id).orElseThrow(() -> new AssertionError("session " + id + " is gone"));
            assertEquals(name, s.name());
            assertEquals("restart", s.hostId());
            assertEquals(StoredSession.COMPLETED, s.status());
            assertTrue(s.toString(), s.samples() > 0 && s.accounting().balanced());
            assertTrue(listed, listed.lines().anyMatch(l -> l.startsWith(id + "," + name + ",")
                    && l.contains(",restart,") && l.contains(",completed")));
            assertEquals("the report replayed from the store is the one the first framework printed",
                    Files.readString(FOLDER.resolve(name + ".report"), StandardCharsets.UTF_8),
                    gogo("hp:report --session " + id));
        }
    }

    /** The store on this test's file, DuckDB's bundle and the store's installed and started. */
    private SessionStore storeOn() throws Exception {
        StoreSupport.storeAt(context, STORE, "restart");
        installAndStart("duckdb");
        installAndStart("store");
        return Services.await(context, SessionStore.class, "");
    }
}
