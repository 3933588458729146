package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;

/**
 * A session as one portable file, and back (README: "Archives"): a zip of the manifest and, for every
 * table of the schema with a {@code session} column and for {@code sessions}, a Parquet file of the
 * session's rows, written and read by DuckDB itself. Names are resolved when a session is stored (the
 * names table, the truth rows' names), so the rows are all its reports need: no scenario, no binary.
 * DuckDB reads and writes files only in a {@link PrivateFolder}; the user's file is read by
 * {@link ArchiveReader} and written by OutputFiles.
 */
final class SessionArchive {
    private static final String SESSIONS = "sessions";
    private static final String SHIP_PENDING = "ship_pending";

    private SessionArchive() {
    }

    // ---------------------------------------------------------------- archive

    /** Writes the archive of session {@code id} to {@code out}: its tables read in one snapshot, then zipped. */
    static void write(StoreFile store, long id, OutputStream out) throws IOException {
        try (PrivateFolder folder = PrivateFolder.make("hyperprof-archive-")) {
            ArchiveManifest manifest;
            try {
                manifest = store.read(c -> StoreFile.inTransaction(c, tx -> export(tx, id, folder)), null);
            } catch (StoreException e) {
                throw new IOException(e.getMessage(), e);
            }
            if (manifest == null) {
                throw new IOException("the session store " + store.path() + " is gone");
            }
            zip(manifest, folder, out);
        }
    }

