package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Collectors;

import org.duckdb.DuckDBConnection;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;

/**
 * Several ended sessions of the same events made one, as opreport merges sample files: the names
 * they use interned anew by name (images by domain, name and kind; symbols by image and name, address
 * symbols by image and address; stacks by their renamed frames), their rows added up by key, their
 * books summed. Done in DuckDB in one transaction: the new session is there whole or not at all.
 */
final class SessionMerge {
    private SessionMerge() {
    }

    /** A new random 63-bit session id (never 0). */
    static long newId(SecureRandom random) {
        long id;
        do {
            id = random.nextLong() & Long.MAX_VALUE;
        } while (id == 0);
        return id;
    }

    static long merge(DuckDBConnection c, List<Long> ids, String name, String hostId)
            throws SQLException, IOException, StoreException {
        List<StoredSession> sessions = mergeable(c, ids);
        SecureRandom random = new SecureRandom();
        long id = newId(random);
        while (StoreFile.session(c, id).isPresent()) {
            id = newId(random);
        }
        long merged = id;
        String in = ids.stream().map(String::valueOf).collect(Collectors.joining(", ", "(", ")"));
        return StoreFile.inTransaction(c, tx -> {
            try (Statement s = tx.createStatement()) {
                for (String sql : statements(in, ids.get(0), merged)) {
                    s.execute(sql);
                }
            }
            StoreFile.putSession(tx, row(tx, merged, sessions, name, hostId));
            try (Statement s = tx.createStatement()) {
                s.execute(sessionColumns(in, merged));
                s.execute("DROP TABLE merge_images; DROP TABLE merge_symbols; DROP TABLE merge_stacks");
            }
            return merged;
        });
    }

    /** The sessions, refused when one is unknown, running, named twice, or of other events than the first. */
    private static List<StoredSession> mergeable(DuckDBConnection c, List<Long> ids) throws SQLException,
            StoreException {
        if (new HashSet<>(ids).size() != ids.size()) {
            throw new StoreException("a session is named twice in " + ids + "; name each once");
        }
        List<StoredSession> sessions = new ArrayList<>();
        for (long id : ids) {
            StoredSession s = StoreFile.session(c, id).orElseThrow(() -> new StoreException("no stored session " + id
                    + " (hp:sessions lists them); nothing was merged"));
            if (s.status().equals(StoredSession.RUNNING)) {
                throw new StoreException("session " + id + " is still running; merge it once it has ended");
            }
            if (!s.events().equals(sessions.isEmpty() ? s.events() : sessions.get(0).events())) {
                throw new StoreException("sessions " + sessions.get(0).id() + " and " + id + " counted different"
                        + " events (" + String.join(",", sessions.get(0).events()) + " and "
                        + String.join(",", s.events()) + "); only sessions of the same events merge");
            }
            sessions.add(s);
        }
        return sessions;
    }

