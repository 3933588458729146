package org.hyperprof.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.duckdb.DuckDBDriver;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.store.duckdb.SessionStoreComponent;
import org.hyperprof.store.duckdb.StoreCommands;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code hp:sessions} on a store of {@link #sessions} sessions (target: under 100 ms for 10,000): the
 * whole command as the shell runs it, opening the store's file, querying it newest first and printing
 * the aligned table (to nowhere). The store is made at setup: one session written by the store, then
 * copied with new ids and start times in SQL.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar StoreListing}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreListingBenchmark {

    @Param({ "10000" })
    public int sessions;

    private Path folder;
    private StoreCommands commands;
    private final CountingStream listed = new CountingStream();

    @Setup(Level.Trial)
    public void fill() throws Exception {
        folder = Files.createTempDirectory("hyperprof-bench-store");
        Path file = folder.resolve("store.duckdb");
        SessionStoreComponent store = SessionStoreComponent.onClassPath(file, "bench", System.err);
        store.sessionStarted(new SessionInfo(1, "simulator", "default-host", "i386/p6", "PIII", 2000, List.of(),
                Map.of(0, "Domain-0"), false, new Dictionary()));
        store.sessionEnded(new SessionSummary(1, Accounting.ZERO, List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED));
        // The store writes on its own thread: the copies are made once it has closed the file.
        while (!store.session(1).map(s -> s.status().equals(StoredSession.COMPLETED)).orElse(false)) {
            Thread.sleep(1);
        }
        try (Connection c = connectOnceClosed(file); Statement s = c.createStatement()) {
            s.execute("INSERT INTO sessions SELECT s.* REPLACE (s.id + r.i AS id,"
                    + " s.started_at - to_seconds(r.i) AS started_at, s.ended_at - to_seconds(r.i) AS ended_at)"
                    + " FROM sessions s, range(1, " + sessions + ") r(i)");
        }
        commands = new StoreCommands(store, new PrintStream(listed, false, StandardCharsets.UTF_8), System.err);
    }

    /**
     * A connection of its own to the store's file, once the store has closed it (it keeps it open a
     * moment after its last use, and DuckDB opens a file open in the process only with its settings).
     */
    private static Connection connectOnceClosed(Path file) throws Exception {
        for (int tries = 0; ; tries++) {
            try {
                return new DuckDBDriver().connect("jdbc:duckdb:" + file, new Properties());
            } catch (java.sql.SQLException e) {
                if (tries == 100 || e.getMessage() == null || !e.getMessage().contains("different configuration")) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    @TearDown(Level.Trial)
    public void remove() throws IOException {
        BenchStore.deleteFolder(folder);
    }

    @Benchmark
    public long listAll() {
        long before = listed.bytes;
        commands.sessions();
        long printed = listed.bytes - before;
        if (printed < sessions * 40L) {
            throw new IllegalStateException("hp:sessions printed " + printed + " bytes for " + sessions + " sessions");
        }
        return printed;
    }

    /** Where the listing goes: counted, not kept. */
    private static final class CountingStream extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
