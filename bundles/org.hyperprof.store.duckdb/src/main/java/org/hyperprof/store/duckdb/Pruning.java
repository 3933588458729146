package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.store.StoredSession;

/**
 * {@link Retention} applied to the store: the newest {@code retention.count} sessions are kept, and of the
 * others, and of those older than {@code retention.age}, each that may go is deleted with all its rows.
 * A session still running (here or in another process) and one the fleet's outbox still holds
 * ({@code ship_pending}) never may: the store then keeps more than the count until they can go.
 */
final class Pruning {
    /** Every session, newest first, with whether retention may delete it. */
    private static final String SESSIONS = "SELECT id, started_at, status <> '" + StoredSession.RUNNING + "'"
            + " AND NOT coalesce(ship_pending, false) FROM sessions ORDER BY started_at DESC, id DESC";

    private Pruning() {
    }

    /** Deletes what {@code r} does not keep at {@code now}; the line that says what, or null when nothing was. */
    static String prune(DuckDBConnection c, Retention r, Instant now) throws SQLException, IOException {
        if (!r.limits()) {
            return null;
        }
        Instant oldestKept = r.age() == null ? null : now.minus(r.age());
        // Newest first, so the first deleted is the newest and the last the oldest.
        List<Long> ids = new ArrayList<>();
        List<Instant> starts = new ArrayList<>();
        boolean byCount = false;
        boolean byAge = false;
        try (PreparedStatement s = c.prepareStatement(SESSIONS); ResultSet rs = s.executeQuery()) {
            for (int newer = 0; rs.next(); newer++) {
                Instant started = rs.getTimestamp(2).toInstant();
                boolean over = r.count() > 0 && newer >= r.count();
                boolean old = oldestKept != null && started.isBefore(oldestKept);
                if ((over || old) && rs.getBoolean(3)) {
                    byCount |= over;
                    byAge |= old;
                    ids.add(rs.getLong(1));
                    starts.add(started);
                }
            }
        }
        if (ids.isEmpty()) {
            return null;
        }
        for (long id : ids) {
            StoreFile.delete(c, id);
        }
        List<String> why = new ArrayList<>();
        if (byCount) {
            why.add("over retention.count=" + r.count());
        }
        if (byAge) {
            why.add("older than retention.age=" + r.ageText());
        }
        int last = ids.size() - 1;
        return "retention deleted " + ids.size() + " session" + (ids.size() == 1 ? "" : "s") + " (oldest "
                + ids.get(last) + " started " + starts.get(last).truncatedTo(ChronoUnit.SECONDS) + ", newest "
                + ids.get(0) + " started " + starts.get(0).truncatedTo(ChronoUnit.SECONDS) + "): "
                + String.join(" and ", why);
    }
}
