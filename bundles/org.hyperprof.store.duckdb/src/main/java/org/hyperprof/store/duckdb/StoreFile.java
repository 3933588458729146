package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.QueryRows;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.SessionQuery;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoreInfo;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * The store's DuckDB file: opened for a write or query and closed {@value #KEEP_ALIVE_MILLIS} ms after
 * the last (a session's start and end writes share one open and one checkpoint of DuckDB's log), so that two
 * Hyperprof processes share it (DuckDB lets one process write a file at a time; the other waits for
 * the lock, at most the configured time). The only class that touches DuckDB: the component loads it
 * when a session first needs the store, so DuckDB's native library (0.5 s to load) is never loaded by
 * a framework that stores nothing.
 */
final class StoreFile {
    /** The schema this code writes and reads (README: "The session store"). */
    static final int SCHEMA_VERSION = 3;

    private static final String SCHEMA = "schema-v3.sql";
    /** The scripts that take a store of version 1 to version 2, and of version 2 to version 3. */
    private static final List<String> MIGRATIONS = List.of("migrate-v1-v2.sql", "migrate-v2-v3.sql");
    private static final long LOCK_RETRY_MILLIS = 50;
    /** How long the file stays open after its last use: short, as another process waits meanwhile. */
    static final long KEEP_ALIVE_MILLIS = 500;

    private final Path path;
    private final long lockWaitMillis;
    /** This process, as the owner of the sessions it writes while they run. */
    private final ProcessOwner owner = ProcessOwner.current();
    private boolean copiesSwept;
    /** The open connection, kept until {@link #KEEP_ALIVE_MILLIS} after its last use; null when closed. */
    private DuckDBConnection kept;
    private ScheduledFuture<?> closing;
    /** Closes the kept connection; its one thread ends when idle, so a dropped store holds none. */
    private final ScheduledThreadPoolExecutor idle = idleCloser();

    StoreFile(Path path, long lockWaitMillis) {
        this.path = path;
        this.lockWaitMillis = lockWaitMillis;
    }

