package org.hyperprof.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.duckdb.DuckDBDriver;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.store.clickhouse.FleetCommands;
import org.hyperprof.store.clickhouse.FleetSettings;
import org.hyperprof.store.clickhouse.FleetShipper;
import org.hyperprof.store.clickhouse.FleetStatus;
import org.hyperprof.store.duckdb.SessionStoreComponent;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;

/**
 * The fleet's figures (README: "Fleet profiles"), a harness rather than a JMH benchmark: the shipment is
 * one long run against a ClickHouse server the user started ({@code launch/fleet-clickhouse start}).
 *
 * <ol>
 * <li>Three real simulator sessions of different scenarios (the network experiment, the consolidation
 * host and the multi-domain host, P6 counters, {@code ms} simulated ms each) are stored by the real
 * local store; then, as {@code StoreListingBenchmark} does, each is copied in SQL to a third of
 * {@code hosts} hosts ({@code hv-0001} ...), each copy a session of its own (new id, an earlier start),
 * all in the outbox.</li>
 * <li>Timed: the real shipper ships the outbox, every session of every host, to the server: rows per
 * second ingested (all tables, and the samples alone).</li>
 * <li>Timed: {@code hp:fleet top symbols} and {@code top images} over the whole fleet, 10 runs each
 * after 2 unmeasured ones, each beside the same question asked of the samples table as fleet schema
 * version 1 asked it (before the server summed samples by symbol).</li>
 * </ol>
 *
 * <p>Run: {@code java -cp bundles/org.hyperprof.benchmarks/target/benchmarks.jar
 * org.hyperprof.benchmarks.FleetHarness http://127.0.0.1:8123 1000 2000}
 * (endpoint, hosts, simulated ms per scenario). The server's {@code hyperprof} database is dropped first.
 */
public final class FleetHarness {
    private FleetHarness() {
    }

