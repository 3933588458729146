package org.hyperprof.store.duckdb;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;

/**
 * A stored session's distinct call stacks with their samples, summed by the engine from the samples and
 * stacks tables in one parameterised query: what a flame graph of a stored session needs, without
 * replaying a million samples through the pipeline.
 */
final class StackQuery {
    /**
     * The rows summed by what a flame graph tells apart, then each stack's frames (innermost first in the
     * stacks table; the sampled function is depth -1, under them all) named and listed outermost first.
     */
    private static final String SQL = "WITH k AS (SELECT domain, pid, comm, image, symbol, stack_id,"
            + " sum(samples) AS n FROM samples WHERE session = ? AND event = ? AND (? < 0 OR domain = ?)"
            + " GROUP BY ALL), nm AS (SELECT kind, id, name, detail FROM names WHERE session = ?),"
            + " f AS (SELECT k.*, -1 AS depth, k.image AS fimage, k.symbol AS fsymbol FROM k UNION ALL"
            + " SELECT k.*, t.depth, t.image, t.symbol FROM k JOIN stacks t ON t.session = ?"
            + " AND t.stack_id = k.stack_id AND k.stack_id <> 0)"
            + " SELECT f.domain, f.pid, f.comm, any_value(f.n), coalesce(any_value(dn.name),"
            + " CAST(f.domain AS VARCHAR)), any_value(cn.name),"
            + " list(coalesce(im.name, '?') ORDER BY f.depth DESC),"
            + " list(coalesce(im.detail, 'UNKNOWN') ORDER BY f.depth DESC),"
            + " list(CASE WHEN f.fsymbol < 0 THEN NULL ELSE coalesce(sy.name, '?') END ORDER BY f.depth DESC)"
            + " FROM f LEFT JOIN nm dn ON dn.kind = 'domain' AND dn.id = f.domain"
            + " LEFT JOIN nm cn ON cn.kind = 'comm' AND cn.id = f.comm"
            + " LEFT JOIN nm im ON im.kind = 'image' AND im.id = f.fimage"
            + " LEFT JOIN nm sy ON sy.kind = 'symbol' AND sy.id = f.fsymbol"
            + " GROUP BY f.domain, f.pid, f.comm, f.image, f.symbol, f.stack_id";

    private StackQuery() {
    }

    static List<StoredStack> stacks(DuckDBConnection c, long id, int event, int domain)
            throws SQLException, StoreException {
        StoredSession session = StoreFile.session(c, id).orElseThrow(() -> new StoreException(
                "no stored session " + id + " (hp:sessions lists them)"));
        if (event < 0 || event >= session.events().size()) {
            throw new StoreException("session " + id + " has " + session.events().size() + " event(s) ("
                    + String.join(", ", session.events()) + "); there is no event " + event
                    + ": ask for one from 0 to " + (session.events().size() - 1));
        }
        Map<StoredStack, long[]> counts = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(SQL)) {
            s.setLong(1, id);
            s.setInt(2, event);
            s.setInt(3, domain);
            s.setInt(4, domain);
            s.setLong(5, id);
            s.setLong(6, id);
            try (ResultSet q = s.executeQuery()) {
                while (q.next()) {
                    Object[] images = (Object[]) q.getArray(7).getArray();
                    Object[] kinds = (Object[]) q.getArray(8).getArray();
                    Object[] symbols = (Object[]) q.getArray(9).getArray();
                    List<DiffStack.Frame> frames = new ArrayList<>(images.length);
                    for (int f = 0; f < images.length; f++) {
                        frames.add(new DiffStack.Frame((String) images[f], kind((String) kinds[f]),
                                (String) symbols[f]));
                    }
                    int comm = q.getInt(3);
                    String name = q.getString(6);
                    String process = comm < 0 ? null : (name != null ? name : "?") + " (" + q.getInt(2) + ")";
                    // Rows that differ only by what a flame graph does not show (ids, pids of unnamed
                    // threads) are one stack: keyed with no samples, summed beside.
                    StoredStack key = new StoredStack(q.getInt(1), q.getString(5), process, frames, 0);
                    counts.computeIfAbsent(key, k -> new long[1])[0] += q.getLong(4);
                }
            }
        }
        List<StoredStack> out = new ArrayList<>(counts.size());
        for (Map.Entry<StoredStack, long[]> e : counts.entrySet()) {
            StoredStack k = e.getKey();
            out.add(new StoredStack(k.domainId(), k.domain(), k.process(), k.frames(), e.getValue()[0]));
        }
        return out;
    }

    private static ImageKind kind(String detail) {
        try {
            return ImageKind.valueOf(detail);
        } catch (IllegalArgumentException e) {
            return ImageKind.UNKNOWN;
        }
    }
}