    /** Each table's rows of the session as a Parquet file in {@code folder}; the manifest that lists them. */
    static ArchiveManifest export(DuckDBConnection c, long id, PrivateFolder folder) throws SQLException, IOException {
        String host = null;
        try (PreparedStatement s = c.prepareStatement("SELECT host_id FROM sessions WHERE id = ?")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    host = r.getString(1);
                }
            }
        }
        if (host == null) {
            throw new IOException("no stored session " + id + " (hp:sessions lists them)");
        }
        List<ArchiveManifest.Entry> entries = new ArrayList<>();
        for (String table : tables(c)) {
            ArchiveManifest.Entry e = new ArchiveManifest.Entry(table, 0, 0, "");
            Path file = folder.file(e.name());
            long rows;
            try (Statement s = c.createStatement()) {
                // The id is a number and the table a name from the catalogue: nothing of the user's is in the text.
                String select = "SELECT * FROM " + quote(table) + " WHERE " + key(table) + " = " + id;
                try (ResultSet r = s.executeQuery("SELECT count(*) FROM (" + select + ")")) {
                    r.next();
                    rows = r.getLong(1);
                }
                // In the order written (a replay adds the ground truth's rows in that order), kept by the restore.
                s.execute("COPY (" + select + " ORDER BY rowid) TO " + PrivateFolder.literal(file)
                        + " (FORMAT parquet)");
            }
            entries.add(new ArchiveManifest.Entry(table, rows, Files.size(file), sha256(file)));
        }
        return new ArchiveManifest(ArchiveManifest.FORMAT, StoreFile.SCHEMA_VERSION, hyperprofVersion(), id, host,
                Instant.now(), entries);
    }

    /**
     * The session's tables: {@code sessions} and every table with a {@code session} column, from the
     * catalogue, but {@code owners}: which process of this host writes a running session is this store's
     * own business, never another machine's.
     */
    static List<String> tables(DuckDBConnection c) throws SQLException {
        Set<String> tables = new LinkedHashSet<>(List.of(SESSIONS));
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT table_name FROM information_schema.columns WHERE table_schema"
                        + " = 'main' AND column_name = 'session' AND table_name <> 'owners' ORDER BY table_name")) {
            while (r.next()) {
                tables.add(r.getString(1));
            }
        }
        return new ArrayList<>(tables);
    }

    private static String key(String table) {
        return table.equals(SESSIONS) ? "id" : "session";
    }

    private static String quote(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private static void zip(ArchiveManifest manifest, PrivateFolder folder, OutputStream out) throws IOException {
        ZipOutputStream zip = new ZipOutputStream(out);
        entry(zip, ArchiveManifest.NAME, manifest.created());
        zip.write(manifest.bytes());
        zip.closeEntry();
        for (ArchiveManifest.Entry e : manifest.entries()) {
            entry(zip, e.name(), manifest.created());
            Files.copy(folder.file(e.name()), zip);
            zip.closeEntry();
        }
        zip.finish();
    }

    private static void entry(ZipOutputStream zip, String name, Instant created) throws IOException {
        ZipEntry z = new ZipEntry(name);
        z.setTime(created.toEpochMilli());
        zip.putNextEntry(z);
    }

    private static String sha256(Path file) throws IOException {
        var sha = ArchiveReader.sha256();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0;) {
                sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The Hyperprof that writes: this bundle's version, or "unknown" outside a framework (plain Java). */
    private static String hyperprofVersion() {
        Bundle b = FrameworkUtil.getBundle(SessionArchive.class);
        return b == null ? "unknown" : b.getVersion().toString();
    }

    // ---------------------------------------------------------------- restore

    /**
     * Restores the archive into the store in one transaction, its entries read into a private folder
     * first (deleted after, whatever happens).
     */
    static StoredSession restore(StoreFile store, Path archive, ArchiveReader.Limits limits) throws StoreException {
        try (PrivateFolder folder = PrivateFolder.make("hyperprof-restore-")) {
            ArchiveReader.Extracted x = ArchiveReader.read(archive, folder, limits);
            ArchiveManifest m = x.manifest();
            if (m.schema() > StoreFile.SCHEMA_VERSION) {
                // Refused before the store is opened (or made).
                throw new ArchiveException(archive, ArchiveException.WHOLE, "its rows are of the store's schema"
                        + " version " + m.schema() + " (Hyperprof " + ArchiveManifest.shown(m.hyperprofVersion())
                        + "), and this Hyperprof reads version " + StoreFile.SCHEMA_VERSION + " and older: restore it"
                        + " with that Hyperprof or a newer one");
            }
            try {
                return store.write(c -> StoreFile.inTransaction(c, tx -> load(tx, x, archive)));
            } catch (Refused r) {
                throw r.problem;
            }
        } catch (IOException e) {
            throw new StoreException("cannot restore " + archive + ": its private folder failed: " + e.getMessage(), e);
        }
    }

    /** A refusal inside the transaction (which rolls back on an unchecked exception), unwrapped after. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient ArchiveException problem;

        Refused(ArchiveException problem) {
            super(problem.getMessage(), problem, false, false);
            this.problem = problem;
        }
    }

    private static StoredSession load(DuckDBConnection c, ArchiveReader.Extracted x, Path archive)
            throws SQLException {
        ArchiveManifest m = x.manifest();
        List<String> tables = tables(c);
        for (ArchiveManifest.Entry e : m.entries()) {
            if (!tables.contains(e.table())) {
                throw refused(archive, e.name(), "table " + e.table() + " is not in this store's schema (version "
                        + StoreFile.SCHEMA_VERSION + ", tables " + tables + ")");
            }
        }
        if (m.schema() == StoreFile.SCHEMA_VERSION) {
            for (String t : tables) {
                if (m.entry(t) == null) {
                    throw refused(archive, t + ".parquet", "missing: schema version " + m.schema() + " has table " + t
                            + ", and every archive of it holds an entry for it");
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM sessions WHERE id = ?")) {
            s.setLong(1, m.session());
            try (ResultSet r = s.executeQuery()) {
                r.next();
                if (r.getLong(1) > 0) {
                    throw refused(archive, ArchiveException.WHOLE, "session " + m.session() + " is already stored"
                            + " (hp:sessions lists it): a restore keeps the archived id; to replace the stored one,"
                            + " hp:delete " + m.session() + " first");
                }
            }
        }
        // The session's row first: the others belong to it.
        List<ArchiveManifest.Entry> order = new ArrayList<>(m.entries());
        order.sort((a, b) -> Boolean.compare(!a.table().equals(SESSIONS), !b.table().equals(SESSIONS)));
        for (ArchiveManifest.Entry e : order) {
            insert(c, e, x.files().get(e.table()), m.session(), archive);
        }
        if (columns(c, SESSIONS).contains(SHIP_PENDING)) {
            // The outbox of the host that made it ships it; this store never does (nothing is shipped twice).
            try (PreparedStatement s = c.prepareStatement("UPDATE sessions SET " + SHIP_PENDING + " = false"
                    + " WHERE id = ?")) {
                s.setLong(1, m.session());
                s.executeUpdate();
            }
        }
        return StoreFile.session(c, m.session()).orElseThrow(() -> refused(archive, SESSIONS + ".parquet",
                "holds no row of session " + m.session()));
    }

    /** Inserts the entry's rows, each checked to be of the session, their number the manifest's. */
    private static void insert(DuckDBConnection c, ArchiveManifest.Entry e, Path file, long session, Path archive)
            throws SQLException {
        String parquet = "read_parquet(" + PrivateFolder.literal(file) + ")";
        List<String> columns = new ArrayList<>();
        List<String> known = columns(c, e.table());
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("DESCRIBE SELECT * FROM " + parquet)) {
                while (r.next()) {
                    String name = r.getString(1);
                    if (!known.contains(name)) {
                        throw refused(archive, e.name(), "column '" + name + "' is not in table " + e.table()
                                + " (its columns: " + known + ")");
                    }
                    columns.add(quote(name));
                }
            }
            String key = quote(key(e.table()));
            if (!columns.contains(key)) {
                throw refused(archive, e.name(), "it has no column " + key(e.table()));
            }
            long rows;
            long others;
            try (ResultSet r = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE " + key + " IS DISTINCT FROM "
                    + session + ") FROM " + parquet)) {
                r.next();
                rows = r.getLong(1);
                others = r.getLong(2);
            }
            if (rows != e.rows()) {
                throw refused(archive, e.name(), "it holds " + rows + " rows and the manifest says " + e.rows());
            }
            if (others > 0) {
                throw refused(archive, e.name(), others + " of its rows are not of session " + session
                        + ", the manifest's");
            }
            if (e.table().equals(SESSIONS) && rows != 1) {
                throw refused(archive, e.name(), "it holds " + rows + " rows; the session's own row is one");
            }
            String list = String.join(", ", columns);
            s.executeUpdate("INSERT INTO " + quote(e.table()) + " (" + list + ") SELECT " + list + " FROM " + parquet);
        } catch (SQLException x) {
            throw new Refused(new ArchiveException(archive, e.name(), ArchiveException.NO_OFFSET,
                    "its rows cannot be read into table " + e.table() + ": " + firstLine(x.getMessage())
                            + "; the archive is damaged, make it again with hp:archive", x));
        }
    }

    /** The table's columns, from the catalogue. */
    private static List<String> columns(DuckDBConnection c, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT column_name FROM information_schema.columns"
                + " WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position")) {
            s.setString(1, table);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    columns.add(r.getString(1));
                }
            }
        }
        return columns;
    }

    private static Refused refused(Path archive, String entry, String problem) {
        return new Refused(new ArchiveException(archive, entry, problem));
    }

    private static String firstLine(String m) {
        String t = m == null ? "" : m.strip();
        int n = t.indexOf('\n');
        return n < 0 ? t : t.substring(0, n);
    }
}
