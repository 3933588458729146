package org.hyperprof.store.duckdb;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffRow;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.SessionDiff;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.report.kit.RowFilter;

/**
 * Two stored sessions side by side, added up in DuckDB: their rows are summed per (session, domain,
 * image, symbol) first, then named and matched by name (ids are each session's own), in one query,
 * so that only the matched symbol rows cross into Java; the image rows and the totals are their sums.
 */
final class DiffQuery {
    private static final Pattern NUMBER = Pattern.compile("\\d+");

    private DiffQuery() {
    }

    /**
     * Which samples ({@code x}) a request takes: the SQL condition and its parameters.
     *
     * @param sql  the condition, after a WHERE
     * @param args the values of its parameters, in order
     */
    private record Scope(String sql, List<Long> args) {
        /** Binds the parameters from index {@code from}; the next free index. */
        int bind(PreparedStatement s, int from) throws SQLException {
            for (long a : args) {
                s.setLong(from++, a);
            }
            return from;
        }
    }

    /** Names a row's domain, image and symbol ({@code k} the summed rows: session, domain, image, symbol). */
    private static final String NAMED = " LEFT JOIN nm dn ON dn.session = k.session AND dn.kind = 'domain'"
            + " AND dn.id = k.domain LEFT JOIN nm im ON im.session = k.session AND im.kind = 'image'"
            + " AND im.id = k.image LEFT JOIN nm sy ON sy.session = k.session AND sy.kind = 'symbol'"
            + " AND sy.id = k.symbol";

    /** The two sessions' names, {@code nm}: a store of many sessions has many more (one parameter per session). */
    private static final String NAMES = " nm AS (SELECT session, kind, id, name, detail FROM names WHERE session"
            + " IN (?, ?))";

    static SessionDiff diff(DuckDBConnection c, DiffRequest r) throws SQLException, StoreException {
        StoredSession a = existing(c, r.baseline());
        StoredSession b = existing(c, r.compared());
        String event = sameEvent(a, b, r.event());
        List<DiffRow> symbols = symbolRows(c, r, scope(c, r));
        // The image rows and the totals add up the symbol rows: a few thousand rows, where another pass of
        // DuckDB over the samples would cost as much as the first.
        Map<List<String>, long[]> images = new LinkedHashMap<>();
        long[] total = new long[4];
        for (DiffRow row : symbols) {
            long[] sums = images.computeIfAbsent(List.of(row.domain(), row.image()), k -> new long[4]);
            long[] counts = {row.baselineSamples(), row.comparedSamples(), row.baselineWeight(), row.comparedWeight()};
            for (int i = 0; i < 4; i++) {
                sums[i] += counts[i];
                total[i] += counts[i];
            }
        }
        List<DiffRow> imageRows = new ArrayList<>(images.size());
        images.forEach((k, n) -> imageRows.add(new DiffRow(k.get(0), k.get(1), null, n[0], n[1], n[2], n[3])));
        return new SessionDiff(a, b, event, Math.max(0, a.profiledNanos()), Math.max(0, b.profiledNanos()),
                total[0], total[1], total[2], total[3], imageRows, symbols);
    }

    private static StoredSession existing(DuckDBConnection c, long id) throws SQLException, StoreException {
        return StoreFile.session(c, id).orElseThrow(() -> new StoreException("no stored session " + id
                + " (hp:sessions lists them)"));
    }

    /** The event both sessions counted at index {@code event}: its name and unit mask must agree (the period may not). */
    static String sameEvent(StoredSession a, StoredSession b, int event) throws StoreException {
        if (event >= a.events().size() || event >= b.events().size()) {
            throw new StoreException("there is no event " + event + " in both sessions: " + a.id() + " counted "
                    + a.events() + ", " + b.id() + " counted " + b.events());
        }
        String ea = eventOf(a.events().get(event));
        String eb = eventOf(b.events().get(event));
        if (!ea.equals(eb)) {
            throw new StoreException("sessions " + a.id() + " and " + b.id() + " counted different events (" + ea
                    + " and " + eb + "): their samples are no measure of the same thing, so they are not compared");
        }
        return ea;
    }

