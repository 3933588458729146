package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.hyperprof.testing.clickhouse.CuttingProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each session counts exactly once in the fleet, though the network loses a reply after the server
 * committed an insert, or cuts an insert in the middle: the fleet's counts per (host, session, event,
 * symbol) equal the host's local books. One real clickhouse-server (inserts committed every 1000 rows, so
 * a cut insert leaves rows behind), a loopback proxy in front of it.
 */
class ExactlyOnceTest {
    static ClickHouseServer server;
    @TempDir
    static Path folder;

    @BeforeAll
    static void start() throws Exception {
        ClickHouseServer.assumeInstalled();
        server = ClickHouseServer.start(folder.resolve("server"), ClickHouseServer.Options.plain()
                .withInsertBlockRows(1000));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The server's tables emptied, for a test of its own. */
    private static void empty() throws Exception {
        for (String v : FleetSchema.VIEWS) {
            server.query("DROP TABLE IF EXISTS hyperprof." + v);
        }
        for (String t : FleetSchema.DISTRIBUTED) {
            server.query("DROP TABLE IF EXISTS hyperprof." + t);
        }
        server.query("DROP TABLE IF EXISTS hyperprof.schema_version");
    }

    /** What a test does with a host shipping through the cutting proxy. */
    private interface ThroughProxy {
        void run(SimulatedHost host, CuttingProxy proxy, FleetShipper shipper) throws Exception;
    }

    /** An empty fleet, a new host named {@code hostName}, its shipper sending through a cutting proxy. */
    private void throughProxy(String hostName, ThroughProxy test) throws Exception {
        empty();
        SimulatedHost host = new SimulatedHost(folder, hostName);
        try (CuttingProxy proxy = new CuttingProxy(server.httpPort());
                FleetShipper shipper = Fleet.shipper(host, Fleet.at(proxy.http()), new ByteArrayOutputStream())) {
            test.run(host, proxy, shipper);
        }
    }

    @Test
    void everySessionShipsOnceAndTheFleetsCountsEqualTheLocalBooks() throws Exception {
        empty();
        SimulatedHost host = new SimulatedHost(folder, "host-a");
        try (FleetShipper shipper = Fleet.shipper(host, Fleet.at(server.http()), new ByteArrayOutputStream())) {
            for (long seed = 1; seed <= 3; seed++) {
                host.profile(seed, 3000);
            }
            FleetStatus status = shipper.shipNow();
            assertNull(status.problem());
            assertTrue(status.pending().isEmpty());
            Fleet.assertBooks(host.books(), server, "");
            assertEquals(3, Fleet.sessionRows(server));
            shipper.shipNow(); // nothing pending: nothing shipped again
            assertEquals(3, Fleet.sessionRows(server));
            Fleet.assertBooks(host.books(), server, "");
        }
    }

    @Test
    void aReplyLostAfterTheSessionsRowCommittedCountsTheSessionOnce() throws Exception {
        throughProxy("host-b", (host, proxy, shipper) -> {
            proxy.dropReplyTo("hyperprof.sessions+FORMAT");
            long id = host.profile(11, 2000); // its end stored wakes the shipper
            FleetStatus first = shipper.settle();
            assertEquals(1, proxy.fired());
            assertNotNull(first.problem(), "the shipper never heard the server commit");
            assertEquals(id, first.pending().get(0).id(), "the session stays in the outbox");
            assertEquals(1, Fleet.sessionRows(server), "the server committed it all the same");

            FleetStatus second = shipper.shipNow();
            assertNull(second.problem());
            assertTrue(second.pending().isEmpty());
            assertEquals(1, Fleet.sessionRows(server), "found committed, not shipped again");
            Fleet.assertBooks(host.books(), server, "");
        });
    }

    @Test
    void aShipmentThatOutlastsTheWaitGoesOnWithoutAProblemAndCountsOnce() throws Exception {
        throughProxy("host-h", (host, proxy, shipper) -> {
            shipper.waitsAtMost(Duration.ofMillis(200));
            proxy.holdReplyTo("hyperprof.sessions+FORMAT");
            long id = host.profile(41, 2000); // its end stored wakes the shipper, whose last insert waits
            FleetStatus during = shipper.shipNow();
            assertNull(during.problem(), "a shipment still going is no failure (it said: " + during.problem() + ")");
            assertEquals(id, during.pending().get(0).id(), "the session stays in the outbox meanwhile");

            proxy.release();
            shipper.waitsAtMost(Duration.ofMinutes(10));
            FleetStatus after = shipper.settle();
            assertEquals(1, proxy.fired());
            assertNull(after.problem());
            assertTrue(after.pending().isEmpty());
            assertEquals(1, Fleet.sessionRows(server));
            Fleet.assertBooks(host.books(), server, "");
        });
    }

    @Test
    void aReplyLostToARowsInsertLeavesRowsThatNeverCount() throws Exception {
        throughProxy("host-c", (host, proxy, shipper) -> {
            proxy.dropReplyTo("hyperprof.samples+FORMAT");
            host.profile(21, 2000);
            assertNotNull(shipper.settle().problem());
            long written = Fleet.allSamples(server);
            assertTrue(written > 0, "the server committed the samples whose reply was lost");
            assertTrue(Fleet.books(server, "samples").isEmpty(), "no sessions row: nothing counts");
            assertTrue(Fleet.books(server, "symbol_samples").isEmpty(), "no sessions row: nothing counts");

            assertNull(shipper.shipNow().problem());
            Fleet.assertBooks(host.books(), server, "");
            assertEquals(1, Fleet.sessionRows(server));
        });
    }

    @Test
    void anInsertCutInTheMiddleLeavesRowsThatNeverCount() throws Exception {
        throughProxy("host-d", (host, proxy, shipper) -> {
            proxy.cutRequest("hyperprof.samples+FORMAT", 1_700_000); // past the server's first 1 MiB read
            long id = host.profile(31, 20000);
            FleetStatus cut = shipper.settle();
            assertEquals(1, proxy.fired());
            assertNotNull(cut.problem());
            assertEquals(id, cut.pending().get(0).id());
            long partial = Fleet.allSamples(server);
            long local = host.books().values().stream().mapToLong(v -> Long.parseLong(v.split(" ")[0])).sum();
            assertTrue(partial > 0 && partial < local, "part of the samples were written: " + partial + " of "
                    + local + " (" + cut.problem() + ")");
            assertEquals(0, Fleet.sessionRows(server));

            FleetStatus again = shipper.shipNow();
            assertNull(again.problem());
            Fleet.assertBooks(host.books(), server, "");
            Map<String, String> none = new HashMap<>();
            assertFalse(Fleet.books(server, "samples").equals(none));
        });
    }

    @Test
    void namesWithTabsNewlinesBackslashesAndQuotesArriveAsTheyWere() throws Exception {
        empty();
        SimulatedHost host = new SimulatedHost(folder, "host-'odd'", new String[] {"xen\tfn ", "kernel\nfn\\ ",
            "app 'fn' \"\u00e9\u4e2d\" "});
        try (FleetShipper shipper = Fleet.shipper(host, Fleet.at(server.http()), new ByteArrayOutputStream())) {
            host.profile(41, 1000);
            assertNull(shipper.shipNow().problem());
            Fleet.assertBooks(host.books(), server, "");
            assertTrue(host.books().keySet().stream().anyMatch(k -> k.contains("kernel\nfn\\ ")));
        }
    }
}
