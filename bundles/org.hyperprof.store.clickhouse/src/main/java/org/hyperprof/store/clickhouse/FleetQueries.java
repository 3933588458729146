package org.hyperprof.store.clickhouse;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.report.kit.Shares;

/**
 * The fleet's questions asked of ClickHouse: the hosts, the top images or symbols, the difference of two
 * groups, the rows of a fleet profile. Every query counts the committed sessions only: a samples row
 * counts when a {@code sessions} row names its (host, session, attempt), the least attempt should a race
 * have let two in. With a cluster set, the rows are read through the Distributed tables, and the
 * committed sessions are looked up on each shard in its own {@code sessions} table (a non-GLOBAL IN),
 * which holds them since a host's rows all go to one shard.
 */
final class FleetQueries {
    private final ClickHouseHttp http;

    FleetQueries(ClickHouseHttp http) {
        this.http = http;
    }

    /** One host: its last session, how many sessions and samples it shipped, and what it runs. */
    record HostRow(String host, Instant lastSession, long sessions, long samples, String cpuModel,
            String hypervisorVersion, String kernelVersion, String hyperprofVersion, long schemaVersion) {
    }

    /** One row of a top list; {@code symbol} null for an image row. */
    record TopRow(String image, String symbol, long samples, long weight, long hosts, double share) {
    }

    /** One row of a diff: A's and B's samples, their shares of their group's, and whether the delta stands out. */
    record DiffRow(String image, String symbol, long samplesA, long samplesB, double shareA, double shareB,
            boolean marked) {
        double deltaPoints() {
            return 100 * (shareB - shareA);
        }
    }

    /** A whole diff: its rows, largest |delta| first, and each group's samples. */
    record Diff(List<DiffRow> rows, long totalA, long totalB, long more) {
    }

    /** One fleet profile row: a host, a domain, an image, a symbol and its samples and weight. */
    record ProfileRow(String host, String domain, int mode, String image, String symbol, long samples, long weight) {
    }

    private URI at() {
        return http.settings().endpoints().get(0);
    }

    private String table(String name) {
        FleetSettings s = http.settings();
        return s.database() + "." + name + (s.cluster().isEmpty() ? "" : "_all");
    }

    /**
     * Restricts rows to the committed sessions {@code f} picks whose shipper wrote schema version
     * {@code since} or later ({@code before} false) or earlier. A shipment is known by (session, attempt),
     * two random numbers of 63 and 64 bits, so the host's name need not be hashed for every row: another
     * host's committed session matching both is a chance of 2^-127. The least attempt is picked before
     * the version is looked at, so a session counts once even if two of its attempts had different versions.
     */
    private String committed(FleetFilter f, int since, boolean before) {
        return "(session, attempt) IN (SELECT id, a FROM (SELECT id, min(attempt) AS a, argMin(schema_version,"
                + " attempt) AS v FROM " + http.settings().database() + ".sessions WHERE " + f.sessions()
                + " GROUP BY host, id) WHERE v " + (before ? "< " : ">= ") + since + ")";
    }

    /**
     * The committed samples {@code f} picks, as a subquery of {@code columns} (of host, day, attempt,
     * session, event, event_name, mode, domain_name, image_name, symbol_name, samples, weight): from
     * {@code symbol_samples}, where the server keeps them summed by symbol, and for sessions shipped before
     * schema version 2 (there are none on a cluster made by this version) from {@code samples}.
     */
    private String rows(FleetFilter f, String columns) throws FleetException {
        String summed = "SELECT " + columns + " FROM " + table("symbol_samples") + " WHERE " + f.samples() + " AND "
                + committed(f, FleetSchema.SUMMED_SINCE, false);
        long older = ServerReply.number(http.query(at(), "SELECT count() FROM " + table("sessions") + " WHERE "
                + f.sessions() + " AND schema_version < " + FleetSchema.SUMMED_SINCE));
        if (older == 0) {
            return "(" + summed + ")";
        }
        return "(" + summed + " UNION ALL SELECT " + columns + " FROM " + table("samples") + " WHERE " + f.samples()
                + " AND " + committed(f, FleetSchema.SUMMED_SINCE, true) + ")";
    }

    List<HostRow> hosts() throws FleetException {
        String db = http.settings().database();
        String sql = "SELECT host, toUnixTimestamp(max(started_at)), count(), sum(samples),"
                + " argMax(cpu_model, started_at), argMax(hypervisor_version, started_at),"
                + " argMax(kernel_version, started_at), argMax(hyperprof_version, started_at),"
                + " argMax(schema_version, started_at) FROM " + table("sessions")
                + " WHERE (host, id, attempt) IN (SELECT host, id, min(attempt) FROM " + db + ".sessions GROUP BY"
                + " host, id) GROUP BY host ORDER BY host";
        List<HostRow> out = new ArrayList<>();
        int line = 0;
        for (String[] r : ServerReply.rows(http.query(at(), sql), 9)) {
            line++;
            out.add(new HostRow(r[0], Instant.ofEpochSecond(ServerReply.number(r[1], line, 2)),
                    ServerReply.number(r[2], line, 3), ServerReply.number(r[3], line, 4), r[4], r[5], r[6], r[7],
                    ServerReply.number(r[8], line, 9)));
        }
        return out;
    }

