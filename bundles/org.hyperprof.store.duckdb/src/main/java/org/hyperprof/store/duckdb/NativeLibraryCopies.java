package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Keeps DuckDB's copies of its native library from piling up in the temporary folder.
 *
 * <p>Why: DuckDB's JDBC driver (2.0.0.1; read in duckdb/duckdb-java,
 * {@code src/main/java/org/duckdb/DuckDBNative.java}, and checked with {@code javap} on the jar's
 * class) loads its library in {@code DuckDBNative}'s static initializer: when the jar holds
 * {@code /libduckdb_java.so_<os>_<arch>} (it always does; 71 MB for linux-amd64) it copies it to
 * {@code Files.createTempFile("libduckdb_java", ".so")} in {@code java.io.tmpdir}, marks the copy
 * {@code deleteOnExit} and {@code System.load}s it. No system property or fixed path changes that
 * ({@code System.loadLibrary("duckdb_java")} and the jar's own folder are tried only when the jar
 * holds no library), and a library loaded by our class loader would not serve the driver's native
 * methods, which JNI links through the driver's own loader. So every load makes a 71 MB copy, and a
 * JVM killed with kill -9 never runs its {@code deleteOnExit}.
 *
 * <p>What: Linux (and macOS) keep a loaded library mapped after its file is removed, so the store
 * removes its process's copy as soon as the driver has loaded it ({@link #removeLoaded}, found in
 * {@code /proc/self/maps}), and before that sweeps copies older than a minute ({@link #sweep}): left by
 * JVMs killed in the second between the copy and its removal, or by other programs that load the
 * driver (removing a copy another running JVM has loaded takes nothing from it). A copy younger than
 * a minute may be one another JVM is still writing, so it stays. Simpler than a cache file of our
 * own: that would need the driver to load from a path, which it cannot.
 */
final class NativeLibraryCopies {
    /** DuckDB's temporary file names: {@code libduckdb_java} + digits + {@code .so}. */
    static final Pattern COPY = Pattern.compile("libduckdb_java\\d*\\.so");

    /** A copy this old is no longer being written by anyone. */
    static final Duration SETTLED = Duration.ofMinutes(1);

    private NativeLibraryCopies() {
    }

    /** Removes the copies in {@code folder} last written before {@code now - SETTLED}; the paths removed. */
    static List<Path> sweep(Path folder, Instant now) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(folder,
                p -> COPY.matcher(p.getFileName().toString()).matches())) {
            for (Path copy : copies) {
                try {
                    if (Files.getLastModifiedTime(copy).toInstant().isBefore(now.minus(SETTLED))
                            && Files.deleteIfExists(copy)) {
                        removed.add(copy);
                    }
                } catch (IOException e) {
                    // Another user's copy, or gone meanwhile: not ours to remove.
                }
            }
        } catch (IOException e) {
            // No temporary folder to sweep.
        }
        return removed;
    }

    /** Removes the copies this process has loaded (Linux's /proc/self/maps names them); the paths removed. */
    static List<Path> removeLoaded() {
        List<Path> removed = new ArrayList<>();
        Path maps = Path.of("/proc/self/maps");
        if (!Files.isReadable(maps)) {
            return removed;
        }
        try {
            for (String line : Files.readAllLines(maps, StandardCharsets.UTF_8)) {
                int slash = line.indexOf('/');
                if (slash < 0) {
                    continue;
                }
                Path file = Path.of(line.substring(slash));
                if (COPY.matcher(file.getFileName().toString()).matches() && Files.deleteIfExists(file)) {
                    removed.add(file);
                }
            }
        } catch (IOException e) {
            // Unreadable maps or a copy we may not remove: the next sweep takes it.
        }
        return removed;
    }

    /** The temporary folder DuckDB copies into. */
    static Path temporaryFolder() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }
}
