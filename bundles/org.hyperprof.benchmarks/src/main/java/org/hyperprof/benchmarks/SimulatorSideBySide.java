package org.hyperprof.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Two builds of the simulated machine ({@link SimulatorBenchmark}, each from its own benchmarks jar
 * and class loader) in one JVM, run in alternate chunks of simulated time, so that both meet the
 * shared machine's drifts alike: {@link SimulatorCpu} run after run on a 2-core machine with other
 * builds moves by 50 % (the same jar gave 62 to 113 ms per simulated second), far more than an
 * engine change of a few per cent. {@code engine} runs the machine alone (no profiling session:
 * the counters do not count); {@code profile} runs {@link EndToEndBenchmark}'s profiles of a chunk
 * each (counters, NMIs, Xenoprof's buffers, the daemons, the opreport consumer and its report) and
 * times the profiling session's thread. Prints each side's CPU per simulated second and the median
 * of the pairs' ratios B/A with its quartiles.
 *
 * <p>The side loaded second runs a few per cent slower or faster whatever it holds (the same jar on
 * both sides gave 1.02 to 1.06), so run it both ways: the change is {@code sqrt(r(A,B) / r(B,A))}.
 *
 * <p>Run: {@code java -cp bundles/org.hyperprof.benchmarks/target/benchmarks.jar
 * org.hyperprof.benchmarks.SimulatorSideBySide A.jar B.jar [engine|profile [scenario [pairs [chunk-ms]]]]}
 * (default {@code engine xen-summit-2006-network 30 200}), A and B copies of benchmarks.jar from two builds.
 */
public final class SimulatorSideBySide {
    private static final int WARM_UP_MILLIS = 3000;
    private static final String USAGE = "usage: SimulatorSideBySide A.jar B.jar [engine|profile [scenario [pairs [chunk-ms]]]]";

    private final boolean profiles;
    private final Object machine;
    private final Object[] arguments;
    private final Method step;

    private SimulatorSideBySide(Path jar, boolean profiles, String scenario, int chunk) throws Exception {
        this.profiles = profiles;
        ClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        if (profiles) {
            Class<?> benchmark = loader.loadClass(EndToEndBenchmark.class.getName());
            Class<?> counter = loader.loadClass(EndToEndBenchmark.Samples.class.getName());
            Class<?> store = loader.loadClass(BenchStore.class.getName());
            machine = benchmark.getConstructor().newInstance();
            benchmark.getField("scenario").set(machine, scenario);
            benchmark.getField("simulatedMillis").set(machine, (long) chunk);
            benchmark.getField("period").set(machine, 100_000L);
            benchmark.getField("policy").set(machine, "systemwide");
            Object sessions = store.getConstructor().newInstance();
            benchmark.getMethod("wire", store).invoke(machine, sessions);
            arguments = new Object[] {counter.getConstructor().newInstance(), sessions};
            step = benchmark.getMethod("profileAndReport", counter, store);
        } else {
            Class<?> benchmark = loader.loadClass(SimulatorBenchmark.class.getName());
            Class<?> counter = loader.loadClass(SimulatorBenchmark.Slices.class.getName());
            machine = benchmark.getConstructor().newInstance();
            benchmark.getField("scenario").set(machine, scenario);
            benchmark.getMethod("load").invoke(machine);
            arguments = new Object[] {counter.getConstructor().newInstance()};
            step = benchmark.getMethod("simulatedMillisecond", counter);
        }
    }

    /** Runs a chunk: one profile of a chunk of simulated time, or a chunk of simulated milliseconds. */
    private void run(int millis) throws Exception {
        if (profiles) {
            step.invoke(machine, arguments);
            return;
        }
        for (int i = 0; i < millis; i++) {
            step.invoke(machine, arguments);
        }
    }

    public static void main(String[] args) throws Exception {
        HarnessArguments arguments = new HarnessArguments("SimulatorSideBySide", USAGE, args);
        Path[] jars = arguments.twoJars();
        String mode = arguments.mode(2, "engine", "profile");
        String scenario = args.length > 3 ? args[3] : "xen-summit-2006-network";
        int pairs = arguments.count(4, "pairs", 30);
        int chunk = arguments.count(5, "chunk-ms", 200);
        boolean profiles = mode.equals("profile");
        SimulatorSideBySide[] sides = {new SimulatorSideBySide(jars[0], profiles, scenario, chunk),
                new SimulatorSideBySide(jars[1], profiles, scenario, chunk)};
        for (int w = 0; w < WARM_UP_MILLIS / chunk + 1; w++) {
            sides[0].run(chunk);
            sides[1].run(chunk);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] total = new double[2];
        double[] ratios = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            double[] cpu = new double[2];
            for (int k = 0; k < 2; k++) {
                int side = (p + k) % 2; // each side goes first in every other pair
                long started = threads.getCurrentThreadCpuTime();
                sides[side].run(chunk);
                cpu[side] = (threads.getCurrentThreadCpuTime() - started) / 1e6;
                total[side] += cpu[side];
            }
            ratios[p] = cpu[1] / cpu[0];
        }
        Arrays.sort(ratios);
        double seconds = pairs * chunk / 1000.0;
        System.out.printf("%s %s: A %.1f ms, B %.1f ms of CPU per simulated second; B/A median %.3f (quartiles %.3f to %.3f)"
                + " over %d pairs of %d simulated ms%n", mode, scenario, total[0] / seconds, total[1] / seconds,
                ratios[pairs / 2], ratios[pairs / 4], ratios[3 * pairs / 4], pairs, chunk);
    }
}
