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

/**
 * The session store as a benchmark's consumer: DuckDB in a temporary folder, bound lossless as the
 * framework binds it. The store writes a session's end after the profile or import returns;
 * {@link #awaitStored} waits for it outside the timed part, as a command in a shell finds the store
 * idle, so that a benchmark times what a command costs, not the last one's write.
 */
final class BenchStore {
    private final Path folder;
    private final ProfilerImpl publisher;
    private final SessionStoreComponent store;

    private BenchStore(ProfilerImpl publisher) throws IOException {
        this.folder = Files.createTempDirectory("hyperprof-bench-store");
        this.publisher = publisher;
        this.store = SessionStoreComponent.onClassPath(folder.resolve("store.duckdb"), "bench", System.err);
        publisher.addConsumer("store", store, Delivery.LOSSLESS);
    }

    /** A store bound to {@code publisher}. */
    static BenchStore boundTo(ProfilerImpl publisher) throws IOException {
        return new BenchStore(publisher);
    }

    SessionStoreComponent store() {
        return store;
    }

    /** Waits until session {@code id} is stored (not running any more). */
    void awaitStored(long id) throws StoreException, InterruptedException {
        while (store.session(id).map(s -> s.status().equals(StoredSession.RUNNING)).orElse(true)) {
            Thread.sleep(1);
        }
    }

    /** Unbinds the store and removes its folder. */
    void remove() throws IOException {
        publisher.removeConsumer("store");
        deleteFolder(folder);
    }

    static void deleteFolder(Path folder) throws IOException {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