    /** {@code EVENT:0xmask} of {@code EVENT:count:0xmask}: the period does not change what is counted. */
    private static String eventOf(String stored) {
        String[] parts = stored.split(":");
        return parts.length == 3 ? parts[0] + ":" + parts[2] : stored;
    }

    /**
     * The samples of both sessions' event, only those of the request's domain when it names one: its
     * id in each session, found by id or by name (a domain's id is Xen's domid; names may differ).
     */
    private static Scope scope(DuckDBConnection c, DiffRequest r) throws SQLException, StoreException {
        String sql = " x.session IN (?, ?) AND x.event = ?";
        List<Long> args = new ArrayList<>(List.of(r.baseline(), r.compared(), (long) r.event()));
        if (r.domain() == null) {
            return new Scope(sql, args);
        }
        List<String> known = new ArrayList<>();
        List<Long> matched = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT session, id, name FROM names WHERE session IN (?, ?)"
                + " AND kind = 'domain' ORDER BY id, name, session")) {
            s.setLong(1, r.baseline());
            s.setLong(2, r.compared());
            try (ResultSet q = s.executeQuery()) {
                while (q.next()) {
                    String domain = q.getLong(2) + " " + q.getString(3);
                    if (!known.contains(domain)) {
                        known.add(domain);
                    }
                    if (String.valueOf(q.getLong(2)).equals(r.domain()) || q.getString(3).equals(r.domain())) {
                        matched.addAll(List.of(q.getLong(1), q.getLong(2)));
                    }
                }
            }
        }
        if (matched.isEmpty() && NUMBER.matcher(r.domain()).matches() && known.isEmpty()) {
            // Sessions without domain names (a recording's): the id is the samples' own.
            long id = Long.parseLong(r.domain());
            matched.addAll(List.of(r.baseline(), id, r.compared(), id));
        }
        if (matched.isEmpty()) {
            throw new StoreException("neither session has a domain '" + r.domain() + "'; their domains are "
                    + String.join(", ", known) + " (give a name or an id)");
        }
        List<String> each = new ArrayList<>();
        for (int i = 0; i < matched.size(); i += 2) {
            each.add("(x.session = ? AND x.domain = ?)");
        }
        args.addAll(matched);
        return new Scope(sql + " AND (" + String.join(" OR ", each) + ")", args);
    }

    /** The symbol rows of both sessions matched by name: summed by id in each session first, then named. */
    private static List<DiffRow> symbolRows(DuckDBConnection c, DiffRequest r, Scope scope) throws SQLException {
        String sql = "WITH k AS (SELECT session, domain, image, symbol, sum(samples) AS n, sum(weight) AS w FROM"
                + " samples x WHERE" + scope.sql() + " GROUP BY ALL)," + NAMES + " SELECT coalesce(dn.name,"
                + " CAST(k.domain AS VARCHAR)), coalesce(im.name, '?'), CASE WHEN k.symbol < 0 THEN '" + RowFilter.NO_SYMBOLS + "' ELSE"
                + " coalesce(sy.name, '?') END, sum(n) FILTER (WHERE k.session = ?), sum(n) FILTER (WHERE k.session"
                + " = ?), sum(w) FILTER (WHERE k.session = ?), sum(w) FILTER (WHERE k.session = ?) FROM k" + NAMED
                + " GROUP BY ALL";
        List<DiffRow> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = scope.bind(s, 1);
            for (long id : new long[] {r.baseline(), r.compared(), r.baseline(), r.compared(), r.baseline(),
                r.compared()}) {
                s.setLong(i++, id);
            }
            try (ResultSet q = s.executeQuery()) {
                while (q.next()) {
                    out.add(new DiffRow(q.getString(1), q.getString(2), q.getString(3), q.getLong(4), q.getLong(5),
                            q.getLong(6), q.getLong(7)));
                }
            }
        }
        return out;
    }

    /**
     * Every stack of both sessions, root first (the domain, the callers from the outermost, the sampled
     * function), with the samples that ended at it in each; stacks that name the same frames are one.
     */
    static List<DiffStack> stacks(DuckDBConnection c, DiffRequest r) throws SQLException, StoreException {
        StoredSession a = existing(c, r.baseline());
        StoredSession b = existing(c, r.compared());
        sameEvent(a, b, r.event());
        Scope scope = scope(c, r);
        // A stack's frames are listed innermost first; the sampled function is depth -1, under them all.
        String sql = "WITH k AS (SELECT session, domain, image, symbol, stack_id, sum(samples) AS n FROM samples x"
                + " WHERE" + scope.sql() + " GROUP BY ALL)," + NAMES + ","
                + " f AS (SELECT k.session, k.domain, k.stack_id, k.image, k.symbol, k.n, -1 AS depth,"
                + " k.image AS fimage, k.symbol AS fsymbol FROM k UNION ALL SELECT k.session, k.domain, k.stack_id,"
                + " k.image, k.symbol, k.n, t.depth, t.image, t.symbol FROM k JOIN stacks t ON t.session = k.session"
                + " AND t.stack_id = k.stack_id AND k.stack_id <> 0)"
                + " SELECT k.session, k.domain, k.stack_id, k.image, k.symbol, any_value(k.n),"
                + " coalesce(any_value(dn.name), CAST(k.domain AS VARCHAR)),"
                + " list(coalesce(im.name, '?') ORDER BY depth DESC), list(coalesce(im.detail, 'UNKNOWN') ORDER BY"
                + " depth DESC), list(CASE WHEN fsymbol < 0 THEN NULL ELSE coalesce(sy.name, '?') END ORDER BY"
                + " depth DESC) FROM f k LEFT JOIN nm dn ON dn.session = k.session AND dn.kind = 'domain'"
                + " AND dn.id = k.domain LEFT JOIN nm im ON im.session = k.session AND im.kind = 'image'"
                + " AND im.id = k.fimage LEFT JOIN nm sy ON sy.session = k.session AND sy.kind = 'symbol'"
                + " AND sy.id = k.fsymbol GROUP BY k.session, k.domain, k.stack_id, k.image,"
                + " k.symbol";
        Map<List<Object>, long[]> counts = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = scope.bind(s, 1);
            s.setLong(i, r.baseline());
            s.setLong(i + 1, r.compared());
            try (ResultSet q = s.executeQuery()) {
                while (q.next()) {
                    Object[] images = (Object[]) q.getArray(8).getArray();
                    Object[] kinds = (Object[]) q.getArray(9).getArray();
                    Object[] symbols = (Object[]) q.getArray(10).getArray();
                    List<DiffStack.Frame> frames = new ArrayList<>(images.length);
                    for (int f = 0; f < images.length; f++) {
                        frames.add(new DiffStack.Frame((String) images[f], kind((String) kinds[f]),
                                (String) symbols[f]));
                    }
                    long[] n = counts.computeIfAbsent(List.of(q.getString(7), frames), key -> new long[2]);
                    n[q.getLong(1) == r.baseline() ? 0 : 1] += q.getLong(6);
                }
            }
        }
        List<DiffStack> out = new ArrayList<>(counts.size());
        for (Map.Entry<List<Object>, long[]> e : counts.entrySet()) {
            @SuppressWarnings("unchecked")
            List<DiffStack.Frame> frames = (List<DiffStack.Frame>) e.getKey().get(1);
            out.add(new DiffStack((String) e.getKey().get(0), frames, e.getValue()[0], e.getValue()[1]));
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
