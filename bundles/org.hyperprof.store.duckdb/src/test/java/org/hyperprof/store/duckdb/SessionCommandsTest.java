package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** hp:sql reads the store and nothing else: every way out of it is refused by the engine, in one line. */
class SessionCommandsTest {
    @TempDir
    Path folder;

    private final CommandOutput output = new CommandOutput();
    private StoreFixture f;
    private SessionCommands sql;

    @BeforeEach
    void twoSessions() {
        f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "perf.data");
        sql = new SessionCommands(f.store, output.console);
    }

    private String printed() {
        return output.printed();
    }

    private String errors() {
        return output.errors();
    }

    /** The one line hp:sql prints when {@code query} fails, which exits 1. */
    private String refusal(String query) {
        CommandFailure failed = assertThrows(CommandFailure.class, () -> sql.sql(query), query);
        assertEquals(CommandFailure.FAILED, failed.status(), query);
        String text = errors();
        String[] lines = text.split("\n");
        assertEquals(1, lines.length, "one line, no stack trace: " + text);
        assertTrue(lines[0].startsWith("hp:sql: the query was refused: "), lines[0]);
        return lines[0];
    }

    @Test
    void aSelectOverSessionsSamplesAndNamesIsPrintedAsTheListingsAre() {
        sql.sql("SELECT s.id, s.source, sum(x.samples) AS samples FROM sessions s JOIN samples x ON x.session = s.id"
                + " GROUP BY s.id, s.source ORDER BY s.id");
        assertEquals("id  source     samples\n1   simulator  10\n2   perf.data  10\n", printed());
        sql.sql("SELECT n.name, sum(x.samples) AS samples FROM samples x JOIN names n ON n.session = x.session"
                + " AND n.kind = 'symbol' AND n.id = x.symbol WHERE x.session = 1 GROUP BY n.name ORDER BY 2 DESC",
                "--format", "csv");
        assertEquals("name,samples\nschedule,5\nmain,3\ntcp_v4_rcv,2\n", printed());
        sql.sql("--format", "json", "SELECT count(*) AS n FROM sessions");
        assertEquals("[\n  {\"n\": \"2\"}\n]\n", printed());
    }

    @Test
    void rowsPastTheLimitAreLeftOffAndCounted() {
        sql.sql("SELECT * FROM range(5) t(i)", "--limit", "2");
        assertEquals("i\n0\n1\n(3 more rows left off: --limit 2)\n", printed());
        sql.sql("SELECT * FROM range(1500) t(i)", "--format", "csv");
        assertEquals(1001, printed().split("\n").length, "the header and the default 1000 rows");
        assertEquals("(500 more rows left off: --limit 1000)\n", errors(), "beside a script's rows, not among them");
    }

    @Test
    void noFileIsReadThroughIt() {
        assertTrue(refusal("SELECT * FROM read_text('/etc/shadow')").contains("file system operations are disabled"));
        Path csv = folder.resolve("secret.csv");
        assertTrue(refusal("SELECT * FROM read_csv('" + csv + "')").contains("disabled by configuration"));
        assertTrue(refusal("SELECT * FROM '" + csv + "'").contains("disabled by configuration"));
    }

    @Test
    void noFileIsWrittenThroughIt() {
        Path copy = folder.resolve("copy.csv");
        assertTrue(refusal("COPY sessions TO '" + copy + "'").contains("disabled by configuration"));
        assertFalse(Files.exists(copy));
        Path other = folder.resolve("other.duckdb");
        assertTrue(refusal("ATTACH '" + other + "' AS other").contains("disabled by configuration"));
        assertFalse(Files.exists(other));
    }

    @Test
    void noExtensionIsInstalledOrLoaded() {
        assertTrue(refusal("INSTALL httpfs").contains("disabled by configuration"));
        assertTrue(refusal("LOAD httpfs").contains("disabled through configuration"));
    }

    @Test
    void noSettingIsChangedSoTheLocksStay() {
        assertTrue(refusal("SET enable_external_access = true").contains("the configuration has been locked"));
        assertTrue(refusal("RESET lock_configuration").contains("the configuration has been locked"));
        assertTrue(refusal("SET access_mode = 'READ_WRITE'").contains("the configuration has been locked"));
    }

    @Test
    void theStoreIsNotWritten() throws Exception {
        assertTrue(refusal("INSERT INTO sessions SELECT * FROM sessions").contains("read-only mode"));
        assertTrue(refusal("DELETE FROM samples").contains("read-only mode"));
        assertTrue(refusal("CREATE TABLE mine (x INTEGER)").contains("read-only mode"));
        assertEquals(2, f.store.info().sessions());
        f.profile(3, "simulator");
        assertEquals(3, f.store.info().sessions(), "the store writes as before: nothing of the query's stays");
    }

    @Test
    void aStoreThatDoesNotExistYetIsSaidSo() {
        StoreFixture none = new StoreFixture(folder.resolve("none").resolve("store.duckdb"));
        SessionCommands c = new SessionCommands(none.store, output.console);
        assertThrows(CommandFailure.class, () -> c.sql("SELECT 1"));
        assertEquals("hp:sql: there is no session store at " + none.path + " yet: it is made when the first session"
                + " is stored (hp:store)\n", errors());
        assertFalse(Files.exists(none.path), "a query makes no store");
    }

    @Test
    void aQueryIsNeededAndGogosHelpShowsTheArguments() throws Exception {
        assertEquals(CommandFailure.USAGE, assertThrows(CommandFailure.class, () -> sql.sql()).status());
        assertTrue(errors().contains("usage: hp:sql <query> [--limit N]"), errors());
        assertEquals(SessionCommands.SQL.arguments(), SessionCommands.class.getMethod("sql", String[].class).getParameters()[0]
                .getAnnotation(Descriptor.class).value());
    }
}
