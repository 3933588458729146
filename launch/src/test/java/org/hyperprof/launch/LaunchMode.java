package org.hyperprof.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How {@code launch/hyperprof} runs command lines: in a JVM of its own ({@code HYPERPROF_RESIDENT=off})
 * or in the resident framework, here one of this test run's own (a private socket folder), never a
 * user's. Every test that runs the launcher says which, and the resident framework is stopped when
 * a test class is done, so no test leaves a JVM behind.
 */
enum LaunchMode {
    IN_PROCESS, RESIDENT;

    /** How long stopping the resident framework may take before the test run fails instead of hanging. */
    private static final long GUARD_SECONDS = 120;
    /** The resident framework's folder for this test run: made by Java with mode 0700 (and by the client again). */
    private static final Path RUN_DIR = runDir();
    /**
     * The launcher's configuration folder in the tests: in the build's output, made by the launcher,
     * with the session store's settings (made here): the sessions the tests make are stored in the
     * build's output too, never in the user's ~/.hyperprof/store.duckdb.
     */
    private static final Path CONFIG_DIR = configDir();

    private static Path configDir() {
        Path dir = Path.of("target", "it-config").toAbsolutePath();
        try {
            Files.createDirectories(dir,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.writeString(dir.resolve("org.hyperprof.store.cfg"),
                    "path = " + dir.resolveSibling("it-store").resolve("store.duckdb") + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    private static Path runDir() {
        try {
            return Files.createTempDirectory("hyperprof-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path launcher() {
        return Path.of(System.getProperty("hyperprof.launcher", "hyperprof")).toAbsolutePath();
    }

    static Path runDirectory() {
        return RUN_DIR;
    }

    /**
     * The environment that selects this mode; a resident framework idles out after two minutes at
     * most. The configuration folder is the build's, never the user's ~/.hyperprof/config (a test
     * that needs one of its own sets HYPERPROF_CONFIG_DIR over it).
     */
    Map<String, String> environment() {
        return this == IN_PROCESS ? Map.of("HYPERPROF_RESIDENT", "off", "HYPERPROF_CONFIG_DIR", CONFIG_DIR.toString())
                : Map.of("HYPERPROF_RESIDENT", "on", "HYPERPROF_RUN_DIR", RUN_DIR.toString(),
                        "HYPERPROF_RESIDENT_IDLE", "120", "HYPERPROF_CONFIG_DIR", CONFIG_DIR.toString());
    }

    /** {@code launch/hyperprof --stop-server} for this test run's resident framework. */
    static void stopServer() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(List.of(launcher().toString(), "--stop-server"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(RESIDENT.environment());
        Process p = pb.start();
        if (!p.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("launch/hyperprof --stop-server did not end in " + GUARD_SECONDS + " s");
        }
        // Its log and lock go too; the next resident run makes the folder again.
        try (Stream<Path> files = Files.list(RUN_DIR)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.delete(f);
            }
        }
        Files.delete(RUN_DIR);
    }
}
