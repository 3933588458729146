package org.hyperprof.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.source.perf.ImportOptions;
import org.hyperprof.source.perf.PerfDataException;
import org.hyperprof.source.perf.PerfDataReader;
import org.hyperprof.source.perf.PerfImport;
import org.hyperprof.pipeline.SymbolTables;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the consumer-cost benchmarks share: {@link BigRecording} imported with its call graph and published
 * to a pipeline whose consumers the benchmark chooses, timed per import in the launcher's 1 GB heap on
 * transparent huge pages (see {@link PerfImportBenchmark} for why huge pages). JMH's run settings are
 * inherited by the benchmarks below.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions",
        "-XX:+UseTransparentHugePages"})
public abstract class PublishedImport {

    private Path recording;
    private SymbolTables resolvers;
    protected ProfilerImpl publisher;

    /** Finds (or records) the recording, loads the symbol tables and makes the pipeline, without consumers. */
    protected void load() throws Exception {
        recording = BigRecording.get();
        resolvers = BigRecording.resolvers();
        publisher = new ProfilerImpl(new HostServiceImpl());
    }

    /** One import published to the pipeline; fails when it took fewer samples than the recording holds. */
    protected PerfImport.Result importAndPublishOnce() throws PerfDataException {
        try (PerfDataReader r = PerfDataReader.open(recording)) {
            PerfImport.Result result = new PerfImport(resolvers, ImportOptions.defaults().withCallchains(true), true)
                    .run(r, publisher, "perf.data", null, false);
            Accounting books = result.accounting();
            if (books.taken() < BigRecording.MIN_SAMPLES) {
                throw new IllegalStateException("imported " + books);
            }
            return result;
        }
    }
}
