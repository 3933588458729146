package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * hp:archive and hp:restore with real DuckDB: a session archived from one store and restored into an
 * empty one on a fresh path has every row it had, keeps its id, and refuses to come twice; every kind
 * of damaged or hostile archive is refused with one line naming the file and entry, and leaves neither
 * a half-restored session nor a temporary folder behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArchiveTest {
    /** One origin store and its archive for every test (no test changes them); each restore has a fresh store. */
    private Path folder;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private StoreFixture origin;
    private Path archive;

    @BeforeAll
    void archiveASession(@TempDir Path dir) {
        folder = dir;
        origin = new StoreFixture(folder.resolve("origin/store.duckdb"));
        origin.store.sessionStarted(origin.info(7, "simulator"));
        origin.store.samples(origin.batch(7));
        origin.store.sessionEnded(withTruth(7));
        origin.profile(8, "simulator");
        archive = folder.resolve("session-7.zip");
        commands(origin).archive("7", archive.toString());
    }

    @BeforeEach
    void clearOutput() {
        out.reset();
        err.reset();
    }

    /** The fixture's session's end with a row in every table: truth, buffers, Xen's statistics, host counters. */
    private static SessionSummary withTruth(long id) {
        long[] milli = new long[Signal.values().length];
        milli[0] = 5000;
        GroundTruth truth = new GroundTruth(List.of(new GroundTruth.Row(0, 0, CpuMode.KERNEL, "vmlinux",
                ImageKind.KERNEL, "schedule", milli)));
        Accounting books = new Accounting(14, 10, 1, 3, 0);
        return new SessionSummary(id, books, List.of(new BufferAccounting(1, 0, "active", books, 3, 7, 0, 10, 0)),
                List.of(new ConsumerAccounting(SessionStoreComponent.NAME, 10, 0, null)),
                new XenoprofStatistics(14, 10, 0, 1, 3, 3, 0, 0), truth, 2_000_000, SessionSummary.COMPLETED,
                Map.of("irq.postponed", 5L), List.of("a note"));
    }

    private ArchiveCommands commands(StoreFixture f) {
        return new ArchiveCommands(f.store, new OutputFilesComponent(), Console.of(new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Every row of the session in every table of the schema, each as text, sorted. */
    private static Map<String, List<String>> rows(Path store, long id) throws Exception {
        return new StoreFile(store, 2000).read(c -> {
            Map<String, List<String>> all = new TreeMap<>();
            for (String table : SessionArchive.tables(c)) {
                List<String> rows = new ArrayList<>();
                try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT * FROM " + table
                        + " WHERE " + (table.equals("sessions") ? "id" : "session") + " = " + id)) {
                    ResultSetMetaData m = r.getMetaData();
                    while (r.next()) {
                        StringBuilder b = new StringBuilder();
                        for (int i = 1; i <= m.getColumnCount(); i++) {
                            b.append(m.getColumnName(i)).append('=').append(r.getString(i)).append(' ');
                        }
                        rows.add(b.toString());
                    }
                }
                rows.sort(null);
                all.put(table, rows);
            }
            return all;
        }, Map.of());
    }

    @Test
    void aRestoredSessionHasEveryRowItHadWithItsIdInAnEmptyStoreOnAFreshPath() throws Exception {
        StoreFixture fresh = new StoreFixture(folder.resolve("elsewhere/new/store.duckdb"));
        commands(fresh).restore(archive.toString());
        assertEquals("restored session 7 (testhost, simulator, default-host, 10 samples)\n",
                out.toString(StandardCharsets.UTF_8));
        Map<String, List<String>> before = rows(origin.path, 7);
        assertEquals(Set.of("sessions", "samples", "stacks", "names", "mappings", "truth", "counters", "buffers",
                "consumers", "host_counters"), before.keySet(), "every table with a session column, from the catalogue");
        // The simulator's images have no files, so no mappings (SessionCommsTest archives a session with some).
        before.forEach((table, rows) -> assertTrue(rows.isEmpty() == table.equals("mappings"),
                table + " has rows to compare"));
        assertEquals(before, rows(fresh.path, 7));
        assertEquals(1, fresh.store.sessions(new SessionQuery(true, null, null, 0)).size(),
                "only the archived session came");
        // A session with empty tables (no truth, no buffers) comes as well, next to the first.
        Path other = folder.resolve("session-8.zip");
        commands(origin).archive("8", other.toString());
        commands(fresh).restore(other.toString());
        assertEquals(rows(origin.path, 8), rows(fresh.path, 8));
        assertEquals(List.of(), rows(fresh.path, 8).get("truth"));
        assertEquals(before, rows(fresh.path, 7));
    }

    @Test
    void aSessionAlreadyStoredIsRefusedWithWhatToDo() throws Exception {
        CommandFailure f = assertThrows(CommandFailure.class, () -> commands(origin).restore(archive.toString()));
        assertEquals(1, f.status());
        assertTrue(errors().contains("session 7 is already stored") && errors().contains("hp:delete 7 first"),
                errors());
        assertFalse(errors().contains("\tat "), "no stack trace");
        assertEquals(3, rows(origin.path, 7).get("samples").size(), "the stored session is untouched");
    }

    @Test
    void anUnknownSessionIsRefusedBeforeTheFileIsTouched() {
        Path target = folder.resolve("none.zip");
        assertThrows(CommandFailure.class, () -> commands(origin).archive("99", target.toString()));
        assertTrue(errors().contains("no stored session 99"), errors());
        assertFalse(Files.exists(target));
    }

    @Test
    void gogosHelpShowsEachCommandsArgumentsAsItsTableDoes() throws Exception {
        for (var c : Map.of("archive", ArchiveCommands.ARCHIVE, "restore", ArchiveCommands.RESTORE).entrySet()) {
            Method m = ArchiveCommands.class.getMethod(c.getKey(), String[].class);
            assertEquals(c.getValue().arguments(), m.getParameters()[0].getAnnotation(Descriptor.class).value(),
                    c.getValue().command());
        }
    }

    @Test
    void exportParquetWritesTheSamplesWithTheirNamesAsOneFlatTable() throws Exception {
        ParquetFileWriter writer = new ParquetFileWriter(origin.store);
        Path file = folder.resolve("export.parquet");
        new OutputFilesComponent().write(file, writer.content(new ReportRequest(7, ReportRequest.ALL_DOMAINS,
                Set.of()), "parquet"));
        assertEquals(List.of("Domain-0 kernel vmlinux schedule [tcp_v4_rcv] 5",
                "domU user /usr/bin/app main null 3", "Domain-0 kernel vmlinux tcp_v4_rcv null 2"),
                query(file, "SELECT domain_name, mode, image, symbol, callers, sum(samples) FROM read_parquet(?)"
                        + " GROUP BY ALL ORDER BY 6 DESC"));
        assertEquals(List.of("app CPU_CLK_UNHALTED:100000:0x00 3"), query(file, "SELECT process, event, sum(samples)"
                + " FROM read_parquet(?) WHERE pid = 700 GROUP BY ALL"));
        new OutputFilesComponent().write(file, writer.content(new ReportRequest(7, 1, Set.of()), "parquet"));
        assertEquals(List.of("main 3"), query(file, "SELECT symbol, sum(samples) FROM read_parquet(?) GROUP BY ALL"));
        ReportException e = assertThrows(ReportException.class, () -> writer.content(new ReportRequest(7,
                ReportRequest.ALL_DOMAINS, Set.of("image=^vmlinux")), "parquet"));
        assertTrue(e.getMessage().startsWith("parquet takes no report options"), e.getMessage());
        e = assertThrows(ReportException.class, () -> writer.content(new ReportRequest(99, ReportRequest.ALL_DOMAINS,
                Set.of()), "parquet"));
        assertTrue(e.getMessage().contains("no stored session 99"), e.getMessage());
    }

    /** The rows of a query over a Parquet file, each as its values separated by spaces. */
    private static List<String> query(Path parquet, String sql) throws Exception {
        return new StoreFile(parquet.resolveSibling("reader.duckdb"), 2000).write(c -> {
            List<String> rows = new ArrayList<>();
            try (var s = c.prepareStatement(sql)) {
                s.setString(1, parquet.toString());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        List<String> values = new ArrayList<>();
                        for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                            values.add(r.getString(i));
                        }
                        rows.add(String.join(" ", values));
                    }
                }
            }
            return rows;
        });
    }

    // ---------------------------------------------------------------- damaged and hostile archives

    /** Restores {@code damaged} into a fresh store: refused, one line naming the file, nothing restored. */
    private String refused(Path damaged) throws Exception {
        StoreFixture fresh = new StoreFixture(Files.createTempDirectory(folder, "fresh").resolve("store.duckdb"));
        err.reset();
        CommandFailure f = assertThrows(CommandFailure.class, () -> commands(fresh).restore(damaged.toString()));
        assertEquals(1, f.status());
        String line = errors();
        assertTrue(line.startsWith("hp:restore: archive " + damaged), line);
        assertEquals(1, line.lines().count(), "one line: " + line);
        assertFalse(line.contains("failed unexpectedly"), line);
        assertTrue(fresh.store.session(7).isEmpty(), "nothing of the session restored");
        try (Stream<Path> left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("hyperprof-restore-"))
                    .toList(), "the private folder is deleted");
        }
        return line;
    }

    @Test
    void aZipOfAnotherFormatVersionOrSchemaIsRefusedSayingWhichAndWhatToDo() throws Exception {
        String line = refused(TestArchives.rewrite(archive, folder.resolve("newer.zip"), e -> TestArchives.manifest(e,
                "archive.format=1", "archive.format=2")));
        assertTrue(line.contains("entry manifest.properties: it is of archive format 2") && line.contains(
                "reads format 1 and older: restore it with that Hyperprof or a newer one"), line);
        line = refused(TestArchives.rewrite(archive, folder.resolve("schema.zip"), e -> TestArchives.manifest(e,
                "schema.version=" + StoreFile.SCHEMA_VERSION, "schema.version=99")));
        assertTrue(line.contains("schema version 99") && line.contains("reads version " + StoreFile.SCHEMA_VERSION
                + " and older"), line);
    }

    @Test
    void anArchiveOfAnOlderSchemaMayLackTheTablesItsVersionHadNot() throws Exception {
        List<String> added = List.of("counters", "buffers", "consumers", "host_counters");
        Path older = TestArchives.rewrite(archive, folder.resolve("older.zip"), e -> {
            TestArchives.manifest(e, "schema.version=" + StoreFile.SCHEMA_VERSION, "schema.version=1");
            added.forEach(t -> TestArchives.dropTable(e, t));
        });
        StoreFixture fresh = new StoreFixture(Files.createTempDirectory(folder, "fresh").resolve("store.duckdb"));
        commands(fresh).restore(older.toString());
        Map<String, List<String>> restored = rows(fresh.path, 7);
        added.forEach(t -> assertEquals(List.of(), restored.get(t), t));
        assertEquals(rows(origin.path, 7).get("samples"), restored.get("samples"));
        String line = refused(TestArchives.rewrite(archive, folder.resolve("same.zip"), e -> TestArchives.dropTable(e,
                "counters")));
        assertTrue(line.contains("entry counters.parquet: missing: schema version " + StoreFile.SCHEMA_VERSION
                + " has table counters"), line);
    }

    @Test
    void aManifestThatDoesNotParseOrLacksAKeyIsRefused() throws Exception {
        assertTrue(refused(TestArchives.rewrite(archive, folder.resolve("a.zip"), e -> TestArchives.manifest(e,
                "archive.format=1", "archive.format=\\u12"))).contains("does not parse as properties"));
        assertTrue(refused(TestArchives.rewrite(archive, folder.resolve("b.zip"), e -> TestArchives.manifest(e,
                "session=7", ""))).contains("the key session is missing"));
        assertTrue(refused(TestArchives.rewrite(archive, folder.resolve("c.zip"), e -> TestArchives.manifest(e,
                "session=7", "session=7\nsession=8"))).contains("the key session is given twice"));
        assertTrue(refused(TestArchives.rewrite(archive, folder.resolve("d.zip"), e -> e.remove(
                ArchiveManifest.NAME))).contains("it has no manifest.properties: it is no Hyperprof archive"));
    }

    @Test
    void namesLeadingOutOfTheArchiveAreRefusedWhole() throws Exception {
        for (String name : List.of("../samples.parquet", "/tmp/samples.parquet", "..\\samples.parquet",
                "x/../../samples.parquet", "C:samples.parquet")) {
            String line = refused(TestArchives.rewrite(archive, folder.resolve("slip.zip"), e -> e.put(name,
                    new byte[] {1})));
            assertTrue(line.contains("(zip-slip); the archive is refused whole"), line);
        }
        assertFalse(Files.exists(folder.resolve("samples.parquet")));
    }

    @Test
    void unknownDuplicateAndMissingEntriesAreRefused() throws Exception {
        assertTrue(refused(TestArchives.rewrite(archive, folder.resolve("u.zip"), e -> e.put("notes.txt",
                new byte[] {1}))).contains("entry notes.txt: an entry the manifest does not list"));
        assertTrue(refused(TestArchives.rewrite(archive, folder.resolve("m.zip"), e -> e.remove("stacks.parquet")))
                .contains("entry stacks.parquet: missing: the manifest lists table stacks"));
        Path twice = TestArchives.rewrite(archive, folder.resolve("t.zip"), e -> e.put("samplez.parquet",
                e.get("samples.parquet")));
        byte[] bytes = Files.readAllBytes(twice);
        Files.write(twice, TestArchives.replace(bytes, "samplez.parquet", "samples.parquet"));
        assertTrue(refused(twice).contains("entry samples.parquet: given twice"));
    }

    @Test
    void aDamagedEntryOrZipIsRefusedNamingIt() throws Exception {
        String line = refused(TestArchives.rewrite(archive, folder.resolve("flip.zip"), e -> e.get("samples.parquet")
                [100] ^= 1));
        assertTrue(line.contains("entry samples.parquet: its SHA-256 is") && line.contains("copy it again"), line);
        line = refused(TestArchives.rewrite(archive, folder.resolve("long.zip"), e -> e.put("samples.parquet",
                TestArchives.concat(e.get("samples.parquet"), new byte[10]))));
        assertTrue(line.contains("entry samples.parquet: the zip says it holds"), line);
        byte[] whole = Files.readAllBytes(archive);
        Path garbled = folder.resolve("garbled.zip");
        Files.write(garbled, TestArchives.garble(whole, "samples.parquet", 20));
        line = refused(garbled);
        assertTrue(line.contains("entry samples.parquet at byte "), "the compressed bytes damaged: " + line);
        Path cut = folder.resolve("cut.zip");
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        assertTrue(refused(cut).contains("it is no zip file or a damaged one"));
        Path none = folder.resolve("none.zip");
        assertTrue(refused(none).contains(": no such file"));
    }

    @Test
    void aDamagedParquetEntryRollsBackTheWholeRestore() throws Exception {
        // Checksums made to match: only DuckDB's reader can tell, after the session's row went in.
        Path bad = TestArchives.rewrite(archive, folder.resolve("parquet.zip"), e -> {
            byte[] junk = "PAR1 this is no parquet PAR1".getBytes(StandardCharsets.US_ASCII);
            TestArchives.replaceEntry(e, "samples.parquet", junk);
        });
        String line = refused(bad);
        assertTrue(line.contains("entry samples.parquet: its rows cannot be read into table samples"), line);
    }

    @Test
    void sizeBombsAreRefusedBeforeAnythingIsExtracted() throws Exception {
        Path bomb = TestArchives.rewrite(archive, folder.resolve("bomb.zip"), e -> TestArchives.replaceEntry(e,
                "samples.parquet", new byte[4 << 20]));
        assertTrue(refused(bomb).contains("bytes uncompressed from a file of"), "the whole file expands too far");
        byte[] noise = new byte[2 << 20];
        new java.util.Random(17).nextBytes(noise);
        Path hidden = TestArchives.rewrite(archive, folder.resolve("hidden.zip"), e -> {
            TestArchives.replaceEntry(e, "names.parquet", noise);
            TestArchives.replaceEntry(e, "samples.parquet", new byte[3 << 20]);
        });
        String line = refused(hidden);
        assertTrue(line.contains("entry samples.parquet: 3145728 bytes compressed into")
                && line.contains("more than 200 times: refused as a size bomb"), "one entry expands too far: " + line);
        line = refused(TestArchives.rewrite(archive, folder.resolve("rows.zip"), e -> TestArchives.manifest(e,
                "table.samples.rows=3", "table.samples.rows=2000000000")));
        assertTrue(line.contains("entry samples.parquet: 2000000000 rows in"), "a run-length bomb: " + line);
        try (PrivateFolder f = PrivateFolder.make("hyperprof-restore-")) {
            ArchiveException e = assertThrows(ArchiveException.class, () -> ArchiveReader.read(archive, f,
                    new ArchiveReader.Limits(1000, 200, 1 << 20)));
            assertTrue(e.getMessage().contains("more than 1000 bytes uncompressed in all"), e.getMessage());
        }
    }

    @Test
    void anArchiveIsWrittenWholeOrNotAtAll() throws IOException {
        Path missingFolder = folder.resolve("no/such/folder/a.zip");
        assertThrows(CommandFailure.class, () -> commands(origin).archive("7", missingFolder.toString()));
        assertTrue(errors().startsWith("hp:archive: "), errors());
        assertFalse(Files.exists(missingFolder.getParent()));
    }
}
