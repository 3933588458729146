package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.io.OutputStream;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.api.store.SessionShipping;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;

/**
 * The store as the fleet's outbox ({@link SessionOutbox}): {@code ship_pending} marks the sessions a
 * {@link SessionShipping} took as their end was stored, and their rows are read back as TabSeparated
 * text for the shipper to stream ({@link TabSeparatedRows}).
 */
final class Outbox {
    private Outbox() {
    }

    /**
     * Offers the session whose end was just stored to {@code shipping}: marked pending when it ships.
     * Its row is written already, so what ships is what the store holds.
     *
     * @return the session, when it is pending now
     */
    static Optional<StoredSession> offer(StoreFile f, long id, SessionShipping shipping) throws StoreException {
        return f.read(c -> {
            Optional<StoredSession> s = StoreFile.session(c, id);
            if (s.isEmpty() || StoredSession.RUNNING.equals(s.get().status()) || !s.get().origin().isEmpty()
                    || !shipping.ships(s.get())) {
                return Optional.<StoredSession>empty();
            }
            mark(c, id, true);
            return s;
        }, Optional.empty());
    }

    static List<StoredSession> pending(StoreFile f) throws StoreException {
        return f.read(c -> {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT id FROM sessions WHERE coalesce(ship_pending, false)"
                    + " AND status <> '" + StoredSession.RUNNING + "' ORDER BY started_at, id");
                    ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getLong(1));
                }
            }
            List<StoredSession> out = new ArrayList<>(ids.size());
            for (long id : ids) {
                StoreFile.session(c, id).ifPresent(out::add);
            }
            return out;
        }, List.of());
    }

    static boolean release(StoreFile f, long id) throws StoreException {
        return f.read(c -> mark(c, id, false), false);
    }

    private static boolean mark(DuckDBConnection c, long id, boolean pending) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE sessions SET ship_pending = ? WHERE id = ?")) {
            s.setBoolean(1, pending);
            s.setLong(2, id);
            return s.executeUpdate() > 0;
        }
    }

    static long copy(StoreFile f, long id, String table, String prefix, OutputStream out) throws StoreException,
            IOException {
        String sql = query(table).replace("?", Long.toString(id));
        try {
            return f.read(c -> {
                if (StoreFile.session(c, id).isEmpty()) {
                    throw new StoreException("the session store holds no session " + id);
                }
                if (table.equals("sessions")) {
                    // One row, with lists and times: written column by column.
                    try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
                        return new TabSeparatedRows(out, prefix).copy(r);
                    }
                }
                return chunks(c, sql, prefix, out);
            }, null);
        } catch (StoreException e) {
            if (e.getCause() instanceof IOException io) {
                throw io; // the shipper's stream failed (the server went away), not the store
            }
            throw e;
        }
    }

    /** Rows per chunk of text DuckDB hands over at once. */
    private static final int CHUNK_ROWS = 4096;

    /**
     * The rows of {@code sql} as TabSeparated text made by DuckDB itself, in chunks of {@value #CHUNK_ROWS}
     * lines: reading every cell through JDBC took ten times as long as the server took to insert them.
     */
    private static long chunks(DuckDBConnection c, String sql, String prefix, OutputStream out)
            throws SQLException, IOException {
        List<String> cells = new ArrayList<>();
        try (PreparedStatement d = c.prepareStatement("DESCRIBE " + sql); ResultSet r = d.executeQuery()) {
            while (r.next()) {
                cells.add(TabSeparatedText.cell("q.\"" + r.getString(1).replace("\"", "\"\"") + "\"", r.getString(2)));
            }
        }
        String lines = "SELECT string_agg(line, ''), count(*) FROM (SELECT ? || " + String.join(" || chr(9) || ", cells)
                + " || chr(10) AS line, (row_number() OVER ()) // " + CHUNK_ROWS + " AS chunk FROM (" + sql
                + ") q) GROUP BY chunk";
        long rows = 0;
        try (PreparedStatement s = c.prepareStatement(lines)) {
            s.setString(1, prefix);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.write(r.getString(1).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    rows += r.getLong(2);
                }
            }
        }
        return rows;
    }

    /** The columns of the session's rows of {@code table}, in the schema's order, the names beside samples. */
    static String query(String table) {
        if (!SessionOutbox.TABLES.contains(table)) {
            throw new IllegalArgumentException("no table " + table + " holds a session's rows (" + SessionOutbox.TABLES
                    + ")");
        }
        return switch (table) {
            // The fleet's schema is version 2's: what version 3 added (comms, demangling) stays home.
            case "sessions" -> "SELECT * EXCLUDE (ship_pending, demangled) FROM sessions WHERE id = ?";
            case "samples" -> "SELECT s.* EXCLUDE (comm), coalesce(ses.events[s.event + 1], '') AS event_name,"
                    + " coalesce(dn.name, '') AS domain_name, coalesce(im.name, '') AS image_name,"
                    + " coalesce(sy.name, '') AS symbol_name FROM samples s JOIN sessions ses ON ses.id = s.session"
                    // Each side kept to the session (the joins alone would read every session's names).
                    + " LEFT JOIN (SELECT * FROM names WHERE session = ?) dn ON dn.kind = 'domain' AND dn.id = s.domain"
                    + " LEFT JOIN (SELECT * FROM names WHERE session = ?) im ON im.kind = 'image' AND im.id = s.image"
                    + " LEFT JOIN (SELECT * FROM names WHERE session = ?) sy ON sy.kind = 'symbol' AND sy.id = s.symbol"
                    + " WHERE s.session = ? AND ses.id = ?";
            default -> "SELECT * FROM " + table + " WHERE session = ?";
        };
    }
}