    /**
     * The top {@code n} images ({@code symbols} false) or symbols, by samples, with their share of all the
     * samples: one pass over the rows (the groups, a few thousand, are summed again from an array). Hosts
     * are counted by {@code uniq}, exact up to 65,536 of them and half the time of {@code uniqExact}.
     */
    List<TopRow> top(FleetFilter f, boolean symbols, int n) throws FleetException {
        String sql = "SELECT g.1, g.2, g.3, g.4, g.5, total FROM (SELECT groupArray((i, y, s, w, h)) AS groups,"
                + " sum(s) AS total FROM (SELECT image_name AS i, " + (symbols ? "symbol_name" : "''")
                + " AS y, sum(samples) AS s, sum(weight) AS w, uniq(host) AS h FROM "
                + rows(f, "host, image_name, symbol_name, samples, weight") + " GROUP BY i, y))"
                + " ARRAY JOIN groups AS g ORDER BY g.3 DESC, g.1, g.2 LIMIT " + n;
        List<TopRow> out = new ArrayList<>();
        int line = 0;
        for (String[] r : ServerReply.rows(http.query(at(), sql), 6)) {
            line++;
            long samples = ServerReply.number(r[2], line, 3);
            out.add(new TopRow(r[0], symbols ? r[1] : null, samples, ServerReply.number(r[3], line, 4),
                    ServerReply.number(r[4], line, 5), Shares.share(samples, ServerReply.number(r[5], line, 6))));
        }
        return out;
    }

    /** Group B against group A (the baseline): the rows of either, largest |delta| first, at most {@code n}. */
    Diff diff(FleetFilter a, FleetFilter b, boolean symbols, int n) throws FleetException {
        Map<String, long[]> rows = new LinkedHashMap<>();
        Map<String, String[]> names = new HashMap<>();
        long totalA = counts(a, symbols, rows, names, 0);
        long totalB = counts(b, symbols, rows, names, 1);
        List<DiffRow> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : rows.entrySet()) {
            long[] c = e.getValue();
            double sa = Shares.share(c[0], totalA);
            double sb = Shares.share(c[1], totalB);
            String[] name = names.get(e.getKey());
            out.add(new DiffRow(name[0], symbols ? name[1] : null, c[0], c[1], sa, sb,
                    Shares.beyondChance(sa, totalA, sb, totalB)));
        }
        out.sort((x, y) -> {
            int c = Double.compare(Math.abs(y.deltaPoints()), Math.abs(x.deltaPoints()));
            return c != 0 ? c : (x.image() + "\0" + x.symbol()).compareTo(y.image() + "\0" + y.symbol());
        });
        return new Diff(out.subList(0, Math.min(n, out.size())), totalA, totalB, Math.max(0, out.size() - n));
    }

    private long counts(FleetFilter f, boolean symbols, Map<String, long[]> rows, Map<String, String[]> names,
            int side) throws FleetException {
        String key = symbols ? "image_name, symbol_name" : "image_name";
        String sql = "SELECT " + key + ", sum(samples) FROM " + rows(f, "image_name, symbol_name, samples")
                + " GROUP BY " + key;
        int width = symbols ? 3 : 2;
        long total = 0;
        int line = 0;
        for (String[] r : ServerReply.rows(http.query(at(), sql), width)) {
            line++;
            long s = ServerReply.number(r[width - 1], line, width);
            String k = symbols ? r[0] + "\0" + r[1] : r[0];
            rows.computeIfAbsent(k, x -> new long[2])[side] += s;
            names.putIfAbsent(k, r);
            total += s;
        }
        return total;
    }

    /** The fleet profile's rows: per host, domain, mode, image and symbol. */
    List<ProfileRow> profile(FleetFilter f) throws FleetException {
        String sql = "SELECT host, domain_name, mode, image_name, symbol_name, sum(samples), sum(weight) FROM "
                + rows(f, "host, domain_name, mode, image_name, symbol_name, samples, weight") + " GROUP BY host, domain_name, mode, image_name, symbol_name ORDER BY host, domain_name, mode,"
                + " image_name, symbol_name";
        List<ProfileRow> out = new ArrayList<>();
        int line = 0;
        for (String[] r : ServerReply.rows(http.query(at(), sql), 7)) {
            line++;
            out.add(new ProfileRow(r[0], r[1], (int) ServerReply.number(r[2], line, 3), r[3], r[4],
                    ServerReply.number(r[5], line, 6), ServerReply.number(r[6], line, 7)));
        }
        return out;
    }
}
