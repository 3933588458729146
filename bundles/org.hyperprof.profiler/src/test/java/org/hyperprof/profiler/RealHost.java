package org.hyperprof.profiler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.sample.Sessions;
import org.hyperprof.vpmu.lazy.LazyPolicy;
import org.hyperprof.vpmu.partitioned.PartitionedPolicy;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;

/**
 * The real hypervisor bundle (P6 model; system-wide, lazy and partitioned policies, the scenario's
 * unless a host option says otherwise), the kallsyms resolver and a profiler,
 * wired in plain Java on one scenario, with a consumer that keeps each session's batches and
 * summary apart.
 */
final class RealHost implements AutoCloseable {
    static final String MULTI = "xen-multi-domain";

    /** Every session's info, batches and summary, by session id. */
    static final class Sessions implements SampleConsumer {
        final Map<Long, SessionInfo> infos = new ConcurrentHashMap<>();
        final Map<Long, List<SampleBatch>> batches = new ConcurrentHashMap<>();
        final Map<Long, SessionSummary> summaries = new ConcurrentHashMap<>();
        final List<Long> order = new CopyOnWriteArrayList<>();

        @Override
        public void sessionStarted(SessionInfo session) {
            infos.put(session.sessionId(), session);
            batches.put(session.sessionId(), new CopyOnWriteArrayList<>());
            order.add(session.sessionId());
        }

        @Override
        public void samples(SampleBatch batch) {
            batches.computeIfAbsent(batch.sessionId, k -> new CopyOnWriteArrayList<>()).add(batch.copy());
        }

        @Override
        public void sessionEnded(SessionSummary summary) {
            summaries.put(summary.sessionId(), summary);
        }

        SessionSummary last() {
            return summaries.get(order.get(order.size() - 1));
        }

        List<SampleBatch> lastBatches() {
            return batches.get(order.get(order.size() - 1));
        }
    }

    final HostServiceImpl hosts = new HostServiceImpl();
    final Host host;
    final ProfilerImpl profiler;
    final Sessions sessions = new Sessions();

    RealHost(String scenario) throws Exception {
        this(scenario, Map.of());
    }

    /** The scenario loaded with host options, as {@code hp:load --host-option k=v} loads it. */
    RealHost(String scenario, Map<String, String> hostOptions) throws Exception {
        hosts.addModel(new P6PmuModel(), "org.hyperprof.pmu.p6");
        hosts.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
        hosts.addPolicy(new LazyPolicy(), "org.hyperprof.vpmu.lazy");
        hosts.addPolicy(new PartitionedPolicy(), "org.hyperprof.vpmu.partitioned");
        host = hosts.load(scenario, null, hostOptions, null);
        // A queue deep enough that no consumer ever misses a batch: the books are compared exactly.
        profiler = new ProfilerImpl(hosts, 1024, 1 << 16, Duration.ofSeconds(20));
        profiler.addResolver("kallsyms", new KallsymsResolver());
        profiler.addConsumer("sessions", sessions);
    }

    OpcontrolResult op(int domid, String... args) {
        return profiler.opcontrol(domid, List.of(args));
    }

    /** dom0 primary with dom0 and dom1 active, both daemons up, sampling started. */
    RealHost profiling() {
        Rig.ok(op(0, "--start-daemon", "--active-domains=0,1"));
        Rig.ok(op(1, "--start-daemon"));
        Rig.ok(op(0, "--start"));
        return this;
    }

    void run(long micros) throws Exception {
        host.run(micros, ProgressListener.NONE);
    }

    /** Samples the consumer received in the last session, by domain. */
    Map<Integer, Long> receivedByDomain() {
        Map<Integer, Long> out = new java.util.TreeMap<>();
        for (SampleBatch b : sessions.lastBatches()) {
            for (int i = 0; i < b.size; i++) {
                out.merge(b.domain[i], 1L, Long::sum);
            }
        }
        return out;
    }

    static List<String> lines(String text) {
        return new ArrayList<>(List.of(text.split("\\R")));
    }

    @Override
    public void close() {
        profiler.deactivate();
    }
}
