package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;

/** The real hypervisor, P6 model, system-wide policy and kallsyms resolver, wired in plain Java. */
class EndToEndTest {

    private final HostServiceImpl hosts = new HostServiceImpl();
    private final P6PmuModel p6 = new P6PmuModel();
    private final RecordingConsumer consumer = new RecordingConsumer();

    private ProfilerImpl wire() throws Exception {
        hosts.addModel(p6, "org.hyperprof.pmu.p6");
        hosts.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
        hosts.load(HostService.DEFAULT_SCENARIO, null);
        ProfilerImpl profiler = new ProfilerImpl(hosts, ProfilerImpl.DEFAULT_BATCH_SIZE,
                ProfilerImpl.DEFAULT_QUEUE_CAPACITY, Duration.ofSeconds(10));
        profiler.addResolver("kallsyms", new KallsymsResolver());
        profiler.addConsumer("rec", consumer);
        return profiler;
    }

    private static OpcontrolResult op(ProfilerImpl p, int domid, String... args) {
        return p.opcontrol(domid, List.of(args));
    }

    @Test
    void aLaneProfilesItsOwnHostIntoItsOwnConsumerAndLeavesTheProfilersAlone() throws Exception {
        ProfilerImpl p = wire();
        Host current = hosts.current().orElseThrow();
        RecordingConsumer own = new RecordingConsumer();
        HostService beside = hosts.independent().orElseThrow();
        try (org.hyperprof.api.profiler.Profiler.Lane lane = p.lane(beside, "own", own).orElseThrow()) {
            beside.load(HostService.DEFAULT_SCENARIO, null);
            SessionSummary s = lane.profiler().profile(new ProfileRequest(List.of(), 20_000, List.of(), List.of(),
                    List.of(), 0, true), ProgressListener.NONE);
            assertTrue(own.awaitEnd());
            assertTrue(s.accounting().taken() > 0, s.accounting().line());
            assertEquals(s.accounting().taken(), own.summary.accounting().taken());
            assertTrue(own.samples() > 0, "the lane's consumer got the samples");
            assertTrue(consumer.events.isEmpty(), "the profiler's own consumer saw nothing: " + consumer.events);
            assertTrue(p.lastSummary().isEmpty(), "nor did the profiler's last summary");
            assertEquals(0, current.cycles(), "the current host did not run");
        } finally {
            p.deactivate();
        }
    }

    @Test
    void aGuestStartingItsDaemonBeforeThePrimaryListedItGetsEpermAndTheNextStep() throws Exception {
        ProfilerImpl p = wire();
        try {
            OpcontrolResult r = op(p, 1, "--start-daemon");
            assertFalse(r.ok());
            assertTrue(r.output().contains("XENOPROF_enable_virq) = -1 (EPERM, Operation not permitted)"), r.output());
            assertTrue(r.output().contains("domain 0"), "the explanation names the domain that acts next: " + r.output());
            assertFalse(r.output().contains("\tat "), r.output());
        } finally {
            p.deactivate();
        }
    }

    @Test
    void aGuestShutDownWhileThePrimaryProfilesLeavesUndrainedSamplesInTheBooks() throws Exception {
        ProfilerImpl p = wire();
        try {
            assertTrue(op(p, 0, "--start-daemon", "--active-domains=0,1").ok());
            assertTrue(op(p, 1, "--start-daemon").ok());
            assertTrue(op(p, 0, "--start").ok());
            hosts.current().orElseThrow().run(5_000, ProgressListener.NONE);
            OpcontrolResult early = op(p, 1, "--shutdown");
            assertFalse(early.ok(), "disable_virq is refused while profiling");
            hosts.current().orElseThrow().run(5_000, ProgressListener.NONE);
            assertTrue(op(p, 0, "--stop").ok());
            assertTrue(op(p, 0, "--shutdown").ok());
            assertTrue(consumer.awaitEnd());
            SessionSummary s = consumer.summary;
            assertTrue(s.accounting().balanced(), s.accounting().line());
            BufferAccounting dom1 = s.buffers().stream().filter(b -> b.domid() == 1).findFirst().orElseThrow();
            assertTrue(dom1.undrained() > 0, "Xen kept writing into the pages nobody reads: " + dom1);
            assertEquals("active", dom1.role());
        } finally {
            p.deactivate();
        }
    }

    @Test
    void theCpuModelDepartingMidSessionEndsItWithTheReasonAndKeepsTheSamples() throws Exception {
        ProfilerImpl p = wire();
        try {
            assertTrue(op(p, 0, "--start-daemon").ok());
            assertTrue(op(p, 0, "--start").ok());
            hosts.current().orElseThrow().run(5_000, ProgressListener.NONE);
            hosts.removeModel(p6);
            assertTrue(consumer.awaitEnd());
            assertTrue(consumer.summary.endReason().contains("org.hyperprof.pmu.p6"), consumer.summary.endReason());
            assertTrue(consumer.samples() > 0);
            assertEquals(consumer.samples(), consumer.summary.consumers().get(0).received());
            OpcontrolResult after = op(p, 0, "--status");
            assertFalse(after.ok());
            assertTrue(after.output().contains("hp:load"), after.output());
        } finally {
            p.deactivate();
        }
    }

    @Test
    void profilingTheDefaultScenarioFor200msDeliversBalancedSamplesWithDom0sNetworkPathOnTop() throws Exception {
        ProfilerImpl profiler = wire();
        Host host = hosts.current().orElseThrow();
        try {
            SessionSummary s = profiler.profile(new ProfileRequest(List.of(), 200_000, List.of()), ProgressListener.NONE);
            assertTrue(consumer.awaitEnd());
            assertEquals(SessionSummary.COMPLETED, s.endReason());
            assertTrue(s.accounting().balanced(), s.accounting().line());
            assertTrue(s.accounting().delivered() > 0, s.accounting().line());
            assertTrue(consumer.samples() > 0);
            long drained = 0;
            for (BufferAccounting b : s.buffers()) {
                assertTrue(b.accounting().balanced(), b.toString());
                drained += b.drained();
                assertEquals(0, b.undrained(), "every buffer is drained by the end: " + b);
            }
            assertTrue(drained >= consumer.samples());
            assertEquals(consumer.samples(), s.consumers().get(0).received());
            assertEquals(0, s.consumers().get(0).missed());

            int dom0 = host.domains().stream().filter(DomainInfo::hardwareDomain).findFirst().orElseThrow().domid();
            SessionDictionary d = consumer.info.dictionary();
            Map<String, Integer> bySymbol = new HashMap<>();
            for (SampleBatch b : consumer.batches) {
                for (int i = 0; i < b.size; i++) {
                    if (b.domain[i] == dom0) {
                        bySymbol.merge(d.symbolName(b.symbol[i]), 1, Integer::sum);
                    }
                }
            }
            List<String> top = bySymbol.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .limit(15).map(Map.Entry::getKey).collect(Collectors.toList());
            Pattern networkPath = Pattern.compile("netif|netback|net_|br_|gnttab|grant|evtchn|e1000|skb");
            assertTrue(top.stream().anyMatch(n -> networkPath.matcher(n).find()), "dom0's top symbols: " + top);
        } finally {
            profiler.deactivate();
        }
    }
}