    private static ScheduledThreadPoolExecutor idleCloser() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "hyperprof store closer");
            t.setDaemon(true);
            return t;
        });
        e.setKeepAliveTime(KEEP_ALIVE_MILLIS * 2, TimeUnit.MILLISECONDS);
        e.allowCoreThreadTimeOut(true);
        e.setRemoveOnCancelPolicy(true);
        return e;
    }

    /** Closes the file now if it is open (DuckDB checkpoints its log), for a connection of other settings. */
    synchronized void release() {
        if (closing != null) {
            closing.cancel(false);
            closing = null;
        }
        if (kept != null) {
            try {
                kept.close();
            } catch (SQLException e) {
                // Closing a connection that failed: DuckDB replays its log at the next open.
            }
            kept = null;
        }
    }

    /**
     * The kept connection, or a new one kept from now on; the schema checked and orphans marked (a
     * failure closes it: the caller's {@link #used}).
     */
    private DuckDBConnection open(long lockWait) throws SQLException, IOException {
        if (closing != null) {
            closing.cancel(false);
            closing = null;
        }
        if (kept == null) {
            makeFolder();
            boolean fresh = !Files.exists(path);
            kept = connect(lockWait);
            if (fresh && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            }
        }
        // At each use, kept or not: another connection may have changed the version, an owner may be gone.
        checkSchema(kept);
        RunningSessions.markOrphans(kept, owner);
        return kept;
    }

    /** After a use: closes the file once idle, at once when the use failed. */
    private void used(boolean failed) {
        if (failed) {
            release();
        } else if (kept != null) {
            closing = idle.schedule(this::release, KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    ProcessOwner owner() {
        return owner;
    }

    Path path() {
        return path;
    }

    /** Work on an open store; a StoreException says what the user asked wrong (an unknown session). */
    @FunctionalInterface
    interface Work<T> {
        T run(DuckDBConnection c) throws SQLException, IOException, StoreException;
    }

    /** Work done in one transaction. */
    @FunctionalInterface
    interface Transaction<T> {
        T run(DuckDBConnection c) throws SQLException, IOException;
    }

    // What the component asks, in words free of DuckDB's types: its own class (methods and lambdas
    // alike) must load before DuckDB's bundle is there, to find and install it.

    /** Writes the session's row whole (made or replaced). */
    void put(SessionRow row) throws StoreException {
        write(c -> {
            putSession(c, row);
            return null;
        });
    }

    /** Writes an ended session whole: its row, samples, names, stacks, counters and books. */
    void put(SessionRow row, SessionInfo info, SampleRows rows, SessionSummary summary) throws StoreException {
        write(c -> SessionWriter.write(c, row, info, rows, summary));
    }

    List<StoredSession> sessions(SessionQuery query) throws StoreException {
        return read(c -> sessions(c, query), List.of());
    }

    Optional<StoredSession> session(long id) throws StoreException {
        return read(c -> session(c, id), Optional.empty());
    }

    boolean delete(long id) throws StoreException {
        return read(c -> delete(c, id), false);
    }

    /** The stored session read back whole, as its consumers saw it ({@link SessionReader}). */
    Optional<SessionReader.Recording> recording(long id) throws StoreException {
        return read(c -> SessionReader.read(c, id), Optional.empty());
    }

    SessionDiff diff(DiffRequest request) throws StoreException {
        return found(read(c -> DiffQuery.diff(c, request), null), request.baseline());
    }

    List<DiffStack> diffStacks(DiffRequest request) throws StoreException {
        return found(read(c -> DiffQuery.stacks(c, request), null), request.baseline());
    }

    List<StoredStack> stacks(long id, int event, int domain) throws StoreException {
        return found(read(c -> StackQuery.stacks(c, id, event, domain), null), id);
    }

    long merge(List<Long> ids, String name, String hostId) throws StoreException {
        return found(read(c -> SessionMerge.merge(c, ids, name, hostId), null), ids.get(0));
    }

    /** What a query of session {@code id} found: null when there is no store yet. */
    private static <T> T found(T answer, long id) throws StoreException {
        if (answer == null) {
            throw new StoreException("no stored session " + id + " (the store is empty: hp:store)");
        }
        return answer;
    }

    Optional<StoredSession> named(String name) throws StoreException {
        return read(c -> named(c, name), Optional.empty());
    }

    boolean name(long id, String name) throws StoreException {
        return read(c -> SessionMarks.name(c, id, name), false);
    }

    boolean label(long id, List<String> labels, boolean remove) throws StoreException {
        return read(c -> SessionMarks.label(c, id, labels, remove), false);
    }

    boolean study(long id, String study) throws StoreException {
        return read(c -> SessionMarks.study(c, id, study), false);
    }

    /** Deletes the sessions {@code r} does not keep at {@code now}; the line that says what, if any were. */
    Optional<String> prune(Retention r, Instant now) throws StoreException {
        return read(c -> Optional.ofNullable(Pruning.prune(c, r, now)), Optional.empty());
    }

    QueryRows query(String sql, int maxRows) throws StoreException {
        return readOnly(c -> LockedQuery.run(c, sql, maxRows));
    }

    /** Runs {@code work} on a read-only connection of its own, locked down ({@link LockedQuery}). */
    synchronized <T> T readOnly(Work<T> work) throws StoreException {
        if (!Files.exists(path)) {
            throw new StoreException("there is no session store at " + path + " yet: it is made when the first"
                    + " session is stored (hp:store)");
        }
        release();
        try (DuckDBConnection c = connect(lockWaitMillis, LockedQuery.lockdown())) {
            return work.run(c);
        } catch (LockedQuery.Refused e) {
            throw new StoreException(e.getMessage(), e);
        } catch (SQLException | IOException e) {
            throw new StoreException("the session store " + path + " could not be read: " + message(e), e);
        }
    }

    /** Opens the store (made with its schema when missing), runs {@code work} and closes it. */
    <T> T write(Work<T> work) throws StoreException {
        return write(work, lockWaitMillis);
    }

    /** The same, waiting for another process's lock at most {@code lockWait} ms. */
    synchronized <T> T write(Work<T> work, long lockWait) throws StoreException {
        return run(work, lockWait, "written");
    }

    /** Runs {@code work} on the store if it exists; {@code none} when it does not (a query makes no store). */
    synchronized <T> T read(Work<T> work, T none) throws StoreException {
        if (kept == null && !Files.exists(path)) {
            return none;
        }
        return run(work, lockWaitMillis, "read");
    }

    /**
     * Runs {@code work} on the open store, then keeps the connection for the next use or, when the work
     * failed, lets it go; a failure is said as the store that could not be {@code done} (read, written).
     */
    private <T> T run(Work<T> work, long lockWait, String done) throws StoreException {
        boolean failed = true;
        try {
            T result = work.run(open(lockWait));
            failed = false;
            return result;
        } catch (SQLException | IOException e) {
            throw new StoreException("the session store " + path + " could not be " + done + ": " + message(e), e);
        } finally {
            used(failed);
        }
    }

    private void makeFolder() throws IOException {
        Path folder = path.getParent();
        if (folder != null && !Files.isDirectory(folder)) {
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(folder);
            }
        }
    }

    /** A connection, waiting for another process's lock at most {@code lockWaitMillis}. */
    private DuckDBConnection connect(long lockWaitMillis) throws SQLException, StoreLockedException {
        return connect(lockWaitMillis, new Properties());
    }

    /** A connection with {@code settings} besides the store's own, waiting for a lock as above. */
    private DuckDBConnection connect(long lockWaitMillis, Properties settings)
            throws SQLException, StoreLockedException {
        if (!copiesSwept) {
            NativeLibraryCopies.sweep(NativeLibraryCopies.temporaryFolder(), Instant.now());
        }
        Properties p = settings();
        p.putAll(settings);
        long deadline = System.nanoTime() + lockWaitMillis * 1_000_000L;
        while (true) {
            try {
                Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + path, p);
                if (!copiesSwept) {
                    NativeLibraryCopies.removeLoaded();
                    copiesSwept = true;
                }
                return (DuckDBConnection) c;
            } catch (SQLException e) {
                if (!locked(e)) {
                    throw e;
                }
                if (System.nanoTime() > deadline) {
                    throw new StoreLockedException("another process holds its lock (waited " + lockWaitMillis
                            + " ms): " + message(e));
                }
                try {
                    Thread.sleep(LOCK_RETRY_MILLIS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new StoreLockedException("interrupted while waiting for another process's lock");
                }
            }
        }
    }

    /**
     * The settings the store opens DuckDB with: in one process, DuckDB opens a file open already only
     * with the same settings (a test reading the store while it is kept open uses these).
     */
    static Properties settings() {
        Properties p = new Properties();
        // Nothing is ever downloaded: every extension the store needs is built in.
        p.setProperty("autoinstall_known_extensions", "false");
        p.setProperty("autoload_known_extensions", "false");
        // One thread: the store takes at most one core from the work it records (on the 2-core machine
        // hp:sessions over 10,000 sessions and a diff of 100,000-row sessions were no slower for it).
        p.setProperty("threads", "1");
        return p;
    }

    /** The store's lock is held by another process past the wait. */
    static final class StoreLockedException extends IOException {
        private static final long serialVersionUID = 1L;

        StoreLockedException(String message) {
            super(message);
        }
    }

    private static boolean locked(SQLException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("Could not set lock") || m.contains("Conflicting lock");
    }

    /**
     * Makes the schema in a store with no tables, migrates a store of an older version (1 or 2);
     * refuses a store of a newer version, or no store.
     */
    private void checkSchema(DuckDBConnection c) throws SQLException, IOException {
        if (current(c)) {
            return;
        }
        List<String> tables = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT table_name FROM information_schema.tables"
                        + " WHERE table_schema = 'main' ORDER BY table_name")) {
            while (r.next()) {
                tables.add(r.getString(1));
            }
        }
        if (tables.isEmpty()) {
            run(c, statements(script(SCHEMA)));
            return;
        }
        if (!tables.contains("schema_version")) {
            throw new IOException("it holds tables " + tables + " but no schema_version: it is no Hyperprof"
                    + " session store; set the path of org.hyperprof.store to another file");
        }
        int version;
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT max(version) FROM schema_version")) {
            version = r.next() ? r.getInt(1) : 0;
        }
        if (version >= 1 && version < SCHEMA_VERSION) {
            // The columns its tables lack, version by version, then the tables it lacks as the schema makes them.
            List<String> migration = new ArrayList<>();
            for (String step : MIGRATIONS.subList(version - 1, MIGRATIONS.size())) {
                migration.addAll(statements(script(step)));
            }
            for (String statement : statements(script(SCHEMA))) {
                String created = createdTable(statement);
                if (created != null && !tables.contains(created)) {
                    migration.add(statement);
                }
            }
            run(c, migration);
            return;
        }
        if (version != SCHEMA_VERSION) {
            throw new IOException("its schema is version " + version + ", and this Hyperprof reads version "
                    + SCHEMA_VERSION + " only: use the Hyperprof that made it, or move the file away (or set the"
                    + " path of org.hyperprof.store to a new file) to start a new store");
        }
    }

    /**
     * Whether the store is of this version, asked first at each open: listing the tables (DuckDB's
     * catalog views) took 20 to 100 ms of each open, the version 1 ms. False when there is no version.
     */
    private static boolean current(DuckDBConnection c) {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT max(version) FROM schema_version")) {
            return r.next() && r.getInt(1) == SCHEMA_VERSION;
        } catch (SQLException e) {
            // No schema_version: a new store, or no store of ours; the tables tell which.
            return false;
        }
    }

    /** One of the bundle's SQL scripts (the schema, a migration). */
    private static String script(String name) throws IOException {
        try (InputStream in = StoreFile.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the bundle lacks its script " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The table a {@code CREATE TABLE} statement makes, or null for another statement. */
    static String createdTable(String statement) {
        Matcher m = CREATE_TABLE.matcher(statement);
        return m.matches() ? m.group(1) : null;
    }

    private static final Pattern CREATE_TABLE = Pattern.compile("(?s)^CREATE TABLE (\\w+) .*");

    /** Runs statements in one transaction. */
    private static void run(DuckDBConnection c, List<String> statements) throws SQLException, IOException {
        inTransaction(c, tx -> {
            try (Statement s = tx.createStatement()) {
                for (String statement : statements) {
                    s.execute(statement);
                }
            }
            return null;
        });
    }

    /** Runs {@code work} in one transaction: committed whole, or rolled back whole when it fails. */
    static <T> T inTransaction(DuckDBConnection c, Transaction<T> work) throws SQLException, IOException {
        c.setAutoCommit(false);
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | IOException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** The script's statements: comment lines dropped, each ending with ';' at the end of a line. */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder b = new StringBuilder();
        for (String line : script.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("--")) {
                continue;
            }
            b.append(line).append('\n');
            if (t.endsWith(";")) {
                out.add(b.toString().strip());
                b.setLength(0);
            }
        }
        return out;
    }

    static String message(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
        int newline = m.indexOf('\n');
        return newline < 0 ? m : m.substring(0, newline);
    }

    // ---------------------------------------------------------------- the sessions table

    private static final String COLUMNS = "id, host_id, source, name, labels, what, cpu_type, cpu_name, mhz, events,"
            + " started_at, ended_at, status, end_reason, samples, taken, delivered, lost, dropped, invalid, received,"
            + " missed, notes, study, hidden, time_bucket_ns, profiled_ns, simulated_cycles, ground_truth, xen_total,"
            + " xen_active, xen_passive, xen_lost, xen_others, xen_idle, xen_invalid_buffer, xen_corrupted_buffer,"
            + " origin, ship_pending, demangled";

    /** Writes the session's row whole (made or replaced). */
    static void putSession(DuckDBConnection c, SessionRow row) throws SQLException {
        String marks = String.join(", ", Collections.nCopies(COLUMNS.split(",").length, "?"));
        // Deleted and inserted: DuckDB's INSERT OR REPLACE of a row of 40 columns took twice as long.
        try (PreparedStatement d = c.prepareStatement("DELETE FROM sessions WHERE id = ?")) {
            d.setLong(1, row.session().id());
            d.executeUpdate();
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO sessions (" + COLUMNS + ") VALUES (" + marks
                + ")")) {
            StoredSession v = row.session();
            Accounting a = v.accounting();
            XenoprofStatistics x = row.xen();
            Object[] values = {v.id(), v.hostId(), v.source(), v.name(), strings(c, v.labels()), v.what(), v.cpuType(),
                row.cpuName(), row.mhz(), strings(c, v.events()), Timestamp.from(v.startedAt()),
                v.endedAt() == null ? null : Timestamp.from(v.endedAt()), v.status(), row.endReason(), v.samples(),
                a.taken(), a.delivered(), a.lost(), a.dropped(), a.invalid(), v.received(), v.missed(),
                strings(c, v.notes()), v.study(), v.hidden(), SampleRows.TIME_BUCKET_NANOS,
                v.profiledNanos() < 0 ? null : v.profiledNanos(), row.simulatedCycles(), row.groundTruth(),
                x == null ? null : x.totalSamples(), x == null ? null : x.activeSamples(),
                x == null ? null : x.passiveSamples(), x == null ? null : x.lostSamples(),
                x == null ? null : x.othersSamples(), x == null ? null : x.idleSamples(),
                x == null ? null : x.invalidBufferSamples(), x == null ? null : x.corruptedBufferSamples(),
                c.createArrayOf("BIGINT", v.origin().toArray()), false, row.demangled()};
            for (int i = 0; i < values.length; i++) {
                s.setObject(i + 1, values[i]);
            }
            s.executeUpdate();
        }
    }

    static Array strings(DuckDBConnection c, List<String> values) throws SQLException {
        return c.createArrayOf("VARCHAR", values.toArray());
    }

    /**
     * What a read of sessions selects: the numbers and times as they are, the text and lists packed, read
     * by their positions below (by name, the driver's case-blind search for each was a tenth of a listing).
     */
    private static final String READ = "id, started_at, ended_at, samples, taken, delivered, lost, dropped, invalid,"
            + " received, missed, hidden, profiled_ns, " + PackedText.select(List.of("host_id", "source", "name",
                    "labels", "what", "cpu_type", "events", "status", "notes", "study", "origin"),
                    List.of("labels", "events", "notes", "origin"));
    private static final int ID = 1, STARTED = 2, ENDED = 3, SAMPLES = 4, TAKEN = 5, DELIVERED = 6, LOST = 7,
            DROPPED = 8, INVALID = 9, RECEIVED = 10, MISSED = 11, HIDDEN = 12, PROFILED = 13, PACKED = 14;

    /** The sessions {@code q} selects, newest first. */
    static List<StoredSession> sessions(DuckDBConnection c, SessionQuery q) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + READ + " FROM sessions WHERE true");
        List<Object> args = new ArrayList<>();
        if (!q.all()) {
            sql.append(" AND NOT hidden");
        }
        if (q.since() != null) {
            sql.append(" AND started_at >= ?");
            args.add(Timestamp.from(q.since()));
        }
        if (q.source() != null) {
            sql.append(" AND source = ?");
            args.add(q.source());
        }
        sql.append(" ORDER BY started_at DESC, id DESC");
        if (q.limit() > 0) {
            sql.append(" LIMIT ").append(q.limit());
        }
        try (PreparedStatement s = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < args.size(); i++) {
                s.setObject(i + 1, args.get(i));
            }
            return rows(s);
        }
    }

    static Optional<StoredSession> session(DuckDBConnection c, long id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT " + READ + " FROM sessions WHERE id = ?")) {
            s.setLong(1, id);
            return rows(s).stream().findFirst();
        }
    }

    static Optional<StoredSession> named(DuckDBConnection c, String name) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT " + READ + " FROM sessions WHERE name = ?")) {
            s.setString(1, name);
            return rows(s).stream().findFirst();
        }
    }

    private static List<StoredSession> rows(PreparedStatement s) throws SQLException {
        List<StoredSession> out = new ArrayList<>();
        try (ResultSet r = s.executeQuery()) {
            while (r.next()) {
                Timestamp ended = r.getTimestamp(ENDED);
                PackedText t = new PackedText(r.getString(PACKED));
                String host = t.text();
                String source = t.text();
                String name = t.text();
                List<String> labels = t.list();
                String what = t.text();
                String cpuType = t.text();
                List<String> events = t.list();
                String status = t.text();
                List<String> notes = t.list();
                String study = t.text();
                // The sessions it came from: none for a source's session (and for rows of schema version 1).
                List<Long> origin = t.list().stream().map(Long::valueOf).toList();
                out.add(new StoredSession(r.getLong(ID), host, source, name, labels, what, cpuType, events,
                        r.getTimestamp(STARTED).toInstant(), ended == null ? null : ended.toInstant(), status,
                        r.getLong(SAMPLES), new Accounting(r.getLong(TAKEN), r.getLong(DELIVERED),
                                r.getLong(LOST), r.getLong(DROPPED), r.getLong(INVALID)),
                        r.getLong(RECEIVED), r.getLong(MISSED), notes, study, r.getBoolean(HIDDEN), origin,
                        profiled(r)));
            }
        }
        return out;
    }

    private static long profiled(ResultSet r) throws SQLException {
        long ns = r.getLong(PROFILED);
        return r.wasNull() ? -1 : ns;
    }

    /** The tables that hold a session's rows besides its row in {@code sessions}, keyed by {@code session}. */
    static final List<String> SESSION_TABLES = List.of("samples", "stacks", "names", "mappings", "truth", "counters",
            "buffers", "consumers", "host_counters", "owners");

    /** Deletes the session's rows in every table, in one transaction; whether it was there. */
    static boolean delete(DuckDBConnection c, long id) throws SQLException, IOException {
        return inTransaction(c, tx -> {
            for (String table : SESSION_TABLES) {
                try (PreparedStatement s = tx.prepareStatement("DELETE FROM " + table + " WHERE session = ?")) {
                    s.setLong(1, id);
                    s.executeUpdate();
                }
            }
            try (PreparedStatement s = tx.prepareStatement("DELETE FROM sessions WHERE id = ?")) {
                s.setLong(1, id);
                return s.executeUpdate() > 0;
            }
        });
    }

    StoreInfo info() throws StoreException {
        long sessions = read(c -> {
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM sessions")) {
                return r.next() ? r.getLong(1) : 0L;
            }
        }, 0L);
        long bytes;
        try {
            bytes = Files.exists(path) ? Files.size(path) : 0;
        } catch (IOException e) {
            bytes = 0;
        }
        return new StoreInfo(path.toString(), bytes, sessions, SCHEMA_VERSION);
    }
}
