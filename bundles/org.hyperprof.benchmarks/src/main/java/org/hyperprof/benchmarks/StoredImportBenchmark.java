package org.hyperprof.benchmarks;

import org.hyperprof.source.perf.PerfDataException;
import org.hyperprof.source.perf.PerfImport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

/**
 * The session store's cost on an import: {@link BigRecording} (500,000 samples or more with call
 * chains) imported with its call graph and published to the pipeline, with the store as a lossless
 * consumer ({@code -p store=true}) or no consumer ({@code store=false}). The store's engine is loaded
 * in the warm-up; the time per import includes waiting for the store to take every batch, as an import
 * waits for a lossless consumer, and not the store's write of the session after it.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar StoredImport -p store=false,true}
 */
public class StoredImportBenchmark extends RecordingImport {

    @Setup(Level.Trial)
    public void wire(BenchStore sessions) throws Exception {
        loadAndWire();
        sessions.bindTo(publisher);
    }

    @Benchmark
    public long importAndPublish(BenchStore sessions) throws PerfDataException {
        PerfImport.Result result = importAndPublishOnce();
        sessions.made(result.sessionId());
        return result.accounting().taken();
    }
}
