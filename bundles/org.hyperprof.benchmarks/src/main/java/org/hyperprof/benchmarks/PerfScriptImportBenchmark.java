package org.hyperprof.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.report.perfscript.PerfScriptConsumer;
import org.hyperprof.source.perf.ImportOptions;
import org.hyperprof.source.perf.PerfDataException;
import org.hyperprof.source.perf.PerfDataReader;
import org.hyperprof.source.perf.PerfImport;
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
 * The perf script writer's cost on an import: {@link BigRecording} (500,000 samples or more with
 * call chains) imported with its call graph and published to the pipeline, with the perf script
 * consumer as a lossless consumer at its default ceilings ({@code -p keep=true}), keeping every
 * sample and frame, or no consumer ({@code keep=false}). The time per import includes waiting for
 * the consumer to take every batch, as an import waits for a lossless consumer.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar PerfScriptImport -p keep=false,true}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions",
        "-XX:+UseTransparentHugePages"})
public class PerfScriptImportBenchmark {

    @Param({"false", "true"})
    public boolean keep;

    private Path recording;
    private SymbolTables resolvers;
    private ProfilerImpl publisher;

    @Setup(Level.Trial)
    public void wire() throws Exception {
        recording = BigRecording.get();
        resolvers = BigRecording.resolvers();
        publisher = new ProfilerImpl(new HostServiceImpl());
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
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            PerfImport.Result result = new PerfImport(resolvers, ImportOptions.defaults().withCallchains(true), true)
                    .run(r, publisher, "perf.data", null, false);
            Accounting books = result.accounting();
            if (books.taken() < BigRecording.MIN_SAMPLES) {
                throw new IllegalStateException("imported " + books);
            }
            return books.taken();
        }
    }
}
