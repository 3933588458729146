package org.hyperprof.benchmarks;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.source.perf.PerfImport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Importing a real perf.data of at least 500,000 samples with callchains ({@link BigRecording})
 * and building perf report's views of it: the flat profile ({@code perf report --no-children
 * --sort dso,sym -g none}) and the call graph (children totals and the stack tree). Memory is
 * bounded by the distinct frames and stacks: the report keeps no sample.
 *
 * <p>{@code warm*} keeps the symbol tables between imports, as a running framework does;
 * {@code cold*} loads them again for every import, as a {@code perf report} run does. The time per
 * import is in milliseconds; {@link PerfReportComparison} times perf report on the same file.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar PerfImport}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 6, time = 1)
// Three JVMs: on a small VM a JVM settles into a fast or a slow way of running the two threads
// (the slow one is as fast as one CPU), and one fork would report whichever it met. The heap on
// transparent huge pages, as launch/hyperprof runs it: the import's tables are tens of MB read at
// random; in alternating JVMs huge pages took 5-10 % off the mean import, and the streaks of
// dozens of imports a fifth or more slower seen with 4 KB pages did not come back. (A JVM that does
// not know the option, off Linux, ignores it.)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions",
        "-XX:+UseTransparentHugePages"})
public class PerfImportBenchmark {

    private Path recording;
    private SymbolTables resolvers;

    @Setup
    public void record() throws Exception {
        recording = BigRecording.get();
        resolvers = BigRecording.resolvers();
        PerfImport.Result r = BigRecording.importOnce(recording, resolvers, true);
        System.out.printf("%n%s: %d samples, %d frames, %d stack nodes%n", recording, r.accounting().taken(),
                r.report().frames(), r.report().stackNodes());
    }

    @Benchmark
    public long warmFlat() throws Exception {
        return BigRecording.importOnce(recording, resolvers, false).report().samples();
    }

    @Benchmark
    public long warmCallGraph() throws Exception {
        return BigRecording.importOnce(recording, resolvers, true).report().stackNodes();
    }

    @Benchmark
    public long coldFlat() throws Exception {
        return BigRecording.importOnce(recording, BigRecording.resolvers(), false).report().samples();
    }

    @Benchmark
    public long coldCallGraph() throws Exception {
        return BigRecording.importOnce(recording, BigRecording.resolvers(), true).report().stackNodes();
    }
}
