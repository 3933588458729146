package org.hyperprof.store.clickhouse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fleet's tables ({@code fleet-schema-v2.sql}) made on a server when missing, the Distributed tables
 * over them when a cluster is set, and the schema version kept in the cluster: a server whose tables are
 * of a later version than this Hyperprof writes is refused, so hosts of different versions are told apart
 * and never mix rows of different meanings.
 */
final class FleetSchema {
    /** The version of the fleet's tables this Hyperprof writes. */
    static final int VERSION = 2;
    /** The first version whose sessions have their samples summed in {@code symbol_samples}. */
    static final int SUMMED_SINCE = 2;
    /**
     * The tables of a session's rows, as the local store names them (and the fleet's tables are named),
     * and {@code symbol_samples}, which the server fills from {@code samples}: each has a Distributed
     * table over it in a cluster, daily partitions and an attempt column.
     */
    static final List<String> DISTRIBUTED = List.of("sessions", "samples", "stacks", "names", "truth", "counters",
            "buffers", "consumers", "host_counters", "symbol_samples");
    /** The materialized views: dropped before the tables they read, made after them. */
    static final List<String> VIEWS = List.of("symbol_samples_feed");

    private FleetSchema() {
    }

    /** The statements that make the tables in database {@code db}. */
    static List<String> statements(String db) {
        String script;
        try (InputStream in = FleetSchema.class.getResourceAsStream("fleet-schema-v" + VERSION + ".sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return statements(script, db);
    }

    /** The statements of a schema {@code script} (written as {@code fleet-schema-v2.sql} is) for database {@code db}. */
    static List<String> statements(String script, String db) {
        // Comment lines out, then one statement per ';' that ends a line.
        String code = script.lines().filter(line -> !line.strip().startsWith("--"))
                .collect(java.util.stream.Collectors.joining("\n"));
        List<String> out = new ArrayList<>();
        for (String statement : code.split(";[ \t]*(\n|$)")) {
            if (!statement.isBlank()) {
                out.add(statement.strip().replace("${db}", db));
            }
        }
        return out;
    }

    /** The Distributed table over {@code table} on every server of {@code cluster}: {@code <table>_all}. */
    static String distributed(String db, String cluster, String table) {
        return "CREATE TABLE IF NOT EXISTS " + db + "." + table + "_all AS " + db + "." + table
                + " ENGINE = Distributed(" + cluster + ", " + db + ", " + table + ")";
    }

    /**
     * Makes what is missing on {@code endpoint} and checks the version its tables are of; records this
     * host's version the first time it writes there.
     *
     * @throws FleetException (SCHEMA) when the server's tables are of a later version
     */
    static void ensure(ClickHouseHttp http, URI endpoint, String host, String hyperprofVersion) throws FleetException {
        FleetSettings s = http.settings();
        for (String statement : statements(s.database())) {
            http.query(endpoint, statement);
        }
        if (!s.cluster().isEmpty()) {
            for (String table : DISTRIBUTED) {
                http.query(endpoint, distributed(s.database(), s.cluster(), table));
            }
        }
        long newest = ServerReply.number(http.query(endpoint, "SELECT max(version) FROM " + s.database()
                + ".schema_version"));
        if (newest > VERSION) {
            throw new FleetException(FleetException.Kind.SCHEMA, -1, "the fleet's tables at "
                    + ClickHouseHttp.where(endpoint) + " are of schema version " + newest + "; this Hyperprof writes"
                    + " version " + VERSION + ": upgrade Hyperprof on this host (its sessions wait in the outbox)");
        }
        long mine = ServerReply.number(http.query(endpoint, "SELECT count() FROM " + s.database()
                + ".schema_version WHERE version = " + VERSION + " AND host = " + Sql.quote(host)
                + " AND hyperprof_version = " + Sql.quote(hyperprofVersion)));
        if (mine == 0) {
            http.query(endpoint, "INSERT INTO " + s.database() + ".schema_version VALUES (" + VERSION + ", "
                    + Sql.quote(hyperprofVersion) + ", " + Sql.quote(host) + ", now())");
        }
    }
}
