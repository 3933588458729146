package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.hyperprof.command.kit.Console;
import org.hyperprof.output.OutputFilesComponent;
import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet across two ClickHouse servers as shards of one cluster: each host's sessions go to one
 * shard's own tables, and hp:fleet reads them through Distributed tables, so its answers are the whole
 * fleet's. Three hosts of different seeds and applications.
 */
class TwoShardsTest {
    @TempDir
    static Path folder;
    static ClickHouseServer first;
    static ClickHouseServer second;
    static final List<SimulatedHost> HOSTS = new ArrayList<>();
    static final List<FleetShipper> SHIPPERS = new ArrayList<>();
    static FleetSettings settings;

    @BeforeAll
    static void start() throws Exception {
        ClickHouseServer.assumeInstalled();
        int tcp1 = ClickHouseServer.freePort();
        int tcp2 = ClickHouseServer.freePort();
        ClickHouseServer.Options cluster = ClickHouseServer.Options.plain().withShards(List.of(tcp1, tcp2));
        first = ClickHouseServer.start(folder.resolve("shard-1"), cluster, ClickHouseServer.freePort(), tcp1);
        second = ClickHouseServer.start(folder.resolve("shard-2"), cluster, ClickHouseServer.freePort(), tcp2);
        settings = FleetSettings.of(List.of(URI.create(first.http()), URI.create(second.http())), "fleet");
        // Hosts on both shards: a host's shard is its host.id's hash modulo the endpoints.
        for (String id : List.of("hv-01", "hv-02", "hv-03", "hv-04")) {
            SimulatedHost h = new SimulatedHost(folder, id);
            HOSTS.add(h);
            SHIPPERS.add(Fleet.shipper(h, settings, new ByteArrayOutputStream()));
        }
        long seed = 100;
        for (int i = 0; i < HOSTS.size(); i++) {
            for (int k = 0; k < 2; k++) {
                HOSTS.get(i).profile(seed++, 1500 + 500 * i);
            }
            assertNull(SHIPPERS.get(i).shipNow().problem());
        }
    }

