package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;

/**
 * What keeps a running session's rows across the death of its process: its owner (table {@code owners})
 * written with its running row, checkpoints that write its rows so far with the owner in one
 * transaction, and at each open of the store the marking of running sessions whose process is gone as
 * {@code incomplete}, with the rows of their last checkpoint. Loaded only once DuckDB is (as
 * {@link StoreFile}); the component calls it in words free of DuckDB's types.
 */
final class RunningSessions {
    static final String CHECKPOINT = "checkpoint";
    static final String END = "end";

    private RunningSessions() {
    }

    /** Writes a session's running row and its owner, together. */
    static void begin(StoreFile file, SessionRow row, ProcessOwner owner) throws StoreException {
        file.write(c -> StoreFile.inTransaction(c, tx -> {
            StoreFile.putSession(tx, row);
            putOwner(tx, row.session().id(), owner, null);
            return null;
        }));
    }

    /**
     * Writes a running session's rows so far, replacing its previous checkpoint's, with its owner and the
     * checkpoint's time, in one transaction. Waits for no other process's lock: a checkpoint that finds
     * the store locked is skipped, the next one writes it all.
     */
    static void checkpoint(StoreFile file, SessionRow row, SessionInfo info, SampleRows rows, SessionSummary books,
            ProcessOwner owner, Instant at, TransactionHook hook) throws StoreException {
        file.write(c -> StoreFile.inTransaction(c, tx -> {
            SessionWriter.writeIn(tx, row, info, rows, books, true);
            putOwner(tx, row.session().id(), owner, at);
            hook.inside(row.session().id(), CHECKPOINT);
            return null;
        }), 0);
    }

    /**
     * Writes an ended session whole ({@link SessionWriter}: its owner goes with its previous rows, those
     * of its checkpoints when {@code checkpointed}).
     */
    static void end(StoreFile file, SessionRow row, SessionInfo info, SampleRows rows, SessionSummary summary,
            boolean checkpointed, TransactionHook hook) throws StoreException {
        file.write(c -> StoreFile.inTransaction(c, tx -> {
            SessionWriter.writeIn(tx, row, info, rows, summary, checkpointed);
            hook.inside(row.session().id(), END);
            return null;
        }));
    }

    /** Writes a session's row cut short by the store's stop; it has no owner from then on. */
    static void cutShort(StoreFile file, SessionRow row) throws StoreException {
        file.write(c -> StoreFile.inTransaction(c, tx -> {
            StoreFile.putSession(tx, row);
            deleteOwner(tx, row.session().id());
            return null;
        }));
    }

    /**
     * Marks {@code incomplete} every running session whose owner's process is gone from this host, with
     * a note that says as of when its rows are; sessions of live processes (another Hyperprof sharing
     * the store) and of other hosts stay running. Called at each open of the store.
     */
    static void markOrphans(DuckDBConnection c, ProcessOwner here) throws SQLException, IOException {
        List<Object[]> orphans = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT o.session, o.host, o.pid,"
                + " o.process_started_ms, o.checkpoint_at FROM owners o JOIN sessions s ON s.id = o.session"
                + " WHERE s.status = '" + StoredSession.RUNNING + "'")) {
            while (r.next()) {
                ProcessOwner owner = new ProcessOwner(r.getString(2), r.getLong(3), r.getLong(4));
                if (owner.goneFrom(here)) {
                    orphans.add(new Object[] {r.getLong(1), r.getTimestamp(5)});
                }
            }
        }
        if (orphans.isEmpty()) {
            return;
        }
        StoreFile.inTransaction(c, tx -> {
            for (Object[] o : orphans) {
                long id = (Long) o[0];
                Timestamp checkpoint = (Timestamp) o[1];
                String note = checkpoint == null
                        ? "its process ended before the session did, before its first checkpoint: no rows stored"
                        : "its process ended before the session did; rows as of the last checkpoint at "
                                + checkpoint.toInstant();
                try (PreparedStatement s = tx.prepareStatement("UPDATE sessions SET status = ?, end_reason = ?,"
                        + " ended_at = ?, notes = list_append(notes, ?) WHERE id = ?")) {
                    s.setString(1, StoredSession.INCOMPLETE);
                    s.setString(2, note);
                    s.setTimestamp(3, checkpoint);
                    s.setString(4, note);
                    s.setLong(5, id);
                    s.executeUpdate();
                }
                deleteOwner(tx, id);
            }
            return null;
        });
    }

    private static void putOwner(DuckDBConnection c, long id, ProcessOwner owner, Instant checkpoint)
            throws SQLException {
        deleteOwner(c, id);
        try (PreparedStatement s = c.prepareStatement("INSERT INTO owners VALUES (?, ?, ?, ?, ?)")) {
            s.setLong(1, id);
            s.setString(2, owner.host());
            s.setLong(3, owner.pid());
            s.setLong(4, owner.startedMillis());
            s.setTimestamp(5, checkpoint == null ? null : Timestamp.from(checkpoint));
            s.executeUpdate();
        }
    }

    private static void deleteOwner(DuckDBConnection c, long id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM owners WHERE session = ?")) {
            s.setLong(1, id);
            s.executeUpdate();
        }
    }
}