    /** The statements that intern the names anew and add up the rows into session {@code id}. */
    private static List<String> statements(String in, long first, long id) {
        return List.of(
                // Each old image id of each session, with its new id: one per (domain, name, kind).
                "CREATE TEMP TABLE merge_images AS SELECT session, id AS old, CAST(dense_rank() OVER (ORDER BY owner,"
                        + " name, detail) - 1 AS INTEGER) AS new, owner, name, detail FROM names WHERE kind = 'image'"
                        + " AND session IN " + in,
                // Symbols by new image and name from 0; address symbols (id < -1) by new image and address,
                // numbered down from -2 as the dictionary numbers them.
                "CREATE TEMP TABLE merge_symbols AS SELECT s.session, CAST(s.id AS INTEGER) AS old, CAST(CASE WHEN"
                        + " s.id >= 0 THEN dense_rank() OVER (PARTITION BY s.id >= 0 ORDER BY i.new, s.name) - 1 ELSE"
                        + " -1 - dense_rank() OVER (PARTITION BY s.id >= 0 ORDER BY i.new, s.address) END AS INTEGER)"
                        + " AS new, i.new AS image, s.name, s.address FROM names s JOIN merge_images i ON i.session ="
                        + " s.session AND i.old = s.owner WHERE s.kind = 'symbol' AND s.session IN " + in,
                // A stack is its frames renamed: equal frames in two sessions make one stack (ids from 1).
                "CREATE TEMP TABLE merge_stacks AS WITH framed AS (SELECT t.session, t.stack_id, list(struct_pack(pc"
                        + " := t.pc, image := coalesce(i.new, t.image), symbol := coalesce(y.new, t.symbol), mode :="
                        + " t.mode) ORDER BY t.depth) AS frames FROM stacks t" + renamed("t") + " WHERE t.session IN "
                        + in + " GROUP BY t.session, t.stack_id) SELECT session, stack_id AS old, CAST(dense_rank()"
                        + " OVER (ORDER BY frames) AS INTEGER) AS new FROM framed",
                "INSERT INTO names SELECT DISTINCT " + id + ", 'image', new, owner, name, detail, NULL FROM merge_images",
                "INSERT INTO names SELECT DISTINCT " + id + ", 'symbol', new, image, name, NULL, address FROM"
                        + " merge_symbols",
                // An image's build-id: the first session's.
                "INSERT INTO names SELECT " + id + ", 'build_id', i.new, i.owner, arg_min(b.name, b.session), NULL, NULL"
                        + " FROM names b JOIN merge_images i ON i.session = b.session AND i.old = b.id WHERE b.kind ="
                        + " 'build_id' AND b.session IN " + in + " GROUP BY i.new, i.owner",
                // Domains and processes keep their ids (Xen's domid, the pid): the first session's name.
                "INSERT INTO names SELECT " + id + ", kind, id, owner, arg_min(name, session), NULL, NULL FROM names"
                        + " WHERE kind IN ('domain', 'process') AND session IN " + in + " GROUP BY kind, id, owner",
                "INSERT INTO stacks SELECT " + id + ", m.new, t.depth, t.pc, coalesce(i.new, t.image),"
                        + " coalesce(y.new, t.symbol), t.mode FROM stacks t JOIN (SELECT new, arg_min(session,"
                        + " session) AS session, arg_min(old, session) AS old FROM merge_stacks GROUP BY new) m ON"
                        + " t.session = m.session AND t.stack_id = m.old" + renamed("t"),
                "INSERT INTO samples SELECT " + id + ", x.event, x.domain, x.vcpu, x.cpu, x.mode, x.pid, x.tid,"
                        + " coalesce(i.new, x.image), coalesce(y.new, x.symbol), x.pc, coalesce(m.new, 0),"
                        // Comm ids are each session's own: a merge keeps none (-1).
                        + " x.time_bucket, x.flags, sum(x.samples), sum(x.weight), -1 FROM samples x" + renamed("x")
                        + " LEFT JOIN merge_stacks m ON m.session = x.session AND m.old = x.stack_id WHERE x.session IN "
                        + in + " GROUP BY ALL",
                "INSERT INTO truth SELECT " + id + ", on_behalf, domain, vcpu, mode, image, image_kind, symbol, signal,"
                        + " sum(milli) FROM truth WHERE session IN " + in + " GROUP BY ALL",
                // The same events: the first session's counters.
                "INSERT INTO counters SELECT " + id + ", slot, counter, event, code, description, signal, counter_mask,"
                        + " minimum_count, count, unit_mask, count_kernel, count_user FROM counters WHERE session = "
                        + first,
                // Books summed: each buffer's by its domain, vCPU and role, each consumer's by its name, the host's
                // counters by theirs.
                "INSERT INTO buffers SELECT " + id + ", CAST(row_number() OVER (ORDER BY min(position), domain, vcpu,"
                        + " role) - 1 AS INTEGER), domain, vcpu, role, sum(taken), sum(delivered), sum(lost), sum(dropped),"
                        + " sum(invalid), sum(user_samples), sum(kernel_samples), sum(xen_samples), sum(drained),"
                        + " sum(undrained) FROM buffers WHERE session IN " + in + " GROUP BY domain, vcpu, role",
                "INSERT INTO consumers SELECT " + id + ", CAST(row_number() OVER (ORDER BY min(position), consumer) - 1"
                        + " AS INTEGER), consumer, sum(received), sum(missed), string_agg(DISTINCT problem, '; ') FROM"
                        + " consumers WHERE session IN " + in + " GROUP BY consumer",
                "INSERT INTO host_counters SELECT " + id + ", name, sum(value) FROM host_counters WHERE session IN " + in
                        + " GROUP BY name");
    }