    @AfterAll
    static void stop() {
        SHIPPERS.forEach(FleetShipper::close);
        for (ClickHouseServer s : new ClickHouseServer[] {first, second}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private static Map<String, String> localBooks() throws Exception {
        Map<String, String> all = new TreeMap<>();
        for (SimulatedHost h : HOSTS) {
            all.putAll(h.books());
        }
        return all;
    }

    @Test
    void eachShardHoldsItsHostsAndTheDistributedTablesTheWholeFleet() throws Exception {
        Set<String> onFirst = new HashSet<>(first.lines("SELECT DISTINCT host FROM hyperprof.sessions"));
        Set<String> onSecond = new HashSet<>(second.lines("SELECT DISTINCT host FROM hyperprof.sessions"));
        assertTrue(!onFirst.isEmpty() && !onSecond.isEmpty(), onFirst + " / " + onSecond);
        assertTrue(onFirst.stream().noneMatch(onSecond::contains));
        Fleet.assertBooks(localBooks(), first, "_all");
        Fleet.assertBooks(localBooks(), second, "_all");
    }

    private String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        new FleetCommands(SHIPPERS.get(0), new OutputFilesComponent(), Console.of(new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)), ZoneOffset.UTC)
                .fleet(args);
        assertEquals("", err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void hostsListsEveryHostOfBothShardsWithItsSessionsAndSamples() throws Exception {
        List<String> csv = run("hosts", "--format", "csv").lines().toList();
        assertEquals("host,last_session,sessions,samples,cpu,hypervisor,kernel,hyperprof,schema", csv.get(0));
        assertEquals(HOSTS.size() + 1, csv.size());
        for (int i = 0; i < HOSTS.size(); i++) {
            String[] f = csv.get(i + 1).split(",");
            assertEquals(HOSTS.get(i).hostId, f[0]);
            assertEquals("2", f[2]);
            long local = HOSTS.get(i).books().values().stream().mapToLong(v -> Long.parseLong(v.split(" ")[0])).sum();
            assertEquals(String.valueOf(local), f[3]);
            assertEquals("test", f[7]);
            assertEquals(String.valueOf(FleetSchema.VERSION), f[8]);
        }
    }

    @Test
    void topSumsEachSymbolAcrossTheFleetsHosts() throws Exception {
        Map<String, Long> expected = new TreeMap<>();
        for (SimulatedHost h : HOSTS) {
            for (var e : h.books().entrySet()) {
                String[] k = e.getKey().split(" ");
                if (k[2].startsWith("CPU_CLK_UNHALTED")) {
                    expected.merge(k[3], Long.parseLong(e.getValue().split(" ")[0]), Long::sum);
                }
            }
        }
        List<String> csv = run("top", "symbols", "--top", "1000", "--format", "csv").lines().toList();
        assertEquals("samples,share,weight,hosts,image,symbol", csv.get(0));
        Map<String, Long> got = new TreeMap<>();
        for (String line : csv.subList(1, csv.size())) {
            String[] f = line.split(",");
            got.merge(f[5], Long.parseLong(f[0]), Long::sum);
        }
        assertEquals(expected, got);
        String hypervisorOnly = run("top", "images", "--mode", "hypervisor", "--format", "csv");
        assertEquals(List.of("samples,share,weight,hosts,image"), hypervisorOnly.lines().limit(1).toList());
        assertTrue(hypervisorOnly.lines().skip(1).allMatch(l -> l.endsWith(",xen-syms")), hypervisorOnly);
    }

    @Test
    void diffComparesTwoGroupsOfHostsWithHpDiffsNoiseMarks() throws Exception {
        String text = run("diff", "images", "--a-hosts", "hv-01,hv-02", "--b-hosts", "hv-03,hv-04");
        assertTrue(text.startsWith("Fleet diff of group B ("), text);
        assertTrue(text.contains("BASELINE"), text);
        assertTrue(text.strip().endsWith(org.hyperprof.report.kit.Shares.RULE), text);
        // Each session runs the application of its seed (app-<seed % 3>): hv-01 (seeds 100, 101) runs app-1
        // and app-2, hv-02 (102, 103) app-0 and app-1, so app-0 is all B's and app-2 all A's: both stand out.
        List<String> csv = run("diff", "images", "--a-hosts", "hv-01", "--b-hosts", "hv-02", "--format", "csv")
                .lines().toList();
        assertEquals("baseline,delta,mark,ratio,samples_a,samples_b,image", csv.get(0));
        String app0 = csv.stream().filter(l -> l.endsWith(",/usr/bin/app-0")).findFirst().orElseThrow();
        assertTrue(app0.startsWith("0.0000%,+") && app0.contains(",*,,0,"), app0);
        String app2 = csv.stream().filter(l -> l.endsWith(",/usr/bin/app-2")).findFirst().orElseThrow();
        assertTrue(app2.contains(",*,0.000000,") && app2.endsWith(",0,/usr/bin/app-2"), app2);
        String xen = csv.stream().filter(l -> l.endsWith(",xen-syms")).findFirst().orElseThrow();
        assertTrue(xen.contains(",,"), "the hypervisor's share moves with the applications' but stays: " + xen);
    }

    @Test
    void exportWritesAFleetProfileThatPprofSlicesByHost() throws Exception {
        Path pb = folder.resolve("fleet.pb.gz");
        String said = run("export", "pprof", pb.toString());
        assertTrue(said.startsWith("wrote the fleet profile of 4 hosts"), said);
        Path folded = folder.resolve("fleet.folded");
        run("export", "flamegraph", folded.toString());
        long total = 0;
        for (String line : Files.readAllLines(folded)) {
            assertTrue(HOSTS.stream().anyMatch(h -> line.startsWith(h.hostId + ";")), line);
            total += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
        }
        long expected = 0;
        for (SimulatedHost h : HOSTS) {
            expected += h.books().entrySet().stream().filter(e -> e.getKey().split(" ")[2].startsWith("CPU_CLK"))
                    .mapToLong(e -> Long.parseLong(e.getValue().split(" ")[0])).sum();
        }
        assertEquals(expected, total);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/go")), "go is not installed: pprof not run");
        Process p = new ProcessBuilder("go", "tool", "pprof", "-raw", "-tagfocus=host=hv-03", pb.toString())
                .redirectErrorStream(true).start();
        String raw = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), raw);
        long hv03 = HOSTS.get(2).books().entrySet().stream().filter(e -> e.getKey().split(" ")[2].startsWith("CPU_CLK"))
                .mapToLong(e -> Long.parseLong(e.getValue().split(" ")[0])).sum();
        long sliced = 0;
        boolean inSamples = false;
        for (String line : raw.lines().toList()) {
            if (line.startsWith("Samples:")) {
                inSamples = true;
                continue;
            }
            if (line.startsWith("Locations")) {
                break;
            }
            String t = line.strip();
            if (inSamples && !t.isEmpty() && Character.isDigit(t.charAt(0))) {
                sliced += Long.parseLong(t.split("\\s+")[0]);
            }
        }
        assertEquals(hv03, sliced, raw);
    }
}
