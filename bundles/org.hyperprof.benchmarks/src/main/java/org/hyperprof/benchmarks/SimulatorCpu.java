package org.hyperprof.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * {@link SimulatorBenchmark}'s machine alone, measured by the CPU time of the thread that runs it
 * rather than by wall time: on a machine other builds share, the CPU milliseconds per simulated
 * second move far less than JMH's throughput does. The host is warmed up for 3 simulated seconds,
 * then runs {@code reps} times {@code seconds} simulated seconds; the least CPU per simulated second
 * is printed.
 *
 * <p>Run: {@code java -cp bundles/org.hyperprof.benchmarks/target/benchmarks.jar
 * org.hyperprof.benchmarks.SimulatorCpu [scenario [seconds [reps]]]} (default
 * {@code xen-summit-2006-network 2 5}; {@code consolidation} for the ten-guest host).
 */
public final class SimulatorCpu {
    private static final int WARM_UP_MILLIS = 3000;

    private SimulatorCpu() {
    }

    public static void main(String[] args) throws Exception {
        String scenario = args.length > 0 ? args[0] : "xen-summit-2006-network";
        HarnessArguments arguments = new HarnessArguments("SimulatorCpu", "usage: SimulatorCpu [scenario [seconds [reps]]]",
                args);
        int seconds = arguments.count(1, "seconds", 2);
        int reps = arguments.count(2, "reps", 5);
        SimulatorBenchmark machine = new SimulatorBenchmark();
        machine.scenario = scenario;
        machine.load();
        SimulatorBenchmark.Slices slices = new SimulatorBenchmark.Slices();
        for (int i = 0; i < WARM_UP_MILLIS; i++) {
            machine.simulatedMillisecond(slices);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double best = Double.MAX_VALUE;
        for (int r = 0; r < reps; r++) {
            long started = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < 1000 * seconds; i++) {
                machine.simulatedMillisecond(slices);
            }
            best = Math.min(best, (threads.getCurrentThreadCpuTime() - started) / 1e6 / seconds);
        }
        System.out.printf("%s: %.1f ms of CPU per simulated second (least of %d runs of %d s)%n", scenario, best, reps,
                seconds);
    }
}
