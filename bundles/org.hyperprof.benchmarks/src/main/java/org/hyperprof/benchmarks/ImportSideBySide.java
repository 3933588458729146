package org.hyperprof.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Two builds of the perf.data import ({@link PerfReportComparison}'s warm import of
 * {@link BigRecording}, each from its own benchmarks jar and class loader) in one JVM, importing in
 * turn, so that both meet the shared machine's drifts alike: on a 2-core VM the same build's call
 * graph import took 204 to 292 ms within two minutes, run after run, far more than a change of a
 * few per cent; imports alternated in one JVM moved the same build by a few per cent. Prints each
 * side's wall time, the importing thread's CPU and the process's CPU (every thread: reader, report,
 * JIT, GC) per import, and the median of the pairs' wall ratios B/A with its quartiles.
 *
 * <p>The import's threads share two cores, so its wall time follows the work of all of them: a
 * change that only moves work between threads, or saves one thread time another then waits for,
 * shows in the CPU columns and not in the wall. As with {@link SimulatorSideBySide}, the side loaded
 * second may run a little apart whatever it holds: run the same jar on both sides, or both ways.
 *
 * <p>Run: {@code java -Xms2g -Xmx2g -XX:+UseTransparentHugePages -cp
 * bundles/org.hyperprof.benchmarks/target/benchmarks.jar org.hyperprof.benchmarks.ImportSideBySide
 * A.jar B.jar [graph|flat [pairs [perf.data]]]} (default {@code graph 30} and {@link BigRecording}'s
 * recording), A and B copies of benchmarks.jar from two builds.
 */
public final class ImportSideBySide {
    private static final int WARM_UP_IMPORTS = 15;
    private static final String USAGE = "usage: ImportSideBySide A.jar B.jar [graph|flat [pairs [perf.data]]]";

    private final Method importOnce;
    private final Object tables;
    private final Path file;
    private final boolean callGraph;

    private ImportSideBySide(Path jar, Path file, boolean callGraph) throws Exception {
        ClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        Class<?> recording = loader.loadClass(BigRecording.class.getName());
        Class<?> symbolTables = loader.loadClass("org.hyperprof.pipeline.SymbolTables");
        Method resolvers = recording.getDeclaredMethod("resolvers");
        resolvers.setAccessible(true);
        this.tables = resolvers.invoke(null);
        this.importOnce = recording.getDeclaredMethod("importOnce", Path.class, symbolTables, boolean.class);
        importOnce.setAccessible(true);
        this.file = file;
        this.callGraph = callGraph;
    }

    private void run() throws Exception {
        importOnce.invoke(null, file, tables, callGraph);
    }

    public static void main(String[] args) throws Exception {
        HarnessArguments arguments = new HarnessArguments("ImportSideBySide", USAGE, args);
        Path[] jars = arguments.twoJars();
        String mode = arguments.mode(2, "graph", "flat");
        int pairs = arguments.count(3, "pairs", 30);
        if (args.length > 4) {
            System.setProperty("hyperprof.perf.data", args[4]);
        }
        Path file = BigRecording.get();
        ImportSideBySide[] sides = {new ImportSideBySide(jars[0], file, mode.equals("graph")),
                new ImportSideBySide(jars[1], file, mode.equals("graph"))};
        for (int w = 0; w < WARM_UP_IMPORTS; w++) {
            sides[0].run();
            sides[1].run();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean process =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[][] wall = new double[2][pairs];
        double[][] thread = new double[2][pairs];
        double[][] cpu = new double[2][pairs];
        double[] ratios = new double[pairs];
        int fasterB = 0;
        for (int p = 0; p < pairs; p++) {
            for (int k = 0; k < 2; k++) {
                int side = (p + k) % 2; // each side goes first in every other pair
                long cpu0 = process.getProcessCpuTime();
                long thread0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                sides[side].run();
                wall[side][p] = (System.nanoTime() - t0) / 1e6;
                thread[side][p] = (threads.getCurrentThreadCpuTime() - thread0) / 1e6;
                cpu[side][p] = (process.getProcessCpuTime() - cpu0) / 1e6;
            }
            ratios[p] = wall[1][p] / wall[0][p];
            fasterB += wall[1][p] < wall[0][p] ? 1 : 0;
        }
        for (int side = 0; side < 2; side++) {
            System.out.printf("%s %s: wall mean %.1f median %.1f ms | importing thread's CPU mean %.1f ms | process's CPU"
                    + " mean %.1f ms%n", side == 0 ? "A" : "B", jars[side], mean(wall[side]), median(wall[side]),
                    mean(thread[side]), mean(cpu[side]));
        }
        Arrays.sort(ratios);
        System.out.printf("%s import of %s: wall B/A median %.3f (quartiles %.3f to %.3f), B faster in %d of %d pairs%n",
                mode, file, ratios[pairs / 2], ratios[pairs / 4], ratios[3 * pairs / 4], fasterB, pairs);
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(0);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
