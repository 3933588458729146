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
 * What the benchmarks that import {@link BigRecording} share: the recording and the symbol tables, the
 * import published to a pipeline whose consumers the benchmark chooses, and JMH's run settings (inherited):
 * the time per import in milliseconds, in the launcher's 1 GB heap on transparent huge pages, as
 * launch/hyperprof runs it: the import's tables are tens of MB read at random; in alternating JVMs huge
 * pages took 5-10 % off the mean import, and the streaks of dozens of imports a fifth or more slower seen
 * with 4 KB pages did not come back. (A JVM that does not know the option, off Linux, ignores it.)
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions",
        "-XX:+UseTransparentHugePages"})
public abstract class RecordingImport {

    protected Path recording;
    protected SymbolTables resolvers;
    protected ProfilerImpl publisher;

    /** Finds (or records) the recording and loads the symbol tables. */
    protected void load() throws Exception {
        recording = BigRecording.get();
        resolvers = BigRecording.resolvers();
    }

    /** {@link #load()}, and the pipeline the imports are published to, without consumers. */
    protected void loadAndWire() throws Exception {
        load();
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
