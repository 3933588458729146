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
 * profile is stored and hp:sessions lists it, in one call, so in one JVM start.
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
}
