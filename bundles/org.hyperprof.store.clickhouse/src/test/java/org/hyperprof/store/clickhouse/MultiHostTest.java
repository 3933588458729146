package org.hyperprof.store.clickhouse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.hyperprof.testing.clickhouse.TestNamespaces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three Hyperprof hosts, each a JVM of its own in a network namespace of its own, profile different
 * seeds at once and ship to one ClickHouse that listens on their veth links; one of them loses its link
 * between two of its sessions (the test takes its veth down, ClickHouse keeps running), keeps profiling
 * into its outbox, and catches up when the link is back. In the end every session is in ClickHouse once,
 * written by the shippers alone, and the fleet's counts per (host, session, event, symbol) equal the
 * hosts' local books exactly.
 */
class MultiHostTest {
    private static final int SESSIONS = 3;
    /** The host whose link goes down after its first session, and up after its last. */
    private static final int CUT = 1;

    @TempDir
    Path folder;

    /** A host's JVM: what it said, line by line, and its stdin. */
    private record Host(String id, Process process, BlockingQueue<String> said, PrintStream stdin) {
        String next(String prefix) throws InterruptedException {
            while (true) {
                String line = said.poll(120, TimeUnit.SECONDS);
                if (line == null) {
                    throw new AssertionError(id + " said nothing with " + prefix + " in 120 s");
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
    }

    @Test
    void threeHostsInTheirOwnNetworksShipExactlyOnceThoughOneLosesItsLinkBetweenTwoSessions() throws Exception {
        ClickHouseServer.assumeInstalled();
        assumeTrue(TestNamespaces.possible(), "network namespaces need root and iproute2's ip (.ci/run runs as root)");
        List<Host> hosts = new ArrayList<>();
        try (TestNamespaces nets = TestNamespaces.make(3)) {
            List<TestNamespaces.Namespace> ns = nets.namespaces();
            try (ClickHouseServer server = ClickHouseServer.start(folder.resolve("server"),
                    ClickHouseServer.Options.plain().withAlsoListenOn(ns.stream()
                            .map(TestNamespaces.Namespace::outsideAddress).toList()))) {
                for (int i = 0; i < ns.size(); i++) {
                    TestNamespaces.Namespace n = ns.get(i);
                    hosts.add(start("hv-" + (i + 1), n, "http://" + n.outsideAddress() + ":" + server.httpPort(),
                            1000L * (i + 1)));
                }
                Host cut = hosts.get(CUT);
                TestNamespaces.Namespace cutNet = ns.get(CUT);
                for (int k = 1; k < SESSIONS; k++) {
                    for (Host h : hosts) {
                        h.next("READY " + k);
                    }
                    if (k == 1) {
                        // Its first session reached ClickHouse: now its link goes down.
                        waitFor(() -> sessions(server, cut.id()) == 1, cut.id() + "'s first session shipped");
                        nets.link(cutNet, false);
                    }
                    for (Host h : hosts) {
                        h.stdin().println("go");
                    }
                }
                String last = cut.next("STORED");
                assertTrue(last.contains(" pending 2 problem ClickHouse at http://" + cutNet.outsideAddress()),
                        "its sessions wait in its outbox while the link is down: " + last);
                assertEquals(1, sessions(server, cut.id()), "nothing of it reached ClickHouse meanwhile");

                nets.link(cutNet, true);
                Map<String, String> books = new TreeMap<>();
                for (Host h : hosts) {
                    h.stdin().println("finish");
                    assertTrue(h.next("SHIPPED").endsWith(" pending 0 problem null"), h.id());
                    for (String line = h.next(""); !line.equals("DONE"); line = h.next("")) {
                        String[] kv = line.substring("BOOK ".length()).split(" = ");
                        books.put(kv[0], kv[1]);
                    }
                    assertTrue(h.process().waitFor(30, TimeUnit.SECONDS));
                }
                assertEquals(List.of("hv-1\t3", "hv-2\t3", "hv-3\t3"),
                        server.lines("SELECT host, count() FROM hyperprof.sessions GROUP BY host ORDER BY host"));
                Fleet.assertBooks(books, server, "");
                assertEquals(List.of(String.valueOf(FleetSchema.VERSION)),
                        server.lines("SELECT max(version) FROM hyperprof.schema_version"));
            }
        } finally {
            for (Host h : hosts) {
                h.process().destroyForcibly();
            }
        }
    }

    private Host start(String id, TestNamespaces.Namespace n, String endpoint, long seed) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = TestNamespaces.inside(n, List.of(java, "-Xmx256m",
                "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), "-cp",
                System.getProperty("java.class.path"), FleetHostProcess.class.getName(), id, folder.toString(),
                endpoint, String.valueOf(seed), String.valueOf(SESSIONS), "3000"));
        Process p = new ProcessBuilder(command).redirectError(folder.resolve(id + ".err").toFile()).start();
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    said.add(line);
                }
            } catch (IOException e) {
                // The host ended.
            }
        }, "host-" + id);
        reader.setDaemon(true);
        reader.start();
        return new Host(id, p, said, new PrintStream(p.getOutputStream(), true, StandardCharsets.UTF_8));
    }

    private static long sessions(ClickHouseServer server, String host) {
        try {
            return Long.parseLong(server.query("SELECT count() FROM hyperprof.sessions WHERE host = '" + host + "'")
                    .strip());
        } catch (IOException | NumberFormatException e) {
            return -1; // the tables are not made yet
        }
    }

    private interface Check {
        boolean holds();
    }

    private static void waitFor(Check check, String what) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not in 60 s: " + what);
    }
}