    private static final String[] SCENARIOS = {"xen-summit-2006-network", "consolidation", "xen-multi-domain"};
    private static final String[] TABLES = {"samples", "stacks", "names", "truth", "counters", "buffers", "consumers",
        "host_counters", "sessions"};

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("resume")) {
            resume(Path.of(args[1]), URI.create(args[2]));
            return;
        }
        URI endpoint = URI.create(args.length > 0 ? args[0] : "http://127.0.0.1:8123");
        int hosts = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        long ms = args.length > 2 ? Long.parseLong(args[2]) : 2000;
        PrintStream out = System.out;
        query(endpoint, "DROP DATABASE IF EXISTS hyperprof");

        Path folder = Files.createTempDirectory("hyperprof-fleet-harness");
        Path file = folder.resolve("store.duckdb");
        SessionStoreComponent store = SessionStoreComponent.onClassPath(file, "hv-base", System.err);
        List<Long> base = new ArrayList<>();
        for (String scenario : SCENARIOS) {
            HostServiceImpl host = new HostServiceImpl();
            host.addModel(new P6PmuModel(), "org.hyperprof.pmu.p6");
            host.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
            host.load(scenario, "i386/p6", Map.of(), null);
            ProfilerImpl profiler = new ProfilerImpl(host);
            profiler.addResolver(KallsymsResolver.FORMAT_NAME, new KallsymsResolver());
            profiler.addConsumer("store", store, Delivery.LOSSLESS);
            SessionSummary s = profiler.profile(new ProfileRequest(List.of("CPU_CLK_UNHALTED:100000:0:1:1"),
                    ms * 1000, List.of(), List.of(), List.of(), 0, true), ProgressListener.NONE);
            while (store.session(s.sessionId()).map(x -> x.status().equals(StoredSession.RUNNING)).orElse(true)) {
                Thread.sleep(5);
            }
            profiler.removeConsumer("store");
            base.add(s.sessionId());
        }
        Thread.sleep(1000); // the store closes its file 500 ms after its last use
        long started = System.nanoTime();
        long[] rows = new long[TABLES.length];
        try (Connection c = new DuckDBDriver().connect("jdbc:duckdb:" + file, new Properties());
                Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE copies AS SELECT b.id AS base, b.id // 4 + r.i + 1 AS id,"
                    + " printf('hv-%04d', r.i) AS host, r.i AS i FROM (SELECT id, row_number() OVER (ORDER BY id) - 1"
                    + " AS k FROM sessions) b, range(0, " + hosts + ") r(i) WHERE r.i % 3 = b.k");
            for (String t : TABLES) {
                if (t.equals("sessions")) {
                    s.execute("INSERT INTO sessions SELECT x.* REPLACE (c.id AS id, c.host AS host_id,"
                            + " x.started_at - to_seconds(" + hosts + " - c.i) AS started_at,"
                            + " x.ended_at - to_seconds(" + hosts + " - c.i) AS ended_at, true AS ship_pending)"
                            + " FROM sessions x JOIN copies c ON c.base = x.id ORDER BY c.id");
                    s.execute("DELETE FROM sessions WHERE id IN (SELECT base FROM copies)");
                } else {
                    // In session order, as a store appends them (its zone maps then find a session's rows).
                    s.execute("INSERT INTO " + t + " SELECT x.* REPLACE (c.id AS session) FROM " + t
                            + " x JOIN copies c ON c.base = x.session ORDER BY c.id");
                    s.execute("DELETE FROM " + t + " WHERE session IN (SELECT base FROM copies)");
                }
            }
            for (int k = 0; k < TABLES.length; k++) {
                try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + TABLES[k])) {
                    r.next();
                    rows[k] = r.getLong(1);
                }
            }
        }
        long all = 0;
        for (long r : rows) {
            all += r;
        }
        out.printf(Locale.ROOT, "store: %d sessions of %d hosts from sessions %s (%d simulated ms each), %d rows"
                + " (%d samples rows), made in %.1f s%n", hosts, hosts, base, ms, all, rows[0],
                (System.nanoTime() - started) / 1e9);

        // The local store's part alone: the first 50 sessions' rows read and written as TabSeparated, to nowhere.
        long r0 = System.nanoTime();
        long copied = 0;
        List<StoredSession> pending = store.pending();
        for (StoredSession p : pending.subList(0, Math.min(50, pending.size()))) {
            for (String t : TABLES) {
                copied += store.copy(p.id(), t, "hv\t2026-01-01\t1\t", OutputStreamSink.INSTANCE);
            }
        }
        double readSeconds = (System.nanoTime() - r0) / 1e9;
        out.printf(Locale.ROOT, "the local store read %d rows as TabSeparated in %.2f s: %.0f rows/s%n", copied,
                readSeconds, copied / readSeconds);

        FleetShipper shipper = new FleetShipper(FleetSettings.of(List.of(endpoint), "")
                .withTimeout(Duration.ofMinutes(5)), store, "harness", System.err);
        long t0 = System.nanoTime();
        FleetStatus shipped = shipAll(shipper);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (shipped.problem() != null || !shipped.pending().isEmpty()) {
            throw new IllegalStateException("the shipment stopped: " + shipped.problem());
        }
        out.printf(Locale.ROOT, "shipped %d sessions, %d rows in %.2f s: %.0f rows/s (samples rows: %.0f/s)%n",
                shipped.shipped(), all, seconds, all / seconds, rows[0] / seconds);
        out.println("in ClickHouse (table, rows, bytes on disk, uncompressed): " + query(endpoint,
                "SELECT table, sum(rows), sum(data_compressed_bytes), sum(data_uncompressed_bytes) FROM system.parts"
                        + " WHERE database = 'hyperprof' AND active GROUP BY table ORDER BY table").replace('\t', ' ')
                        .replace('\n', ';'));

        timeTop(shipper, endpoint, rows[0]);
        shipper.close();
        BenchStore.deleteFolder(folder);
        System.exit(0);
    }

    /** Ships until the outbox is empty (one call stops after ten minutes). */
    private static FleetStatus shipAll(FleetShipper shipper) throws Exception {
        FleetStatus s = shipper.shipNow();
        while (s.problem() == null && !s.pending().isEmpty()) {
            s = shipper.shipNow();
        }
        return s;
    }

    /** Ships what a harness run left in its store's outbox (one stopped midway), then times the tops. */
    private static void resume(Path file, URI endpoint) throws Exception {
        SessionStoreComponent store = SessionStoreComponent.onClassPath(file, "hv-base", System.err);
        int left = store.pending().size();
        FleetShipper shipper = new FleetShipper(FleetSettings.of(List.of(endpoint), "")
                .withTimeout(Duration.ofMinutes(5)), store, "harness", System.err);
        long t0 = System.nanoTime();
        FleetStatus shipped = shipAll(shipper);
        System.out.printf(Locale.ROOT, "resumed: shipped %d of %d sessions left in %.1f s (%s)%n", shipped.shipped(),
                left, (System.nanoTime() - t0) / 1e9, shipped.problem());
        timeTop(shipper, endpoint, Long.parseLong(query(endpoint, "SELECT count() FROM hyperprof.samples")));
        shipper.close();
        System.exit(0);
    }

    /**
     * The top list as fleet schema version 1 asked it, of the samples table (every samples row read), for
     * the before/after figure in one sitting: {@code %s} is {@code symbol_name} or {@code ''}.
     */
    private static final String TOP_OF_SAMPLES = "SELECT g.1, g.2, g.3, g.4, g.5, total FROM (SELECT groupArray((i,"
            + " y, s, w, h)) AS groups, sum(s) AS total FROM (SELECT image_name AS i, %s AS y, sum(samples) AS s,"
            + " sum(weight) AS w, uniq(host) AS h FROM hyperprof.samples WHERE event = 0 AND (session, attempt) IN"
            + " (SELECT id, min(attempt) FROM hyperprof.sessions WHERE 1 GROUP BY host, id) GROUP BY i, y))"
            + " ARRAY JOIN groups AS g ORDER BY g.3 DESC, g.1, g.2 LIMIT 10";

    /**
     * hp:fleet top symbols and images, 10 runs each after 2 unmeasured ones, each run followed by the same
     * question asked of the samples table as version 1 did.
     */
    private static void timeTop(FleetShipper shipper, URI endpoint, long samplesRows) throws Exception {
        PrintStream out = System.out;
        FleetCommands commands = new FleetCommands(shipper, null);
        out.println("summed by symbol: " + query(endpoint, "SELECT count() FROM hyperprof.symbol_samples")
                + " rows (" + samplesRows + " samples rows)");
        for (String what : List.of("symbols", "images")) {
            double[] runs = new double[10];
            double[] before = new double[10];
            String v1 = String.format(Locale.ROOT, TOP_OF_SAMPLES, what.equals("symbols") ? "symbol_name" : "''");
            PrintStream stdout = System.out;
            try (PrintStream sink = new PrintStream(OutputStreamSink.INSTANCE, true, StandardCharsets.UTF_8)) {
                System.setOut(sink);
                for (int i = -2; i < runs.length; i++) {
                    long t = System.nanoTime();
                    commands.fleet("top", what, "--top", "10");
                    long u = System.nanoTime();
                    query(endpoint, v1);
                    if (i >= 0) {
                        runs[i] = (u - t) / 1e6;
                        before[i] = (System.nanoTime() - u) / 1e6;
                    }
                }
            } finally {
                System.setOut(stdout);
            }
            out.printf(Locale.ROOT, "hp:fleet top %s over %d samples rows: %s; version 1's query of samples: %s%n",
                    what, samplesRows, meanSd(runs), meanSd(before));
        }
    }

    private static String meanSd(double[] runs) {
        double mean = 0;
        for (double r : runs) {
            mean += r / runs.length;
        }
        double var = 0;
        for (double r : runs) {
            var += (r - mean) * (r - mean) / (runs.length - 1);
        }
        return String.format(Locale.ROOT, "%.0f ± %.0f ms (mean ± sd of %d runs)", mean, Math.sqrt(var), runs.length);
    }

    private static String query(URI endpoint, String sql) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint)
                .POST(HttpRequest.BodyPublishers.ofString(sql)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(r.body());
        }
        return r.body().strip();
    }

    /** Where the commands' tables go while they are timed. */
    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }
}
