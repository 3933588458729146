package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Names, labels and a study's mark: said of a session while it runs or after, kept through its final row. */
class SessionMarksTest {
    @TempDir
    Path folder;

    private final CommandOutput output = new CommandOutput();

    private String printed() {
        return output.printed();
    }

    private static StoredSession stored(StoreFixture f, long id) throws StoreException {
        return f.store.session(id).orElseThrow();
    }

    @Test
    void aNameGivenWhileTheSessionIsOpenSurvivesItsFinalRow() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.store.sessionStarted(f.info(1, "simulator"));
        f.store.samples(f.batch(1));
        assertTrue(f.store.name(1, "baseline"));
        assertEquals("baseline", stored(f, 1).name(), "the running row shows it at once");
        f.store.sessionEnded(StoreFixture.ended(1, 10, 0));
        assertEquals("baseline", stored(f, 1).name());
        assertEquals(StoredSession.COMPLETED, stored(f, 1).status());
    }

    @Test
    void aNameGivenAfterTheSessionWasStoredUpdatesItsRow() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        assertTrue(f.store.name(1, "  after  "));
        assertEquals("after", stored(f, 1).name());
        assertEquals(1, f.store.named("after").orElseThrow().id());
        assertEquals(10, stored(f, 1).samples(), "the rest of the row is as it was");
        assertFalse(f.store.name(7, "nobody"), "no session 7");
    }

    @Test
    void aNameGivenWhileTheEndIsBeingWrittenIsNeverLost() throws Exception {
        // The command that made a session names it as it returns, while the store's delivery thread may be
        // writing its final row: whichever comes first, the name is in the stored row.
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        for (long id = 1; id <= 12; id++) {
            long session = id;
            f.store.sessionStarted(f.info(session, "simulator"));
            f.store.samples(f.batch(session));
            CyclicBarrier both = new CyclicBarrier(2);
            CompletableFuture<Void> end = CompletableFuture.runAsync(() -> {
                await(both);
                f.store.sessionEnded(StoreFixture.ended(session, 10, 0));
            });
            await(both);
            assertTrue(f.store.name(session, "run-" + session));
            end.join();
            StoredSession s = stored(f, session);
            assertEquals("run-" + session, s.name(), "session " + session);
            assertEquals(StoredSession.COMPLETED, s.status(), "session " + session);
        }
        assertEquals("", f.problems());
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aNameIsUniqueInTheStoreAndNeverANumber() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.store.sessionStarted(f.info(2, "simulator"));
        f.store.name(1, "baseline");
        StoreException taken = assertThrows(StoreException.class, () -> f.store.name(2, "baseline"));
        assertEquals("the name 'baseline' is taken by session 1 (names are unique in a store; hp:name 1 --clear"
                + " frees it)", taken.getMessage());
        f.store.name(2, "candidate");
        StoreException open = assertThrows(StoreException.class, () -> f.store.name(1, "candidate"));
        assertTrue(open.getMessage().startsWith("the name 'candidate' is taken by session 2"), open.getMessage());
        assertTrue(f.store.name(1, "baseline"), "a session may be given its own name again");
        for (String number : List.of("42", "0x2a", "-3")) {
            StoreException e = assertThrows(StoreException.class, () -> f.store.name(1, number));
            assertTrue(e.getMessage().startsWith("a session's name cannot be a number"), e.getMessage());
        }
        assertThrows(StoreException.class, () -> f.store.name(1, "two\nlines"));
        assertTrue(f.store.name(1, null));
        assertNull(stored(f, 1).name(), "null takes it away");
    }

    @Test
    void labelsAreAddedAndRemovedWhileItRunsAndAfter() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.store.sessionStarted(f.info(1, "simulator"));
        f.store.label(1, List.of("nightly", "x86"), false);
        f.store.sessionEnded(StoreFixture.ended(1, 10, 0));
        assertEquals(List.of("nightly", "x86"), stored(f, 1).labels());
        f.store.label(1, List.of("slow", "nightly"), false);
        assertEquals(List.of("nightly", "x86", "slow"), stored(f, 1).labels(), "a label is kept once");
        f.store.label(1, List.of("x86"), true);
        assertEquals(List.of("nightly", "slow"), stored(f, 1).labels());
        StoreException e = assertThrows(StoreException.class, () -> f.store.label(1, List.of("a,b"), false));
        assertTrue(e.getMessage().startsWith("a label is one word"), e.getMessage());
        assertFalse(f.store.label(9, List.of("x"), false));
    }

    @Test
    void hpNameAndHpLabelTakeASessionByIdOrByName() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "perf.data");
        SessionCommands c = new SessionCommands(f.store, output.console);
        c.name("1", "before-fix");
        assertEquals("session 1 is named before-fix\n", printed());
        c.label("before-fix", "nightly", "x86");
        assertEquals("session 1 labels: nightly,x86\n", printed());
        c.label("1", "x86", "--remove");
        assertEquals("session 1 labels: nightly\n", printed());
        c.name("before-fix", "--clear");
        assertEquals("session 1 has no name\n", printed());
        c.name("2", "2nd-run");
        c.label("2nd-run", "x86");
        assertEquals("session 2 is named 2nd-run\nsession 2 labels: x86\n", printed(), "a name may begin with a digit");
        assertThrows(CommandFailure.class, () -> c.label("nosuch", "x"));
        assertTrue(output.errors().contains("hp:label: no stored session is named 'nosuch'"));
        assertThrows(CommandFailure.class, () -> c.name("2", "7"));
        assertTrue(output.errors().contains("hp:name: a session's name cannot be a number"));
        assertEquals(CommandFailure.USAGE, assertThrows(CommandFailure.class, () -> c.label("1")).status());
    }

    @Test
    void hpSessionsShowsNamesAndLabelsAndFiltersByThem() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "simulator");
        f.profile(3, "simulator");
        f.store.name(1, "baseline");
        f.store.label(1, List.of("nightly"), false);
        f.store.label(3, List.of("nightly", "x86"), false);
        StoreCommands c = new StoreCommands(f.store, output.console, ZoneOffset.UTC);
        c.sessions("--format", "csv");
        String[] lines = printed().split("\n");
        assertTrue(lines[3].startsWith("1,baseline,") && lines[3].endsWith(",completed,nightly"), lines[3]);
        assertTrue(lines[1].startsWith("3,,") && lines[1].endsWith(",completed,\"nightly,x86\""), lines[1]);
        c.sessions("--name", "baseline", "--format", "csv");
        assertEquals(2, printed().split("\n").length);
        c.sessions("--label", "nightly", "--format", "csv");
        assertTrue(printed().matches("(?s)id,.*\n3,.*\n1,.*\n"));
        c.sessions("--label", "nightly", "--label", "x86", "--format", "csv");
        assertTrue(printed().matches("(?s)id,.*\n3,[^\n]*\n"));
        c.sessions("--label", "none");
        assertEquals("no stored sessions match (the store: hp:store)\n", printed());
    }

    @Test
    void aStudysSessionsAreHiddenFromTheListingButNotFromAll() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        String study = "study 2026-11-28T00:00:00Z";
        f.profile(3, "simulator");
        f.store.markStudy(3, study);
        f.store.sessionStarted(f.info(2, "simulator"));
        f.store.markStudy(2, study);
        f.store.sessionEnded(StoreFixture.ended(2, 10, 0));
        f.profile(1, "simulator");
        assertEquals(List.of(1L), f.store.sessions(SessionQuery.visible()).stream().map(StoredSession::id).toList());
        StoredSession hidden = stored(f, 2);
        assertTrue(hidden.hidden());
        assertEquals(study, hidden.study());
        StoreCommands c = new StoreCommands(f.store, output.console, ZoneOffset.UTC);
        c.sessions("--format", "csv");
        assertEquals(2, printed().split("\n").length, "the study's sessions are left out");
        c.sessions("--all", "--format", "csv");
        assertEquals(4, printed().split("\n").length, "--all shows them");
    }
}
