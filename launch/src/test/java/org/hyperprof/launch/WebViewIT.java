package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web view (hp:serve) in the launcher as users run it. In a real browser (playwright-core driving
 * Debian's chromium): the sessions page lists the stored sessions, a session's page its report, its
 * flame graph searched for a symbol gives the share hp:report gives that symbol, and the diff of two
 * sessions hp:diff's deltas and marks. Over plain HTTP: a wrong Host header or a missing token is
 * refused, every answer carries the Content-Security-Policy, and two Hyperprof processes serve at once.
 */
class WebViewIT {
    private static final Pattern ADDRESS = Pattern.compile("(http://127\\.0\\.0\\.1:(\\d+)/\\?token=([A-Za-z0-9_-]+))");
    private static final String SYMBOL = "__copy_to_user_ll";

    @TempDir
    static Path dir;
    private static Map<String, String> env;
    private static String a;
    private static String b;

    /** Two stored sessions of the default scenario, 300 and 100 simulated ms, in a store of the test's own. */
    @BeforeAll
    static void twoStoredSessions() throws Exception {
        Path config = Files.createDirectory(dir.resolve("config"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(config.resolve("org.hyperprof.store.cfg"), "path = " + dir.resolve("store.duckdb") + "\n");
        env = Map.of("HYPERPROF_RESIDENT", "off", "HYPERPROF_CONFIG_DIR", config.toString());
        Run r = Run.of(LaunchMode.launcher(), dir, env, dir, "hp:profile --ms 300 --no-report",
                "hp:profile --ms 100 --no-report");
        assertEquals(0, r.status(), r.err());
        Matcher m = Pattern.compile("(?m)^session (\\d+): samples taken").matcher(r.out());
        assertTrue(m.find(), r.out());
        a = m.group(1);
        assertTrue(m.find(), r.out());
        b = m.group(1);
    }

    @Test
    void aUserWalksFromTheSessionsToAFlameGraphAndADiffThatAgreeWithTheCommands() throws Exception {
        Run report = Run.of(LaunchMode.launcher(), dir, env, dir, "hp:report --session " + a + " --format json top=500");
        Run diff = Run.of(LaunchMode.launcher(), dir, env, dir, "hp:diff " + a + " " + b + " symbols top=1000 --format json");
        assertEquals(0, report.status(), report.err());
        assertEquals(0, diff.status(), diff.err());
        double expected = symbolShare(report.out(), SYMBOL);

        try (Launcher served = Launcher.piped(env, "--serve")) {
            Matcher address = served.await(ADDRESS, 0);
            String verdict = Browser.run("sessions.mjs", address.group(1), SYMBOL, a, b);

            assertTrue(verdict.contains("\"sessionsPage\":{\"state\":\"ready\""), verdict);
            assertEquals(2, (int) Browser.number(verdict, "sessionRows"), verdict);
            assertTrue(Browser.number(verdict, "reportRows") > 10, verdict);
            assertTrue(verdict.contains("\"flamePage\":{\"state\":\"ready\""), verdict);
            assertEquals(expected, 100 * Browser.number(verdict, "flameShare"), 0.001,
                    "the flame graph's share of " + SYMBOL + " is hp:report's (" + expected + " %): " + verdict);
            assertTrue(verdict.contains("\"zoomCrumbs\":\"all → Domain-0\""), "a click zooms to the frame: " + verdict);
            assertTrue(verdict.contains("\"zoomKept\":true"), "the address keeps the zoom and the search");
            assertTrue(verdict.contains("\"diffPage\":{\"state\":\"ready\""), verdict);
            List<String[]> shown = diffRows(verdict);
            assertTrue(shown.size() >= 10, "the diff page shows hp:diff's rows");
            for (String[] row : shown.subList(0, 10)) {
                String line = diffLine(diff.out(), row[0], row[1], row[2]);
                assertTrue(line.contains(String.format(Locale.ROOT, "\"delta\": \"%+.4f%%\"", Double.parseDouble(row[3]))),
                        "hp:diff's delta of " + row[2] + " is the page's " + row[3] + ": " + line);
                assertTrue(line.contains("\"mark\": \"" + row[4] + "\""), "the same mark: " + line);
            }
            assertTrue(verdict.contains("\"errors\":[]"), "no script error in the pages: "
                    + verdict.substring(verdict.indexOf("\"errors\"")));
            served.terminate();
            assertEquals(143, served.exitStatus(), served.transcript());
        }
    }

    @Test
    void aWrongHostOrNoTokenIsRefusedAndEveryAnswerCarriesThePolicy() throws Exception {
        try (Launcher served = Launcher.piped(env, "--serve")) {
            Matcher address = served.await(ADDRESS, 0);
            int port = Integer.parseInt(address.group(2));
            String token = address.group(3);

            String ok = get(port, "/api/pages?token=" + token, "127.0.0.1:" + port);
            assertTrue(ok.startsWith("HTTP/1.1 200"), ok);
            assertTrue(ok.contains("\"path\":\"/\""), "the sessions page is listed: " + ok);
            assertTrue(ok.contains("Set-Cookie: hyperprof-" + port + "=" + token + "; Path=/; HttpOnly; SameSite=Strict"), ok);
            String rebound = get(port, "/api/pages?token=" + token, "attacker.example:" + port);
            assertTrue(rebound.startsWith("HTTP/1.1 403"), "a rebound name is refused: " + rebound);
            String noToken = get(port, "/api/sessions", "localhost:" + port);
            assertTrue(noToken.startsWith("HTTP/1.1 403"), "no token is refused: " + noToken);
            String wrongToken = get(port, "/static/hp.js?token=" + token.substring(1) + "x", "localhost:" + port);
            assertTrue(wrongToken.startsWith("HTTP/1.1 403"), wrongToken);
            for (String answer : List.of(ok, rebound, noToken)) {
                assertTrue(answer.contains("Content-Security-Policy: default-src 'none'; script-src 'self';"), answer);
            }
            String bad = get(port, "/api/report?id=x1&token=" + token, "127.0.0.1:" + port);
            assertTrue(bad.startsWith("HTTP/1.1 400") && bad.contains("parameter 'id' is 'x1'"), bad);

            // A second Hyperprof process serves at once, on a port of its own.
            try (Launcher second = Launcher.piped(env, "--serve")) {
                Matcher other = second.await(ADDRESS, 0);
                int port2 = Integer.parseInt(other.group(2));
                assertNotEquals(port, port2);
                assertTrue(get(port2, "/api/pages?token=" + other.group(3), "localhost:" + port2).startsWith("HTTP/1.1 200"));
                assertTrue(get(port2, "/api/pages?token=" + token, "localhost:" + port2).startsWith("HTTP/1.1 403"),
                        "one process's token opens only its own view");
                assertTrue(get(port, "/api/pages?token=" + token, "localhost:" + port).startsWith("HTTP/1.1 200"));
                second.terminate();
                second.exitStatus();
            }
            served.terminate();
            served.exitStatus();
        }
    }

    /** Nothing listens before hp:serve; it listens after; hp:serve --stop and uninstalling the bundle end it. */
    @Test
    void nothingListensBeforeHpServeAndUninstallingTheBundleTakesTheViewAway() throws Exception {
        try (Launcher shell = Launcher.interactive()) {
            shell.type("hp:version");
            shell.await("(?i)hyperprof");
            long pid = shell.pid();  // the launcher script; the JVM is its child
            assertEquals(Set.of(), ListeningSockets.of(pid), "no socket listens after startup");
            assertEquals(0, loadedJettyClasses(pid), "Jetty is not loaded before hp:serve");

            int from = shell.lineCount();
            shell.type("hp:serve");
            Matcher address = shell.await(ADDRESS, from);
            int port = Integer.parseInt(address.group(2));
            assertEquals(Set.of(port), ListeningSockets.of(pid));

            from = shell.lineCount();
            shell.type("hp:serve --stop");
            shell.await(Pattern.compile("stopped; nothing listens"), from);
            assertEquals(Set.of(), ListeningSockets.of(pid));

            from = shell.lineCount();
            shell.type("hp:serve");
            Matcher again = shell.await(ADDRESS, from);
            assertEquals(Set.of(Integer.parseInt(again.group(2))), ListeningSockets.of(pid));
            from = shell.lineCount();
            shell.type("uninstall org.hyperprof.web");
            shell.type("hp:serve");
            shell.await(Pattern.compile("(?i)command not found|hp:serve.*not"), from);
            assertEquals(Set.of(), ListeningSockets.of(pid), "the view went with its bundle");
            shell.endInput();
            shell.exitStatus();
        }
    }

    /** How many classes of Jetty the JVM has loaded (jcmd's class histogram lists loaded classes with instances). */
    private static int loadedJettyClasses(long pid) throws IOException, InterruptedException {
        long jvm = ProcessHandle.of(pid).flatMap(h -> h.descendants().filter(d -> d.info().command().orElse("")
                .endsWith("java")).findFirst()).map(ProcessHandle::pid).orElse(pid);
        Process p = new ProcessBuilder("jcmd", Long.toString(jvm), "VM.class_hierarchy").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        assertTrue(out.contains("java.lang.Object"), "jcmd listed the loaded classes: " + out);
        int n = 0;
        for (String line : out.split("\n")) {
            if (line.contains("org.eclipse.jetty.")) {
                n++;
            }
        }
        return n;
    }

    /** The sum of hp:report's shares of a symbol in the merged section ("all"), over domains and images. */
    private static double symbolShare(String json, String symbol) {
        double sum = 0;
        Matcher row = Pattern.compile("\\{[^{}]*\\}").matcher(json);
        while (row.find()) {
            String r = row.group();
            if (r.contains("\"section\": \"all\"") && r.contains("\"summary\": \"symbol\"")
                    && r.contains("\"symbol_name\": \"" + symbol + "\"")) {
                Matcher p = Pattern.compile("\"percent\": ([0-9.]+)").matcher(r);
                assertTrue(p.find(), r);
                sum += Double.parseDouble(p.group(1));
            }
        }
        assertTrue(sum > 0, "hp:report has a row of " + symbol + ":\n" + json);
        return sum;
    }

    /** The page's diff rows: domain, image, symbol, delta (points), mark. */
    private static List<String[]> diffRows(String verdict) {
        List<String[]> rows = new ArrayList<>();
        Matcher m = Pattern.compile("\\{\"domain\":\"([^\"]*)\",\"image\":\"([^\"]*)\",\"symbol\":\"([^\"]*)\","
                + "\"delta\":(-?[0-9.eE+-]+),\"mark\":\"([^\"]*)\"\\}").matcher(verdict);
        while (m.find()) {
            rows.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)});
        }
        return rows;
    }

    private static String diffLine(String json, String domain, String image, String symbol) {
        for (String line : json.split("\n")) {
            if (line.contains("\"domain\": \"" + domain + "\"") && line.contains("\"image\": \"" + image + "\"")
                    && line.contains("\"symbol\": \"" + symbol + "\"")) {
                return line;
            }
        }
        throw new AssertionError("hp:diff has no row " + domain + " " + image + " " + symbol);
    }

    /** One GET with the given Host header over a plain socket; the status line and headers (and body). */
    private static String get(int port, String path, String host) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
