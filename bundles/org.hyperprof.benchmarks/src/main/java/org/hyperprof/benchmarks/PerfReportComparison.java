package org.hyperprof.benchmarks;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.hyperprof.source.perf.PerfImport;
import org.hyperprof.source.perf.SymbolResolvers;

/**
 * Times {@code perf report} and Hyperprof's import side by side on the same recording
 * ({@link BigRecording}), best of {@value #RUNS} runs each, and prints the samples per second of
 * both and their ratio, for the flat profile ({@code perf report --stdio --no-children --sort
 * dso,sym -g none}) and for the call graph (the same without {@code -g none}: perf's default
 * callchain graph).
 *
 * <p>Run: {@code java -cp bundles/org.hyperprof.benchmarks/target/benchmarks.jar
 * org.hyperprof.benchmarks.PerfReportComparison [perf.data]}
 */
public final class PerfReportComparison {

    static final int RUNS = 3;

    private PerfReportComparison() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            System.setProperty("hyperprof.perf.data", args[0]);
        }
        Path file = BigRecording.get();
        long samples = BigRecording.importOnce(file, BigRecording.resolvers(), false).accounting().taken();
        System.out.printf(Locale.ROOT, "%s: %d samples%n", file, samples);

        double perfFlat = bestPerf(file, "--stdio", "--no-children", "--sort", "dso,sym", "-g", "none");
        double perfGraph = bestPerf(file, "--stdio", "--no-children", "--sort", "dso,sym");

        // Hyperprof: warm the JIT up first, then best of the runs; cold = symbol tables loaded again.
        SymbolResolvers warm = BigRecording.resolvers();
        for (int i = 0; i < 15; i++) {
            BigRecording.importOnce(file, warm, i % 2 == 0);
        }
        double hpFlat = best(() -> BigRecording.importOnce(file, warm, false));
        double hpGraph = best(() -> BigRecording.importOnce(file, warm, true));
        double hpFlatCold = best(() -> BigRecording.importOnce(file, BigRecording.resolvers(), false));
        double hpGraphCold = best(() -> BigRecording.importOnce(file, BigRecording.resolvers(), true));

        System.out.printf(Locale.ROOT, "%-44s %10s %14s %8s%n", "", "best s", "samples/s", "vs perf");
        line("perf report --no-children --sort dso,sym -g none", perfFlat, samples, perfFlat);
        line("hyperprof flat (symbol tables kept)", hpFlat, samples, perfFlat);
        line("hyperprof flat (symbol tables loaded again)", hpFlatCold, samples, perfFlat);
        line("perf report --no-children --sort dso,sym", perfGraph, samples, perfGraph);
        line("hyperprof call graph (symbol tables kept)", hpGraph, samples, perfGraph);
        line("hyperprof call graph (tables loaded again)", hpGraphCold, samples, perfGraph);
    }

    private static void line(String what, double seconds, long samples, double perfSeconds) {
        System.out.printf(Locale.ROOT, "%-44s %10.3f %14.0f %7.1fx%n", what, seconds, samples / seconds,
                perfSeconds / seconds);
    }

    /** Best wall time of perf report with its output thrown away. */
    private static double bestPerf(Path file, String... args) throws Exception {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < RUNS; i++) {
            List<String> cmd = new ArrayList<>(List.of("perf", "report", "-i", file.toString()));
            cmd.addAll(List.of(args));
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectOutput(new File("/dev/null"))
                    .redirectError(new File("/dev/null")).start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException(cmd + " failed with status " + p.exitValue());
            }
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
        return best;
    }

    interface Run {
        PerfImport.Result run() throws Exception;
    }

    private static double best(Run run) throws Exception {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < RUNS; i++) {
            long t0 = System.nanoTime();
            run.run();
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
        return best;
    }
}
