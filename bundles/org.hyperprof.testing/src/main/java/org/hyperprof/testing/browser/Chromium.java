package org.hyperprof.testing.browser;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Headless Chromium (Debian's {@code chromium}) driven from the command line: a screenshot of a
 * page, or the page's DOM after its scripts ran. Each run gets its own profile directory and no
 * network features, so it touches nothing outside the test's folder. Shared by the tests that check
 * what a browser draws (the flame graph, the study's chart).
 */
public final class Chromium {
    private static final long TIMEOUT_SECONDS = 90;

    private final Path executable;
    private final Path workDirectory;

    private Chromium(Path executable, Path workDirectory) {
        this.executable = executable;
        this.workDirectory = workDirectory;
    }

    /** The browser on the PATH, if there is one. */
    public static Optional<Chromium> find(Path workDirectory) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(new Chromium(candidate, workDirectory));
                }
            }
        }
        return Optional.empty();
    }

    /** Renders {@code url} into a {@code width} x {@code height} PNG. */
    public void screenshot(String url, Path png, int width, int height) throws IOException, InterruptedException {
        Files.deleteIfExists(png);
        run(List.of("--screenshot=" + png, "--window-size=" + width + "," + height, "--hide-scrollbars", url));
        if (!Files.isRegularFile(png)) {
            throw new AssertionError("chromium wrote no screenshot " + png);
        }
    }

    /** The DOM of {@code url} after its load handlers ran, serialized. */
    public String dumpDom(String url) throws IOException, InterruptedException {
        return run(List.of("--dump-dom", url));
    }

    private String run(List<String> arguments) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(workDirectory, "chromium-profile");
        Path stdout = Files.createTempFile(workDirectory, "chromium", ".out");
        Path stderr = Files.createTempFile(workDirectory, "chromium", ".err");
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile));
        command.addAll(arguments);
        Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            // Only this browser and the processes it started: never anything by name.
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("chromium did not finish within " + TIMEOUT_SECONDS + " s: " + command);
        }
        try {
            String out = Files.readString(stdout, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new AssertionError("chromium exited with " + p.exitValue() + ": " + command + "\n"
                        + Files.readString(stderr, StandardCharsets.UTF_8));
            }
            return out;
        } finally {
            delete(profile);
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    /** Removes the profile directory the browser left (best effort: a file it still holds stays). */
    private static void delete(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        }
    }
}
