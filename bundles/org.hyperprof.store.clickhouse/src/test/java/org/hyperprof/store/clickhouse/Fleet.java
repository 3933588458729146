package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.testing.clickhouse.ClickHouseServer;

/** What the fleet's tests check on a ClickHouse server, and shippers for their hosts. */
final class Fleet {
    private Fleet() {
    }

    /**
     * A shipper of {@code host}'s outbox to these endpoints, bound to its store as DS binds it. Binding
     * wakes the shipper: that first round is waited for here, so that on a loaded machine it cannot run
     * after a test's first session is stored and ship it ahead of the round the test watches.
     */
    static FleetShipper shipper(SimulatedHost host, FleetSettings settings, ByteArrayOutputStream said)
            throws org.hyperprof.api.store.StoreException {
        FleetShipper s = new FleetShipper(settings, host.store, "test", new PrintStream(said, true,
                StandardCharsets.UTF_8));
        host.store.setShipping(host.offeringTo(s));
        s.settle();
        return s;
    }

    static FleetSettings at(String... endpoints) {
        return FleetSettings.of(List.of(endpoints).stream().map(URI::create).toList(), "");
    }

    /**
     * The fleet's books on {@code server}: per (host, session, event, symbol) the samples and weight of the
     * committed sessions only, keyed as {@link SimulatedHost#books()} keys them.
     */
    static Map<String, String> books(ClickHouseServer server, String table) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try {
            for (String[] f : ServerReply.rows(server.query("SELECT host, session, event_name, symbol_name,"
                    + " sum(samples), sum(weight) FROM hyperprof." + table + " WHERE (host, session, attempt) IN"
                    + " (SELECT host, id, min(attempt) FROM hyperprof.sessions GROUP BY host, id)"
                    + " GROUP BY host, session, event_name, symbol_name"), 6)) {
                out.put(f[0] + " " + f[1] + " " + f[2] + " " + f[3], f[4] + " " + f[5]);
            }
        } catch (FleetException e) {
            throw new IOException(e.getMessage(), e);
        }
        return out;
    }

    /**
     * The fleet's books on {@code server} equal {@code expected}, in the samples table and in the samples
     * the server summed by symbol ({@code suffix} "_all" to read both through a cluster's Distributed tables).
     */
    static void assertBooks(Map<String, String> expected, ClickHouseServer server, String suffix) throws IOException {
        assertEquals(expected, books(server, "samples" + suffix));
        assertEquals(expected, books(server, "symbol_samples" + suffix),
                "the samples summed by symbol");
    }

    /** Every row of the samples table, committed or not: samples summed. */
    static long allSamples(ClickHouseServer server) throws IOException {
        return Long.parseLong(server.query("SELECT sum(samples) FROM hyperprof.samples").strip());
    }

    static long sessionRows(ClickHouseServer server) throws IOException {
        return Long.parseLong(server.query("SELECT count() FROM hyperprof.sessions").strip());
    }
}
