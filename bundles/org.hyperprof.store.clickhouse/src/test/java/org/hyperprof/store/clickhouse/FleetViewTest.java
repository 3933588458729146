package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.hyperprof.api.store.FleetDiff;
import org.hyperprof.api.store.FleetHost;
import org.hyperprof.api.store.FleetSelection;
import org.hyperprof.api.store.FleetTop;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fleet's questions as a service give what hp:fleet prints, row for row, from one real ClickHouse. */
class FleetViewTest {
    static ClickHouseServer server;
    static final List<FleetShipper> SHIPPERS = new ArrayList<>();
    @TempDir
    static Path folder;

    @BeforeAll
    static void start() throws Exception {
        ClickHouseServer.assumeInstalled();
        server = ClickHouseServer.start(folder.resolve("server"), ClickHouseServer.Options.plain());
        for (int i = 1; i <= 3; i++) {
            SimulatedHost host = new SimulatedHost(folder, "web-0" + i);
            FleetShipper shipper = Fleet.shipper(host, Fleet.at(server.http()), new ByteArrayOutputStream());
            SHIPPERS.add(shipper);
            host.profile(10L * i, 2000);
            host.profile(10L * i + 1, 2000);
            assertNull(shipper.shipNow().problem());
        }
    }

    @AfterAll
    static void stop() {
        SHIPPERS.forEach(FleetShipper::close);
        if (server != null) {
            server.close();
        }
    }

    private String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FleetCommands(SHIPPERS.get(0), new OutputFilesComponent(), Console.of(new PrintStream(out, true,
                StandardCharsets.UTF_8), System.err), ZoneOffset.UTC).fleet(args);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void hostsAreTheHostsHpFleetHostsLists() throws Exception {
        List<FleetHost> hosts = new FleetViewComponent(SHIPPERS.get(0)).hosts();
        List<String> csv = run("hosts", "--format", "csv").lines().skip(1).toList();
        assertEquals(csv.size(), hosts.size());
        for (int i = 0; i < hosts.size(); i++) {
            FleetHost h = hosts.get(i);
            assertEquals(csv.get(i).split(",")[0] + "," + csv.get(i).split(",")[3], h.host() + "," + h.samples());
            assertEquals(2, h.sessions());
        }
    }

    @Test
    void topIsHpFleetTopRowForRow() throws Exception {
        List<FleetTop> top = new FleetViewComponent(SHIPPERS.get(0)).top(FleetSelection.ALL, true, 10);
        List<String> csv = run("top", "symbols", "--top", "10", "--format", "csv").lines().skip(1).toList();
        assertEquals(10, top.size());
        for (int i = 0; i < top.size(); i++) {
            FleetTop r = top.get(i);
            assertEquals(csv.get(i), r.samples() + "," + String.format(Locale.ROOT, "%.4f%%", 100 * r.share()) + ","
                    + r.weight() + "," + r.hosts() + "," + r.image() + "," + r.symbol());
        }
    }

    @Test
    void filtersAreTheCommandsFilters() throws Exception {
        FleetSelection hypervisor = new FleetSelection(List.of("web-02"), null, null, null, List.of(2), null);
        List<FleetTop> top = new FleetViewComponent(SHIPPERS.get(0)).top(hypervisor, false, 5);
        assertEquals(1, top.size());
        assertEquals("xen-syms", top.get(0).image());
        assertEquals(1.0, top.get(0).share());
        assertEquals(run("top", "images", "--hosts", "web-02", "--mode", "hypervisor", "--format", "csv").lines()
                .skip(1).findFirst().orElseThrow().split(",")[0], String.valueOf(top.get(0).samples()));
    }

    @Test
    void oneHostAgainstTheRestIsHpFleetDiffOfTheTwoGroups() throws Exception {
        FleetDiff d = new FleetViewComponent(SHIPPERS.get(0)).diff(FleetSelection.ALL.withHosts(List.of("web-01",
                "web-03")), FleetSelection.ALL.withHosts(List.of("web-02")), false, 30);
        List<String> csv = run("diff", "images", "--a-hosts", "web-01,web-03", "--b-hosts", "web-02", "--format",
                "csv").lines().skip(1).toList();
        assertEquals(csv.size(), d.rows().size());
        for (int i = 0; i < csv.size(); i++) {
            FleetDiff.Row r = d.rows().get(i);
            String[] f = csv.get(i).split(",");
            assertEquals(f[1] + "," + f[2] + "," + f[4] + "," + f[5] + "," + f[6], String.format(Locale.ROOT,
                    "%+.4f%%", r.deltaPoints()) + "," + (r.marked() ? "*" : "") + "," + r.samplesA() + ","
                    + r.samplesB() + "," + r.image());
        }
        assertTrue(d.totalA() > d.totalB() && d.totalB() > 0, d.totalA() + " / " + d.totalB());
    }

    @Test
    void withNoEndpointItSaysWhichSettingIsMissing() {
        try (FleetShipper none = new FleetShipper(FleetSettings.of(List.of(), ""), null, "test", System.err)) {
            StoreException e = assertThrows(StoreException.class, () -> new FleetViewComponent(none).hosts());
            assertTrue(e.getMessage().startsWith("no ClickHouse endpoint is configured (setting endpoints of pid"
                    + " org.hyperprof.fleet"), e.getMessage());
        }
    }
}
