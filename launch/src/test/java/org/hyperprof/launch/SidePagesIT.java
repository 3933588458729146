package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.testing.clickhouse.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web view's fleet, study, live and annotate pages in Debian's chromium (launch/src/test/e2e/*.mjs), each
 * against what the shell says of the same thing: {@code hp:fleet top}'s first row from a real ClickHouse that two
 * hosts shipped to, {@code hp:study}'s figures, a profile started from the shell watched as it runs,
 * {@code hp:annotate}'s samples; and the fleet page gone from the navigation when the fleet bundle stops. One
 * resident framework (host hv-01, serving) of this class's own, stopped at the end.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SidePagesIT {
    private static final long GUARD_SECONDS = 150;
    /** The live page's sample consumer, registered while a live page is open. */
    private static final String LIVE_CONSUMER = "web-live";

    @TempDir
    static Path dir;
    static ClickHouseServer clickhouse;
    static Map<String, String> serving;
    static String address;
    /** An instant after every session the fleet test compares started, and before any other did. */
    static Instant shipped;

    /** A host's settings folder: its own store, its host.id, the fleet's endpoint (when ClickHouse is here). */
    private static Map<String, String> host(String id, boolean resident) throws IOException {
        Path config = Files.createDirectories(dir.resolve(id), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Files.writeString(config.resolve("org.hyperprof.store.cfg"), "path = " + config.resolve("store.duckdb")
                + "\nhost.id = " + id + "\n");
        if (clickhouse != null) {
            Files.writeString(config.resolve("org.hyperprof.fleet.cfg"), "endpoints = " + clickhouse.http() + "\n");
        }
        Map<String, String> env = new HashMap<>(Map.of("HYPERPROF_CONFIG_DIR", config.toString()));
        if (resident) {
            Path run = Files.createDirectories(dir.resolve("run"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            env.putAll(Map.of("HYPERPROF_RESIDENT", "on", "HYPERPROF_RUN_DIR", run.toString(),
                    "HYPERPROF_RESIDENT_IDLE", "300"));
        } else {
            env.put("HYPERPROF_RESIDENT", "off");
        }
        return env;
    }

    private static Run run(Map<String, String> env, String... lines) throws Exception {
        Run r = Run.of(LaunchMode.launcher(), dir, env, dir, lines);
        assertEquals(0, r.status(), String.join(" / ", lines) + ":\n" + r.out() + r.err());
        return r;
    }

    @BeforeAll
    static void serve() throws Exception {
        if (ClickHouseServer.installed()) {
            clickhouse = ClickHouseServer.start(dir.resolve("clickhouse"), ClickHouseServer.Options.plain());
            run(host("hv-02", false), "hp:profile --ms 100 --no-report --scenario consolidation", "hp:fleet ship");
        }
        serving = host("hv-01", true);
        Run r = run(serving, "hp:profile --ms 100 --no-report", "hp:serve");
        Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:[0-9]+/\\?token=[A-Za-z0-9_-]+").matcher(r.out());
        assertTrue(m.find(), "hp:serve printed its address:\n" + r.out());
        address = m.group();
        if (clickhouse != null) {
            // The store offers a session to the shipper once it has written its end, on its own thread: ship
            // until hv-01's session is in the fleet.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            while (!run(serving, "hp:fleet ship", "hp:fleet hosts --format csv").out().contains("\nhv-01,")) {
                assertTrue(System.nanoTime() < end, "hv-01's session never reached the fleet");
                Thread.sleep(200);
            }
            // The fleet test reads the sessions started before this second: the other tests' profiles, shipped
            // as they are stored, start after it and change nothing it compares.
            shipped = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
            while (Instant.now().isBefore(shipped)) {
                Thread.sleep(50);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (serving != null) {
            Run.of(LaunchMode.launcher(), dir, serving, dir, "--stop-server");
        }
        if (clickhouse != null) {
            clickhouse.close();
        }
    }

    /**
     * {@code node <script> args...} as {@link Browser#run} runs it, but its stderr read line by line as it comes
     * (to {@code said}), for a script that tells the test when to act.
     */
    private static CompletableFuture<String> node(List<String> said, String script, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("node", script));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(Browser.E2E.toFile()).start();
        Thread err = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null;) {
                    synchronized (said) {
                        said.add(line);
                        said.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the script ended
            }
        }, script + " stderr");
        err.setDaemon(true);
        err.start();
        return CompletableFuture.supplyAsync(() -> {
            try {
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (!p.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError(script + " did not end in " + GUARD_SECONDS + " s");
                }
                if (p.exitValue() != 0 || out.isEmpty()) {
                    throw new AssertionError(script + " failed (" + p.exitValue() + "): " + out + "\n" + said);
                }
                return out;
            } catch (IOException | InterruptedException e) {
                throw new AssertionError(script + ": " + e, e);
            }
        });
    }

    private static String verdict(String script, String... args) throws Exception {
        String v = Browser.run(script, args);
        // A request the page refused (a 400 it shows, a favicon it lacks) is logged by chromium; nothing else may be.
        assertTrue(!v.contains("\"failed\"") && Pattern.compile("\"errors\":\\[(\"console: Failed to load resource:"
                + "[^\"]*\",?)*\\]").matcher(v).find(), v);
        return v;
    }

    /** The JSON array member {@code name} of a verdict, its strings in order. */
    private static List<String> strings(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\\[([^\\]]*)\\]").matcher(json);
        assertTrue(m.find(), "no " + name + " in " + json);
        List<String> out = new ArrayList<>();
        Matcher s = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(m.group(1));
        while (s.find()) {
            out.add(s.group(1));
        }
        return out;
    }

    private static String string(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        assertTrue(m.find(), "no " + name + " in " + json);
        return m.group(1);
    }

    @Test
    void theFleetPageShowsHpFleetTopsFirstRowAndOneHostAgainstTheRest() throws Exception {
        assumeTrue(clickhouse != null, "clickhouse-server is not installed (.ci/run installs it)");
        String csv = run(serving, "hp:fleet top --top 30 --until " + shipped + " --format csv").out();
        List<String> first = List.of(csv.lines().skip(1).findFirst().orElseThrow().split(","));
        String v = verdict("fleet.mjs", address, "hv-02", "until=" + shipped);
        assertEquals(List.of("hv-01", "hv-02"), strings(v, "hosts"));
        assertEquals(first, strings(v, "firstRow"), "the page's first row is hp:fleet top's:\n" + csv + "\n" + v);
        assertTrue(strings(v, "nav").contains("Fleet"), v);
        assertEquals("hv-02 against the rest", string(v, "versusTitle"));
        String diff = run(serving, "hp:fleet diff symbols --a-hosts hv-01 --b-hosts hv-02 --a-until " + shipped
                + " --b-until " + shipped + " --format csv").out();
        List<String> firstDiff = List.of(diff.lines().skip(1).findFirst().orElseThrow().split(","));
        List<String> versus = strings(v, "versusFirst");
        // hp:fleet diff's baseline, delta, mark, samples A and B, image and symbol
        assertEquals(List.of(firstDiff.get(0), firstDiff.get(1), firstDiff.get(2), firstDiff.get(4), firstDiff.get(5),
                firstDiff.get(6), firstDiff.get(7)), List.of(versus.get(0), versus.get(1), versus.get(2),
                        versus.get(4), versus.get(5), versus.get(6), versus.get(7)), diff + "\n" + v);
        assertEquals("parameter 'mode' takes hypervisor, kernel and user, comma-separated, not 'guest'",
                string(v, "refusal"));
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: it stops and starts the fleet bundle under the other pages
    void withTheFleetBundleStoppedTheFleetPageIsGoneFromTheNavigationAndItsAddress() throws Exception {
        assertTrue(get("/api/pages").body().contains("\"path\":\"/fleet\""));
        Matcher bundle = Pattern.compile("(?m)^\\s*(\\d+)\\|Active.*\\|org\\.hyperprof\\.store\\.clickhouse ")
                .matcher(run(serving, "lb -s").out());
        assertTrue(bundle.find(), "the fleet bundle is active");
        String id = bundle.group(1);
        run(serving, "stop " + id);
        try {
            String pages = get("/api/pages").body();
            assertTrue(!pages.contains("/fleet") && pages.contains("\"path\":\"/study\""), pages);
            assertEquals(404, get("/fleet").statusCode());
            assertEquals(404, get("/api/fleet/top").statusCode());
        } finally {
            run(serving, "start " + id);
        }
        assertTrue(get("/api/pages").body().contains("\"path\":\"/fleet\""));
    }

    private static HttpResponse<String> get(String path) throws Exception {
        URI base = URI.create(address);
        String token = base.getQuery();
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve(path + (path.contains("?") ? "&"
                : "?") + token)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theStudyPageShowsHpStudysFiguresWithTheirIntervalsAndItsChart() throws Exception {
        Run study = run(serving, "hp:study --ms 20 --seeds 2 --policies systemwide,lazy --out " + dir.resolve("study"));
        String v = verdict("study.mjs", address);
        assertTrue(v.matches(".*\"chartWidth\":[1-9][0-9]*.*"), v);
        List<String> row = strings(v.substring(v.indexOf("\"rows\"")), "rows");
        assertEquals("systemwide", row.get(0));
        // hp:study's table: the same variant's hypervisor share and its first guest's error A, mean ± half-width
        String line = study.out().lines().filter(l -> l.startsWith("systemwide")).findFirst().orElseThrow();
        assertTrue(row.get(1).contains(" ± ") && line.contains(row.get(1)), row + "\n" + study.out());
        assertTrue(line.contains(row.get(8).replace(" *", "")), row + "\n" + study.out());
    }

    @Test
    void theAnnotatePageShowsHpAnnotatesSamplesAndSaysWhyAFunctionHasNoCode() throws Exception {
        assumeTrue(Files.isRegularFile(Path.of(System.getProperty("java.home"), "lib/server/libjvm.so")),
                "the JDK has no libjvm.so");
        Run profiled = run(serving, "hp:load real-elf-userland", "hp:profile --ms 200 --no-report");
        Matcher id = Pattern.compile("(?m)^session (\\d+): samples taken").matcher(profiled.out());
        assertTrue(id.find(), profiled.out());
        String json = run(serving, "hp:annotate JVM_ArrayCopy --session " + id.group(1) + " --format json").out();
        Matcher samples = Pattern.compile("\"samples\":(\\d+),\"sessionSamples\"").matcher(json);
        assertTrue(samples.find(), json);
        String v = verdict("annotate.mjs", address, id.group(1), "JVM_ArrayCopy", "net_tx_action");
        assertTrue(v.contains("\"samples\":" + samples.group(1) + ","), json + "\n" + v);
        assertTrue(string(v, "refusal").startsWith("cannot annotate net_tx_action: its image"), v);
    }

    @Test
    void theLivePageShowsAProfileStartedFromTheShellAsItRuns() throws Exception {
        assertTrue(!run(serving, "hp:consumers").out().contains(LIVE_CONSUMER), "no live page, no live consumer");
        List<String> said = new ArrayList<>();
        CompletableFuture<String> live = node(said, "live.mjs", address);
        synchronized (said) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            while (!said.contains("READY")) {
                assertTrue(System.nanoTime() < end && !live.isDone(), "live.mjs never said READY: " + said);
                said.wait(1000);
            }
        }
        assertTrue(run(serving, "hp:consumers").out().contains(LIVE_CONSUMER), "a live page open, its consumer bound");
        Run profiled = run(serving, "hp:load", "hp:profile --ms 2000 --no-report");
        String v = live.get(GUARD_SECONDS, TimeUnit.SECONDS);
        Matcher books = Pattern.compile("(?m)^session (\\d+): samples taken (\\d+) = delivered (\\d+)")
                .matcher(profiled.out());
        assertTrue(books.find(), profiled.out());
        assertTrue(v.contains("\"sawRunningWithResults\":true"), v);
        List<Double> fractions = new ArrayList<>();
        Matcher f = Pattern.compile("\"fractionsWhileRunning\":\\[([^\\]]*)\\]").matcher(v);
        assertTrue(f.find(), v);
        for (String x : f.group(1).split(",")) {
            fractions.add(Double.parseDouble(x));
        }
        assertTrue(fractions.stream().anyMatch(x -> x > 0 && x < 1), "progress seen on the way: " + fractions);
        for (int i = 1; i < fractions.size(); i++) {
            assertTrue(fractions.get(i) >= fractions.get(i - 1), "progress only grows: " + fractions);
        }
        assertTrue(string(v, "session").startsWith("Session " + books.group(1) + " (simulator, "), v);
        // The board is a queued consumer (a page never slows a profile down): it may miss samples, never add any.
        Matcher shown = Pattern.compile("2000 / 2000 ms simulated, (\\d+) samples").matcher(string(v, "progressText"));
        assertTrue(shown.matches(), v);
        long onBoard = Long.parseLong(shown.group(1));
        assertTrue(onBoard > 0 && onBoard <= Long.parseLong(books.group(3)), v + "\n" + profiled.out());
    }
}
