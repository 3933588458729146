package org.hyperprof.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.store.duckdb.SessionStoreComponent;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The session store as a benchmark's consumer, on with {@code -p store=true}: DuckDB in a temporary
 * folder, bound lossless as the framework binds it. The store writes a session's end after the
 * profile or import returns; after each call the benchmark waits for it, outside the timed part, as a
 * command in a shell finds the store idle, so that a call is timed with what it costs, not with the
 * last one's write.
 */
@State(Scope.Benchmark)
public class BenchStore {

    /** Whether the store is a consumer. */
    @Param({ "false" })
    public boolean store;

    private Path folder;
    private ProfilerImpl publisher;
    private SessionStoreComponent sessions;
    private long last = Long.MIN_VALUE;

    /** Binds the store to {@code publisher}, when on. */
    void bindTo(ProfilerImpl to) throws IOException {
        if (store) {
            folder = Files.createTempDirectory("hyperprof-bench-store");
            publisher = to;
            sessions = SessionStoreComponent.onClassPath(folder.resolve("store.duckdb"), "bench", System.err);
            publisher.addConsumer("store", sessions, Delivery.LOSSLESS);
        }
    }

    /** The session the call made, which the store writes after it. */
    void made(long session) {
        last = session;
    }

    /** Waits until the last session is stored (not running any more). */
    @TearDown(Level.Invocation)
    public void awaitStored() throws StoreException, InterruptedException {
        while (sessions != null && sessions.session(last).map(s -> s.status().equals(StoredSession.RUNNING))
                .orElse(true)) {
            Thread.sleep(1);
        }
    }

    /** Unbinds the store and removes its folder. */
    @TearDown(Level.Trial)
    public void remove() throws IOException {
        if (sessions != null) {
            publisher.removeConsumer("store");
            deleteFolder(folder);
        }
    }

    static void deleteFolder(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
