package org.hyperprof.benchmarks;

import org.hyperprof.pipeline.Delivery;
import org.hyperprof.report.perfscript.PerfScriptConsumer;
import org.hyperprof.source.perf.PerfDataException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The perf script writer's cost on an import: {@link BigRecording} (500,000 samples or more with
 * call chains) imported with its call graph and published to the pipeline, with the perf script
 * consumer as a lossless consumer at its default ceilings ({@code -p keep=true}), keeping every
 * sample and frame, or no consumer ({@code keep=false}). The time per import includes waiting for
 * the consumer to take every batch, as an import waits for a lossless consumer.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar PerfScriptImport -p keep=false,true}
 */
public class PerfScriptImportBenchmark extends RecordingImport {

    @Param({"false", "true"})
    public boolean keep;

    @Setup(Level.Trial)
    public void wire() throws Exception {
        loadAndWire();
        if (keep) {
            // One session kept, as the benchmark's heap is the launcher's 1 GB.
            publisher.addConsumer(PerfScriptConsumer.NAME, new PerfScriptConsumer(PerfScriptConsumer.DEFAULT_MAX_SAMPLES,
                    PerfScriptConsumer.DEFAULT_MAX_FRAMES, 1), Delivery.LOSSLESS);
        }
    }

    @TearDown(Level.Trial)
    public void unwire() {
        publisher.removeConsumer(PerfScriptConsumer.NAME);
    }

    @Benchmark
    public long importAndPublish() throws PerfDataException {
        return importAndPublishOnce().accounting().taken();
    }
}
