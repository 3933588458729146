package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.store.SessionOutbox;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fleet made by Hyperprof of fleet schema version 1 (no {@code symbol_samples}) and upgraded by the
 * first host of version 2 that ships there: the sessions version 1 shipped, before the upgrade and after
 * it, are counted from {@code samples}, the others from the samples the server summed by symbol, each
 * exactly once.
 */
class SchemaUpgradeTest {
    @TempDir
    static Path folder;
    static ClickHouseServer server;

    @BeforeAll
    static void start() throws Exception {
        ClickHouseServer.assumeInstalled();
        server = ClickHouseServer.start(folder.resolve("server"), ClickHouseServer.Options.plain());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The fleet's tables as version 1 made them (its schema, kept as released). */
    private static void makeVersion1(ClickHouseHttp http, URI at) throws Exception {
        String script;
        try (InputStream in = SchemaUpgradeTest.class.getResourceAsStream("fleet-schema-v1.sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String statement : FleetSchema.statements(script, "hyperprof")) {
            http.query(at, statement);
        }
        http.query(at, "INSERT INTO hyperprof.schema_version VALUES (1, 'old', 'hv-old', now())");
    }

    /** Ships a stored session as version 1's shipper did: every table, the sessions row last, version 1 in it. */
    private static void shipAsVersion1(ClickHouseHttp http, URI at, SimulatedHost host, long id, long attempt)
            throws Exception {
        String day = LocalDate.now(ZoneOffset.UTC).toString();
        String prefix = host.hostId + "\t" + day + "\t" + attempt + "\t";
        for (String table : SessionOutbox.TABLES) {
            String line = table.equals("sessions") ? prefix + Instant.now().getEpochSecond() + "\t1\told\tPIII\t\t\t"
                    : prefix;
            http.insert(at, table, out -> host.store.copy(id, table, line, out));
        }
    }

    private static Map<String, Long> symbols(Map<String, String> books) {
        Map<String, Long> out = new TreeMap<>();
        for (var e : books.entrySet()) {
            String[] k = e.getKey().split(" ");
            if (k[2].startsWith("CPU_CLK_UNHALTED")) {
                out.merge(k[3], Long.parseLong(e.getValue().split(" ")[0]), Long::sum);
            }
        }
        return out;
    }

    @Test
    void sessionsOfBothVersionsCountOnceInTopAfterTheUpgrade() throws Exception {
        URI at = URI.create(server.http());
        FleetSettings settings = Fleet.at(server.http());
        ClickHouseHttp http = new ClickHouseHttp(settings);
        makeVersion1(http, at);
        SimulatedHost old = new SimulatedHost(folder, "hv-old");
        shipAsVersion1(http, at, old, old.profile(1, 2000), 11);

        SimulatedHost upgraded = new SimulatedHost(folder, "hv-new");
        try (FleetShipper shipper = Fleet.shipper(upgraded, settings, new ByteArrayOutputStream())) {
            upgraded.profile(2, 2000);
            assertNull(shipper.shipNow().problem());
            assertEquals(List.of(String.valueOf(FleetSchema.VERSION)),
                    server.lines("SELECT max(version) FROM hyperprof.schema_version"));
            // The old host ships once more after the upgrade: the server sums its rows too, and they
            // must still count once.
            shipAsVersion1(http, at, old, old.profile(3, 2000), 12);

            Map<String, Long> expected = new TreeMap<>(symbols(old.books()));
            symbols(upgraded.books()).forEach((k, v) -> expected.merge(k, v, Long::sum));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            new FleetCommands(shipper, new OutputFilesComponent(), Console.of(new PrintStream(out, true,
                    StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)), ZoneOffset.UTC)
                    .fleet("top", "symbols", "--top", "1000", "--format", "csv");
            assertEquals("", err.toString(StandardCharsets.UTF_8));
            List<String> csv = out.toString(StandardCharsets.UTF_8).lines().toList();
            Map<String, Long> got = new TreeMap<>();
            for (String line : csv.subList(1, csv.size())) {
                String[] f = line.split(",");
                got.merge(f[5], Long.parseLong(f[0]), Long::sum);
            }
            assertEquals(expected, got);
            assertTrue(server.lines("SELECT count() FROM hyperprof.symbol_samples WHERE host = 'hv-old'").get(0)
                    .matches("[1-9][0-9]*"), "the server summed the old host's later rows too");
        }
    }
}
