package org.hyperprof.store.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.Driver;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import org.duckdb.DuckDBDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build runs these tests with java.io.tmpdir in target/ (the POM), so only this build's copies count. */
class NativeLibraryCopiesTest {

    private static long copies() throws IOException {
        long n = 0;
        try (DirectoryStream<Path> all = Files.newDirectoryStream(NativeLibraryCopies.temporaryFolder(),
                p -> NativeLibraryCopies.COPY.matcher(p.getFileName().toString()).matches())) {
            for (Path p : all) {
                n++;
            }
        }
        return n;
    }

    /** Loads DuckDB's driver in a class loader of its own (as a bundle's new revision does) and opens a database. */
    private static void loadAgain() throws Exception {
        URL jar = DuckDBDriver.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar},
                ClassLoader.getPlatformClassLoader())) {
            Driver d = (Driver) loader.loadClass("org.duckdb.DuckDBDriver").getDeclaredConstructor().newInstance();
            try (Connection c = d.connect("jdbc:duckdb:", new Properties())) {
                c.createStatement().execute("SELECT 42");
            }
        }
    }

    @Test
    void twoLoadsOfTheDriverLeaveAtMostOneCopyOfItsLibrary(@TempDir Path folder) throws Exception {
        StoreFixture f = new StoreFixture(folder.resolve("store.duckdb"));
        f.profile(1, "simulator");
        loadAgain();
        assertTrue(copies() >= 1, "each load of the driver copies its library");
        NativeLibraryCopies.removeLoaded();
        loadAgain();
        NativeLibraryCopies.removeLoaded();
        assertTrue(copies() <= 1, copies() + " copies");
        assertEquals(1, f.store.sessions(org.hyperprof.api.store.SessionQuery.visible()).size(),
                "the store works on with its library's file removed");
    }

    @Test
    void aSweepRemovesCopiesOlderThanAMinuteAndLeavesOnesBeingWritten(@TempDir Path folder) throws Exception {
        Instant now = Instant.now();
        Path old = Files.writeString(folder.resolve("libduckdb_java1234.so"), "left by a killed JVM");
        Files.setLastModifiedTime(old, FileTime.from(now.minus(Duration.ofMinutes(2))));
        Path fresh = Files.writeString(folder.resolve("libduckdb_java5678.so"), "being written");
        Path other = Files.writeString(folder.resolve("libother.so"), "not DuckDB's");
        Files.setLastModifiedTime(other, FileTime.from(now.minus(Duration.ofDays(1))));
        assertEquals(List.of(old), NativeLibraryCopies.sweep(folder, now));
        assertTrue(Files.exists(fresh));
        assertTrue(Files.exists(other));
    }
}
