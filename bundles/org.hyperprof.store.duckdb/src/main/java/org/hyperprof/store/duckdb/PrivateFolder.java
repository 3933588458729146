package org.hyperprof.store.duckdb;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A temporary folder of this process's own (mode 0700), deleted with all it holds when closed: the
 * only place where the store's SQL reads or writes files (an archive's Parquet entries), so no SQL
 * text ever names a path the user gave.
 */
final class PrivateFolder implements AutoCloseable {
    private final Path path;

    private PrivateFolder(Path path) {
        this.path = path;
    }

    static PrivateFolder make(String prefix) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return new PrivateFolder(Files.createTempDirectory(prefix,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))));
        }
        return new PrivateFolder(Files.createTempDirectory(prefix));
    }

    Path path() {
        return path;
    }

    /** The file {@code name} in it; names are the code's own (a table's name and a suffix), never a user's. */
    Path file(String name) {
        Path file = path.resolve(name);
        if (!file.getParent().equals(path)) {
            throw new IllegalArgumentException("not a plain file name: " + name);
        }
        return file;
    }

    /** The file as a single-quoted SQL string literal. */
    static String literal(Path file) {
        return "'" + file.toString().replace("'", "''") + "'";
    }

    @Override
    public void close() throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        List<Path> all;
        try (Stream<Path> walk = Files.walk(path)) {
            all = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : all) {
            Files.deleteIfExists(p);
        }
    }
}
