package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.UsageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreCommandsTest {
    @TempDir
    Path folder;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private StoreCommands commands(StoreFixture f) {
        return new StoreCommands(f.store, Console.of(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)), ZoneOffset.UTC);
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void hpSessionsListsEachSessionNewestFirstWithItsMetadata() {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "perf.data");
        commands(f).sessions();
        String[] lines = printed().split("\n");
        assertEquals(3, lines.length, printed());
        assertTrue(lines[0].matches("ID +NAME +WHEN +HOST +SOURCE +WHAT +CPU +EVENTS +SAMPLES +STATUS +LABELS"), lines[0]);
        assertTrue(lines[1].matches("2 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +testhost +perf\\.data +default-host"
                + " +i386/p6 +CPU_CLK_UNHALTED:100000:0x00 +10 +completed"), lines[1]);
        assertTrue(lines[2].startsWith("1 "), lines[2]);
    }

    @Test
    void hpSessionsForScriptsAndItsFilters() {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "perf.data");
        commands(f).sessions("--source", "simulator", "--format", "csv");
        String[] lines = printed().split("\n");
        assertEquals("id,name,when,host,source,what,cpu,events,samples,status,labels", lines[0]);
        assertEquals(2, lines.length, printed());
        assertTrue(lines[1].startsWith("1,,") && lines[1].endsWith(",10,completed,"), lines[1]);
        out.reset();
        commands(f).sessions("--since", "1h", "--format", "json");
        assertTrue(printed().startsWith("[\n  {\"id\": \"2\", \"name\": \"\", \"when\": "), printed());
        out.reset();
        commands(f).sessions("--source", "folded");
        assertEquals("no stored sessions match (the store: hp:store)\n", printed());
    }

    @Test
    void hpStoreSaysWhereTheStoreIsAndWhatItHolds() {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        commands(f).store("--format", "csv");
        String[] lines = printed().split("\n");
        assertEquals("path,bytes,sessions,schema", lines[0]);
        assertTrue(lines[1].matches(java.util.regex.Pattern.quote(f.path.toString()) + ",\\d+,1,3"), lines[1]);
    }

    @Test
    void gogosHelpShowsEachCommandsArgumentsAsItsTableDoes() throws Exception {
        for (var c : Map.of("sessions", StoreCommands.SESSIONS, "store", StoreCommands.STORE, "delete",
                StoreCommands.DELETE, "name", SessionCommands.NAME, "label", SessionCommands.LABEL).entrySet()) {
            Class<?> commands = c.getValue().command().matches("hp:(name|label)") ? SessionCommands.class
                    : StoreCommands.class;
            Method m = commands.getMethod(c.getKey(), String[].class);
            assertEquals(c.getValue().arguments(), m.getParameters()[0].getAnnotation(Descriptor.class).value(),
                    c.getValue().command());
        }
    }

    @Test
    void hpDeleteDeletesTheSessionsNamedOrNoneWhenAnIdIsUnknown() throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        f.profile(2, "simulator");
        StoreCommands c = commands(f);
        CommandFailure failed = assertThrows(CommandFailure.class, () -> c.delete("1", "7"));
        assertEquals(1, failed.status());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no stored session 7 (hp:sessions lists them);"
                + " nothing was deleted"), err.toString(StandardCharsets.UTF_8));
        assertTrue(f.store.session(1).isPresent(), "a typo in one id deletes nothing");
        c.delete("1");
        assertEquals("deleted session 1\n", printed());
        assertTrue(f.store.session(1).isEmpty());
        assertTrue(f.store.session(2).isPresent());
        assertEquals(CommandFailure.USAGE, assertThrows(CommandFailure.class, () -> c.delete()).status());
    }

    @Test
    void sinceTakesDatesInstantsAndAgesAndRefusesTheRestWithWhatItTakes() throws Exception {
        StoreCommands c = commands(new StoreFixture(folder.resolve("store.duckdb")));
        Instant now = Instant.parse("2026-11-27T12:00:00Z");
        assertEquals(Instant.parse("2026-11-27T10:00:00Z"), c.since("2h", now));
        assertEquals(Instant.parse("2026-11-20T12:00:00Z"), c.since("7d", now));
        assertEquals(Instant.parse("2026-11-27T00:00:00Z"), c.since("2026-11-27", now));
        assertEquals(Instant.parse("2026-11-27T14:30:00Z"), c.since("2026-11-27T14:30", now));
        assertEquals(Instant.parse("2026-11-27T13:30:00Z"), c.since("2026-11-27T14:30:00+01:00", now));
        UsageException e = assertThrows(UsageException.class, () -> c.since("yesterday", now));
        assertTrue(e.getMessage().startsWith("--since takes a date (2026-11-27)"), e.getMessage());
    }

    @Test
    void aWrongWordIsAUsageErrorWithTheUsageLine() {
        StoreCommands c = commands(new StoreFixture(folder.resolve("store.duckdb")));
        CommandFailure f = assertThrows(CommandFailure.class, () -> c.sessions("--since", "soon"));
        assertEquals(CommandFailure.USAGE, f.status());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: hp:sessions [--all] [--since time]"),
                err.toString(StandardCharsets.UTF_8));
    }
}
