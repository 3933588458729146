package org.hyperprof.benchmarks;

import java.util.Map;

import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.hypervisor.sim.SimHost;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The simulated machine alone, without a profiling session: scheduling, slices, the PMU counting,
 * ground truth A and B. One operation is one simulated millisecond, so JMH's ops/s divided by 1000
 * is simulated seconds per wall second; the {@code slices} counter is workload slices per second.
 * The host runs on from one invocation to the next (its workload has no end), as a long
 * {@code hp:run} does.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar Simulator}
 * ({@code -p scenario=consolidation} for the ten-guest host alone).
 */
public class SimulatorBenchmark extends ThroughputBenchmark {

    /** An embedded scenario: the default host, or consolidation's ten guests with 2 ms time slices. */
    @Param({ "xen-summit-2006-network", "consolidation" })
    public String scenario;

    private SimHost host;

    /** Workload slices run: JMH reports this counter per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Slices {
        public long slices;

        @Setup(Level.Iteration)
        public void reset() {
            slices = 0;
        }
    }

    @Setup(Level.Trial)
    public void load() throws Exception {
        HostServiceImpl hosts = new HostServiceImpl();
        hosts.addModel(new org.hyperprof.pmu.p6.P6PmuModel(), "org.hyperprof.pmu.p6");
        hosts.addModel(new org.hyperprof.pmu.amd.AthlonPmuModel(), "org.hyperprof.pmu.amd");
        hosts.addPolicy(new org.hyperprof.vpmu.systemwide.SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
        host = (SimHost) hosts.load(scenario, null, Map.of(), null);
    }

    @Benchmark
    public long simulatedMillisecond(Slices counter) throws HostStoppedException {
        long before = host.workSlices();
        host.run(1000, null);
        counter.slices += host.workSlices() - before;
        return host.cycles();
    }
}
