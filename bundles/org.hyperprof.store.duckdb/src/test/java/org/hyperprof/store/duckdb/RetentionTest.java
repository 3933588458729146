package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** retention.count and retention.age: the oldest go first, each prune says what it deleted, and why. */
class RetentionTest {
    @TempDir
    Path folder;

    private static List<Long> stored(StoreFixture f) throws StoreException {
        return f.store.sessions(new SessionQuery(true, null, null, 0)).stream().map(StoredSession::id).toList();
    }

    /** The lines retention printed, each without its times. */
    private static List<String> said(StoreFixture f) {
        return f.problems().lines().map(l -> l.replaceAll(" started [0-9T:Z-]+", "")).toList();
    }

    @Test
    void theNewestCountAreKeptAndTheOldestDeletedAfterEachSessionIsStored() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"), new Retention(3, null, ""));
        for (long id = 1; id <= 5; id++) {
            f.profile(id, "simulator");
        }
        assertEquals(List.of(5L, 4L, 3L), stored(f));
        assertEquals(List.of("hyperprof: retention deleted 1 session (oldest 1, newest 1): over retention.count=3",
                "hyperprof: retention deleted 1 session (oldest 2, newest 2): over retention.count=3"), said(f));
        assertEquals(List.of(), f.store.query("SELECT DISTINCT session FROM samples WHERE session < 3", 10).rows(),
                "each with all its rows");
    }

    @Test
    void aRunningSessionAndOneTheOutboxHoldsAreNeverDeleted() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"), new Retention(1, null, ""));
        f.store.sessionStarted(f.info(1, "simulator"));
        f.store.samples(f.batch(1));
        f.store.sessionEnded(StoreFixture.ended(1, 10, 0));
        f.execute("UPDATE sessions SET ship_pending = true WHERE id = 1");
        f.store.sessionStarted(f.info(2, "simulator"));
        f.profile(3, "simulator");
        f.profile(4, "simulator");
        assertEquals(List.of(4L, 2L, 1L), stored(f), "the newest, the running one and the unshipped one");
        assertEquals(List.of("hyperprof: retention deleted 1 session (oldest 3, newest 3): over retention.count=1"),
                said(f));
        f.store.sessionEnded(StoreFixture.ended(2, 0, 0));
        assertEquals(List.of(4L, 1L), stored(f), "once it ended it may go");
    }

    @Test
    void sessionsOlderThanTheAgeAreDeletedAndTheLineSaysWhy() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"), new Retention(0, Duration.ofDays(30), "30d"));
        f.profile(1, "simulator");
        f.profile(2, "simulator");
        f.profile(3, "simulator");
        f.execute("UPDATE sessions SET started_at = started_at - INTERVAL 40 DAY WHERE id <= 2");
        assertEquals("", f.problems(), "nothing was older than 30 days when they were stored");
        f.profile(4, "simulator");
        assertEquals(List.of(4L, 3L), stored(f));
        assertEquals(List.of("hyperprof: retention deleted 2 sessions (oldest 1, newest 2): older than"
                + " retention.age=30d"), said(f));
    }

    @Test
    void bothLimitsAreNamedWhenASessionIsOverBoth() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"), new Retention(2, Duration.ofDays(30), "30d"));
        f.profile(1, "simulator");
        f.profile(2, "simulator");
        f.execute("UPDATE sessions SET started_at = started_at - INTERVAL 40 DAY WHERE id = 2");
        f.profile(3, "simulator");
        assertEquals(List.of(3L, 1L), stored(f), "by start: 3, 1, then 2, the third and 40 days old");
        assertEquals(List.of("hyperprof: retention deleted 1 session (oldest 2, newest 2): over retention.count=2"
                + " and older than retention.age=30d"), said(f));
    }

    @Test
    void hpStorePruneAppliesRetentionNowAndSaysWhatItDeleted() throws Exception {
        Path file = folder.resolve("store.duckdb");
        StoreFixture before = new StoreFixture(file);
        for (long id = 1; id <= 3; id++) {
            before.profile(id, "simulator");
        }
        CommandOutput output = new CommandOutput();
        new StoreCommands(before.store, output.console, ZoneOffset.UTC).store("--prune", "--format", "csv");
        assertEquals("retention deleted nothing (hp:config org.hyperprof.store shows retention.count and"
                + " retention.age)\n", output.errors());
        StoreFixture limited = new StoreFixture(file, new Retention(1, null, ""));
        new StoreCommands(limited.store, output.console, ZoneOffset.UTC).store("--prune", "--format", "csv");
        assertTrue(output.errors().matches("retention deleted 2 sessions \\(oldest 1 started \\S+, newest 2 started"
                + " \\S+\\): over retention.count=1\n"));
        assertTrue(output.printed().endsWith(",1,3\n"), "then the store: 1 session, schema 3");
        assertEquals(List.of(3L), stored(limited));
    }

    /** The store's settings as Configuration Admin would give them: {@code values} over the defaults. */
    private static StoreConfiguration configuration(Map<String, Object> values) {
        return (StoreConfiguration) Proxy.newProxyInstance(StoreConfiguration.class.getClassLoader(),
                new Class<?>[] {StoreConfiguration.class},
                (proxy, method, args) -> values.getOrDefault(method.getName(), method.getDefaultValue()));
    }

    @Test
    void settingsWrittenWrongAreSaidAndLimitNothing() {
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream problems = new PrintStream(said, true, StandardCharsets.UTF_8);
        assertFalse(Retention.of(configuration(Map.of()), problems).limits(), "by default nothing is deleted");
        Retention r = Retention.of(configuration(Map.of("retention_count", 50, "retention_age", " 30d ")), problems);
        assertEquals(new Retention(50, Duration.ofDays(30), "30d"), r);
        assertEquals("", said.toString(StandardCharsets.UTF_8));
        Retention wrong = Retention.of(configuration(Map.of("retention_count", -1, "retention_age", "30 days")),
                problems);
        assertFalse(wrong.limits());
        assertEquals("hyperprof: retention.count is 0 (no limit) or more, not -1; no count limit\n"
                + "hyperprof: retention.age takes an age (90s, 30m, 12h, 7d) or nothing (no limit), not '30 days';"
                + " no age limit\n", said.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withNoLimitNothingIsDeleted() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        for (long id = 1; id <= 3; id++) {
            f.profile(id, "simulator");
        }
        assertEquals(3, stored(f).size());
        assertTrue(f.problems().isEmpty(), f.problems());
    }
}
