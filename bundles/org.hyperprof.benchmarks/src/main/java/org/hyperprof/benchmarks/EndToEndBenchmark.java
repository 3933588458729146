package org.hyperprof.benchmarks;

import java.io.IOException;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.report.opreport.OpreportConsumer;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * End-to-end throughput: one-shot profiles of the default scenario through the whole path —
 * simulation and P6 counters, NMI and Xenoprof buffers, the domains' daemons, symbol resolution,
 * the opreport consumer and rendering its report. The {@code samples} counter is the figure of
 * merit: simulated samples per second, reported by JMH as {@code samples} in ops/s.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar EndToEnd}
 * (add {@code -prof gc} for the allocation rate per sample). With {@code -p policy=saverestore}
 * (or {@code lazy}, {@code offset}) the host runs under that counter-virtualization policy and the
 * profile is domU's own profiler through its virtual PMU ({@code systemWide=false}); with
 * {@code partitioned}, Xenoprof and domU's own profiler run together (on P6 the guest's counter 0
 * is Xenoprof's, so its profiler is refused and only Xenoprof samples). With {@code -p store=false,true}
 * the session store is a consumer too or not ({@link BenchStore}): its cost on a profile once its engine
 * is loaded (the warm-up loads it). With {@code -p scenario=consolidation} the host is the ten-guest
 * Athlon of the study's consolidation scenario.
 */
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
public class EndToEndBenchmark extends ThroughputBenchmark {

    /** The embedded scenario profiled: the default host, or consolidation's ten guests (an Athlon). */
    @Param({ "xen-summit-2006-network" })
    public String scenario;

    /** Simulated milliseconds per profile. */
    @Param({ "500" })
    public long simulatedMillis;

    /** Sampling period of CPU_CLK_UNHALTED in cycles (the default scenario's is 100000). */
    @Param({ "100000" })
    public long period;

    /** The counter-virtualization policy the host runs under. */
    @Param({ "systemwide" })
    public String policy;

    private ProfilerImpl profiler;
    private OpreportConsumer opreport;
    private ProfileRequest request;

    /** Samples taken: JMH reports this counter as samples per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Samples {
        public long samples;

        @Setup(Level.Iteration)
        public void reset() {
            samples = 0;
        }
    }

    @Setup(Level.Trial)
    public void wire(BenchStore sessions) throws Exception {
        HostServiceImpl hosts = new HostServiceImpl();
        hosts.addModel(new P6PmuModel(), "org.hyperprof.pmu.p6");
        hosts.addModel(new org.hyperprof.pmu.amd.AthlonPmuModel(), "org.hyperprof.pmu.amd");
        hosts.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
        hosts.addPolicy(new org.hyperprof.vpmu.saverestore.SaveRestorePolicy(), "org.hyperprof.vpmu.saverestore");
        hosts.addPolicy(new org.hyperprof.vpmu.lazy.LazyPolicy(), "org.hyperprof.vpmu.lazy");
        hosts.addPolicy(new org.hyperprof.vpmu.offset.OffsetPolicy(), "org.hyperprof.vpmu.offset");
        hosts.addPolicy(new org.hyperprof.vpmu.partitioned.PartitionedPolicy(), "org.hyperprof.vpmu.partitioned");
        hosts.load(scenario, null, java.util.Map.of("vpmu.policy", policy), null);
        profiler = new ProfilerImpl(hosts);
        profiler.addResolver(KallsymsResolver.FORMAT_NAME, new KallsymsResolver());
        opreport = new OpreportConsumer();
        profiler.addConsumer("opreport", opreport);
        sessions.bindTo(profiler);
        boolean systemWide = policy.equals("systemwide") || policy.equals("partitioned");
        // CPU_CLK_UNHALTED, which P6 and the Athlon both name.
        request = new ProfileRequest(List.of("CPU_CLK_UNHALTED:" + period + ":0:1:1"), simulatedMillis * 1000,
                List.of(), List.of(), List.of(), 0, systemWide);
    }

    @TearDown(Level.Trial)
    public void unwire() {
        profiler.removeConsumer("opreport");
    }

    @Benchmark
    public int profileAndReport(Samples counter, BenchStore sessions)
            throws ProfileException, IOException, ReportException {
        SessionSummary summary = profiler.profile(request, ProgressListener.NONE);
        if (!summary.accounting().balanced()) {
            throw new IllegalStateException("books do not balance: " + summary.accounting());
        }
        counter.samples += summary.accounting().taken();
        sessions.made(summary.sessionId());
        StringBuilder report = new StringBuilder(64 * 1024);
        opreport.render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS, Set.of()), report);
        return report.length();
    }
}
