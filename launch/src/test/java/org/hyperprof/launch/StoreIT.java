package org.hyperprof.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session store in the launcher as users run it: DuckDB's bundle is not in the launch, and the
 * store installs it (the jar the build put next to the launcher) when the first session starts. A
 * profile is stored and hp:sessions lists it, in one call, so in one JVM start; profiles outlive
 * their JVM, compare, travel in an archive to another home and survive a JVM killed mid-profile.
 */
class StoreIT {
    @TempDir
    Path dir;

    @Test
    void aProfileIsStoredAtItsFirstUseOfTheStoreAndListedByHpSessions() throws Exception {
        Path config = Files.createDirectory(dir.resolve("config"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path store = dir.resolve("my store").resolve("store.duckdb");
        Files.writeString(config.resolve("org.hyperprof.store.cfg"), "path = " + store + "\n");
        Map<String, String> env = Map.of("HYPERPROF_RESIDENT", "off", "HYPERPROF_CONFIG_DIR", config.toString());

        Run r = Run.of(LaunchMode.launcher(), dir, env, dir, "hp:profile --ms 50 --no-report", "hp:sessions");

        assertEquals(0, r.status(), r.err());
        Matcher profiled = Pattern.compile("(?m)^session (\\d+): samples taken").matcher(r.out());
        assertTrue(profiled.find(), r.out());
        String id = profiled.group(1);
        assertTrue(Pattern.compile("(?m)^" + id + " .* completed$").matcher(r.out()).find(),
                "hp:sessions lists session " + id + " as completed:\n" + r.out());
        assertTrue(Files.isRegularFile(store), store + " was not made");
        assertEquals("", r.err());
    }

    /** A launcher call with a home of its own (the store in its ~/.hyperprof), each call its own JVM. */
    private Run inHome(Path home, String... lines) throws Exception {
        return Run.of(LaunchMode.launcher(), dir, homeEnvironment(home), dir, lines);
    }

    private static Map<String, String> homeEnvironment(Path home) throws java.io.IOException {
        Files.createDirectories(home);
        return Map.of("HYPERPROF_RESIDENT", "off", "HYPERPROF_JAVA_OPTS", "-Duser.home=" + home,
                "HYPERPROF_CONFIG_DIR", home.resolve(".hyperprof/config").toString());
    }

    private static String sessionId(Run r) {
        Matcher profiled = Pattern.compile("(?m)^session (\\d+): samples taken").matcher(r.out());
        assertTrue(profiled.find(), r.out() + r.err());
        return profiled.group(1);
    }

    /**
     * The promise on a fresh clone: the main job twice, hp:sessions lists both with their
     * metadata, hp:diff compares them, and hp:archive + hp:restore under another empty home give
     * hp:report --session ID byte for byte.
     */
    @Test
    void profilesOutliveTheirJvmCompareAndTravelToAnotherHomeByteForByte() throws Exception {
        Path home = dir.resolve("home");
        Run first = inHome(home);
        Run second = inHome(home);
        assertEquals(0, first.status(), first.err());
        assertEquals(0, second.status(), second.err());
        String a = sessionId(first);
        String b = sessionId(second);
        assertTrue(Files.isRegularFile(home.resolve(".hyperprof/store.duckdb")), "the default store is in the home");

        Run listed = inHome(home, "hp:sessions --format csv");
        assertEquals(0, listed.status(), listed.err());
        for (String id : new String[] {a, b}) {
            assertTrue(Pattern.compile("(?m)^" + id + ",.*,simulator,xen-summit-2006-network,i386/p6,"
                    + "CPU_CLK_UNHALTED:100000:0x00,\\d+,completed,").matcher(listed.out()).find(),
                    "hp:sessions lists " + id + " with its metadata:\n" + listed.out());
        }

        Path archive = dir.resolve("session " + a + ".zip");
        Run compared = inHome(home, "hp:diff " + a + " " + b, "hp:report --session " + a,
                "hp:archive " + a + " '" + archive + "'");
        assertEquals(0, compared.status(), compared.err());
        assertTrue(compared.out().contains("Differential profile of session " + b + " (B) against session " + a
                + " (A, the baseline)"), compared.out());
        assertTrue(compared.out().contains("* where |delta| > 3·√(se_A² + se_B²)"), compared.out());
        String report = compared.out().substring(compared.out().indexOf("CPU: "), compared.out().indexOf(
                "archived session " + a));

        Path elsewhere = dir.resolve("another-home");
        Run restored = inHome(elsewhere, "hp:restore '" + archive + "'", "hp:report --session " + a);
        assertEquals(0, restored.status(), restored.err());
        assertTrue(restored.out().startsWith("restored session " + a + " ("), restored.out());
        String again = restored.out().substring(restored.out().indexOf("CPU: "));
        assertEquals(report, again, "hp:report --session " + a + " after hp:restore in another home");
    }

    /** A JVM killed (SIGKILL) during a long profile leaves the sessions stored before it listed. */
    @Test
    void aJvmKilledDuringALongProfileLeavesTheEarlierSessionsListed() throws Exception {
        Path home = dir.resolve("home");
        Run earlier = inHome(home, "hp:profile --ms 20 --no-report");
        assertEquals(0, earlier.status(), earlier.err());
        String id = sessionId(earlier);

        Path out = dir.resolve("long.out");
        ProcessBuilder pb = new ProcessBuilder(LaunchMode.launcher().toString(), "hp:profile --ms 100000 --no-report")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(homeEnvironment(home));
        Process p = pb.start();
        try {
            // Killed once it samples: its session has started, and its store row says running.
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.readString(out).contains("% ") && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Files.readString(out).contains("% "), "the long profile made progress:\n"
                    + Files.readString(out));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
        }

        Run listed = inHome(home, "hp:sessions --format csv");
        assertEquals(0, listed.status(), listed.err());
        assertTrue(Pattern.compile("(?m)^" + id + ",.*,completed,").matcher(listed.out()).find(),
                "the session stored before the kill is listed:\n" + listed.out());
        assertEquals(3, listed.out().lines().count(), "the earlier session and the killed one:\n" + listed.out());
    }
}