    /** Joins the new ids of the image and symbol columns of table alias {@code t}. */
    private static String renamed(String t) {
        return " LEFT JOIN merge_images i ON i.session = " + t + ".session AND i.old = " + t + ".image"
                + " LEFT JOIN merge_symbols y ON y.session = " + t + ".session AND y.old = " + t + ".symbol";
    }

    /** The new session's row: the first one's machine and events, every book summed, ended now. */
    private static SessionRow row(DuckDBConnection c, long id, List<StoredSession> sessions, String name,
            String hostId) throws SQLException {
        StoredSession first = sessions.get(0);
        long samples = 0, received = 0, missed = 0;
        Accounting books = Accounting.ZERO;
        for (StoredSession s : sessions) {
            samples += s.samples();
            received += s.received();
            missed += s.missed();
            Accounting a = s.accounting();
            books = new Accounting(books.taken() + a.taken(), books.delivered() + a.delivered(),
                    books.lost() + a.lost(), books.dropped() + a.dropped(), books.invalid() + a.invalid());
        }
        String ids = sessions.stream().map(s -> String.valueOf(s.id())).collect(Collectors.joining(", "));
        Instant now = Instant.now();
        // Profiled time adds up as the samples do; one session of unknown time makes the sum unknown.
        long profiled = sessions.stream().anyMatch(s -> s.profiledNanos() < 0) ? -1
                : sessions.stream().mapToLong(StoredSession::profiledNanos).sum();
        StoredSession merged = new StoredSession(id, hostId, "merge", name, List.of(), "merge of " + ids,
                first.cpuType(), first.events(), now, now, StoredSession.COMPLETED, samples, books, received, missed,
                List.of("merged from sessions " + ids), null, false, sessions.stream().map(StoredSession::id).toList(),
                profiled);
        String cpuName = null;
        long mhz = 0;
        try (PreparedStatement s = c.prepareStatement("SELECT cpu_name, mhz FROM sessions WHERE id = ?")) {
            s.setLong(1, first.id());
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    cpuName = r.getString(1);
                    mhz = r.getLong(2);
                }
            }
        }
        return new SessionRow(merged, cpuName, mhz, null);
    }

    /** The simulator's figures of the new row: sums of the merged ones' (NULL when none has them). */
    private static String sessionColumns(String in, long id) {
        StringBuilder sums = new StringBuilder("UPDATE sessions SET ground_truth = m.ground_truth");
        StringBuilder from = new StringBuilder(" FROM (SELECT bool_or(ground_truth) AS ground_truth");
        for (String column : List.of("simulated_cycles", "xen_total", "xen_active", "xen_passive", "xen_lost",
                "xen_others", "xen_idle", "xen_invalid_buffer", "xen_corrupted_buffer")) {
            sums.append(", ").append(column).append(" = m.").append(column);
            from.append(", sum(").append(column).append(") AS ").append(column);
        }
        return sums.append(from).append(" FROM sessions WHERE id IN ").append(in).append(") m WHERE sessions.id = ")
                .append(id).toString();
    }
}
