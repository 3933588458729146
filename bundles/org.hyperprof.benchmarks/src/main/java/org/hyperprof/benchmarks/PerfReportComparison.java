package org.hyperprof.benchmarks;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.source.perf.PerfImport;
import org.hyperprof.source.perf.SortKeys;

/**
 * Times {@code perf report} and Hyperprof's import side by side on the same recording
 * ({@link BigRecording}) and prints, for each, the best, median and mean wall time of its runs, the
 * samples per second (throughput: samples over the mean time) and the ratio to perf report (mean
 * against mean, which is the ratio of throughputs; then best against best and median against
 * median), for the flat profile ({@code perf report --stdio --no-children --sort dso,sym -g none})
 * and for the call graph (the same without {@code -g none}: perf's default callchain graph), and the
 * flat profile by process ({@code --sort comm,dso,sym -g none}, symbol tables kept).
 *
 * <p>Hyperprof runs warm (symbol tables kept, as in a shell that imports again) and cold (tables
 * loaded again for every import, like for like with a perf report run). Every variant is run
 * before any is timed, so the JIT has compiled the symbol loaders too. The timed runs come in
 * rounds, each one perf report run then {@link #IMPORTS_PER_ROUND} imports of each variant, so that
 * both sides are timed in the same minutes: a small VM's speed drifts by a quarter within a few
 * minutes, and timing all perf runs before all imports made the ratio follow the drift.
 *
 * <p>Run: {@code java -Xms1g -Xmx1g -XX:+UseTransparentHugePages -cp
 * bundles/org.hyperprof.benchmarks/target/benchmarks.jar org.hyperprof.benchmarks.PerfReportComparison
 * [perf.data]} (the JVM options of the JMH benchmark's forks and of {@code launch/hyperprof}; with the
 * default heap, sized from the machine's memory, collections land in the timed imports).
 */
public final class PerfReportComparison {

    static final int ROUNDS = 7;
    static final int IMPORTS_PER_ROUND = 3;
    static final int WARM_UP_ROUNDS = 30;

    private PerfReportComparison() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            System.setProperty("hyperprof.perf.data", args[0]);
        }
        Path file = BigRecording.get();
        long samples = BigRecording.importOnce(file, BigRecording.resolvers(), false).accounting().taken();
        System.out.printf(Locale.ROOT, "%s: %d samples%n", file, samples);

        String[] flat = {"--stdio", "--no-children", "--sort", "dso,sym", "-g", "none"};
        String[] graph = {"--stdio", "--no-children", "--sort", "dso,sym"};
        SymbolTables warm = BigRecording.resolvers();
        Run warmFlat = () -> BigRecording.importOnce(file, warm, false);
        Run warmGraph = () -> BigRecording.importOnce(file, warm, true);
        Run coldFlat = () -> BigRecording.importOnce(file, BigRecording.resolvers(), false);
        Run coldGraph = () -> BigRecording.importOnce(file, BigRecording.resolvers(), true);
        String[] byComm = {"--stdio", "--no-children", "--sort", "comm,dso,sym", "-g", "none"};
        SortKeys commKeys = SortKeys.parse("comm,dso,sym");
        Run warmComm = () -> BigRecording.importSorted(file, warm, commKeys);
        for (int i = 0; i < WARM_UP_ROUNDS; i++) {
            warmFlat.run();
            warmGraph.run();
            coldFlat.run();
            coldGraph.run();
            warmComm.run();
        }

        perf(file, flat);
        perf(file, graph);

        double[][] t = new double[6][];
        for (int v = 0; v < 6; v++) {
            t[v] = new double[v % 3 == 0 ? ROUNDS : ROUNDS * IMPORTS_PER_ROUND];
        }
        Run[] imports = {null, warmFlat, coldFlat, null, warmGraph, coldGraph};
        for (int r = 0; r < ROUNDS; r++) {
            for (int v = 0; v < 6; v++) {
                if (v % 3 == 0) {
                    t[v][r] = perf(file, v == 0 ? flat : graph);
                } else {
                    for (int k = 0; k < IMPORTS_PER_ROUND; k++) {
                        t[v][r * IMPORTS_PER_ROUND + k] = time(imports[v]);
                    }
                }
            }
        }
        double[] perfComm = new double[ROUNDS];
        double[] ourComm = new double[ROUNDS * IMPORTS_PER_ROUND];
        for (int r = 0; r < ROUNDS; r++) {
            perfComm[r] = perf(file, byComm);
            for (int k = 0; k < IMPORTS_PER_ROUND; k++) {
                ourComm[r * IMPORTS_PER_ROUND + k] = time(warmComm);
            }
        }
        double[] perfFlat = summary(t[0]);
        double[] perfGraph = summary(t[3]);
        System.out.printf(Locale.ROOT, "%-44s %7s %8s %7s %12s  %s%n", "", "best s", "median s", "mean s",
                "samples/s", "vs perf: mean (best, median)");
        line("perf report --no-children --sort dso,sym -g none", perfFlat, samples, perfFlat);
        line("hyperprof flat (symbol tables kept)", summary(t[1]), samples, perfFlat);
        line("hyperprof flat (symbol tables loaded again)", summary(t[2]), samples, perfFlat);
        line("perf report --no-children --sort dso,sym", perfGraph, samples, perfGraph);
        line("hyperprof call graph (symbol tables kept)", summary(t[4]), samples, perfGraph);
        line("hyperprof call graph (tables loaded again)", summary(t[5]), samples, perfGraph);
        double[] perfByComm = summary(perfComm);
        line("perf report --no-children --sort comm,dso,sym", perfByComm, samples, perfByComm);
        line("hyperprof by comm,dso,sym (tables kept)", summary(ourComm), samples, perfByComm);
        System.out.println("(vs perf: mean against mean, the ratio of throughputs; best against best, median"
                + " against median)");
    }

    /** {@code [best, median, mean]} seconds. */
    private static void line(String what, double[] seconds, long samples, double[] perf) {
        System.out.printf(Locale.ROOT, "%-44s %7.3f %8.3f %7.3f %12.0f  %5.1fx (%4.1fx, %4.1fx)%n", what, seconds[0],
                seconds[1], seconds[2], samples / seconds[2], perf[2] / seconds[2], perf[0] / seconds[0],
                perf[1] / seconds[1]);
    }

    /** The wall time in seconds of one perf report run, its output thrown away. */
    private static double perf(Path file, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("perf", "report", "-i", file.toString()));
        cmd.addAll(List.of(args));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectOutput(new File("/dev/null"))
                .redirectError(new File("/dev/null")).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(cmd + " failed with status " + p.exitValue());
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    interface Run {
        PerfImport.Result run() throws Exception;
    }

    private static double time(Run run) throws Exception {
        long t0 = System.nanoTime();
        run.run();
        return (System.nanoTime() - t0) / 1e9;
    }

    private static double[] summary(double[] t) {
        double[] sorted = t.clone();
        java.util.Arrays.sort(sorted);
        return new double[] {sorted[0], sorted[sorted.length / 2], java.util.Arrays.stream(t).average().orElse(0)};
    }
}
