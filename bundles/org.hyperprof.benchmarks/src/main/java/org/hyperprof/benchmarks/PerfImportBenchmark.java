package org.hyperprof.benchmarks;

import org.hyperprof.source.perf.PerfImport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Setup;
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
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 6, time = 1)
// Three JVMs: on a small VM a JVM settles into a fast or a slow way of running the two threads
// (the slow one is as fast as one CPU), and one fork would report whichever it met. The heap and its
// huge pages as every import benchmark's (RecordingImport).
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+IgnoreUnrecognizedVMOptions",
        "-XX:+UseTransparentHugePages"})
public class PerfImportBenchmark extends RecordingImport {

    @Setup
    public void record() throws Exception {
        load();
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
