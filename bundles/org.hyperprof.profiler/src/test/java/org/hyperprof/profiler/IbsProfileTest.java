package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pmu.amd.Family10PmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;

/**
 * AMD family 10h IBS from the opcontrol steps to the samples the consumers get: the default
 * scenario on a family 10h CPU, IBS_FETCH_ALL and IBS_OP_ALL, buffers large enough that no block
 * is lost. Each IBS column shows each symbol's share as the ground truth of the signal its sampler
 * counts (fetch: instructions; op: cycles) within the sampling error, and the books stay exact.
 */
class IbsProfileTest {
    private static final String FAMILY10 = "x86-64/family10";
    private static final int FETCH_COUNT = 50_000;
    private static final int OP_COUNT = 100_000;

    private final HostServiceImpl hosts = new HostServiceImpl();
    private final RecordingConsumer consumer = new RecordingConsumer();

    private ProfilerImpl wire(String cpuType) throws Exception {
        hosts.addModel(new Family10PmuModel(), "org.hyperprof.pmu.amd");
        hosts.addModel(new P6PmuModel(), "org.hyperprof.pmu.p6");
        hosts.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
        hosts.load(HostService.DEFAULT_SCENARIO, cpuType);
        ProfilerImpl profiler = new ProfilerImpl(hosts, ProfilerImpl.DEFAULT_BATCH_SIZE, 1 << 16, Duration.ofSeconds(20));
        profiler.addResolver("kallsyms", new KallsymsResolver());
        profiler.addConsumer("rec", consumer);
        return profiler;
    }

    private static OpcontrolResult op(ProfilerImpl p, int domid, String... args) {
        return p.opcontrol(domid, List.of(args));
    }

    /** The opcontrol workflow of the README with {@code events}, for {@code micros} simulated. */
    private SessionSummary profile(ProfilerImpl p, long micros, String... events) throws Exception {
        return profile(p, micros, 2048, events);
    }

    private SessionSummary profile(ProfilerImpl p, long micros, int slots, String... events) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--start-daemon", "--active-domains=0,1",
                "--buffer-size=" + slots));
        for (String e : events) {
            args.add("--event=" + e);
        }
        Rig.ok(p.opcontrol(0, args));
        Rig.ok(op(p, 1, "--start-daemon", "--buffer-size=" + slots));
        Rig.ok(op(p, 0, "--start"));
        Host host = hosts.current().orElseThrow();
        host.run(micros, ProgressListener.NONE);
        Rig.ok(op(p, 0, "--stop"));
        Rig.ok(op(p, 1, "--shutdown"));
        Rig.ok(op(p, 0, "--shutdown"));
        assertTrue(consumer.awaitEnd());
        return consumer.summary;
    }

    @Test
    void eachIbsColumnShowsEverySymbolAsTheGroundTruthOfItsSamplersSignal() throws Exception {
        ProfilerImpl p = wire(FAMILY10);
        try {
            SessionSummary s = profile(p, 300_000, "IBS_FETCH_ALL:" + FETCH_COUNT + ":0:1:1",
                    "IBS_OP_ALL:" + OP_COUNT + ":0:1:1");
            SessionInfo info = consumer.info;
            Map<String, Integer> columns = new HashMap<>();
            for (CounterConfig c : info.counters()) {
                columns.put(c.event().name(), c.counter());
            }
            agrees(info, s.groundTruth(), columns.get("IBS_FETCH_ALL"), Signal.INSTRUCTIONS);
            agrees(info, s.groundTruth(), columns.get("IBS_OP_ALL"), Signal.CYCLES);
        } finally {
            p.deactivate();
        }
    }

    /**
     * Every symbol of at least 1 % of the truth has a sampled share within four standard errors of
     * a binomial sample of the column's size (plus 0.2 points for the sampler's own rules: the count
     * restarts only when the NMI handler re-arms it, and samples taken in the handler reach the next
     * NMI); no sample falls outside every image.
     */
    private void agrees(SessionInfo info, GroundTruth truth, int column, Signal signal) {
        SessionDictionary d = info.dictionary();
        Map<String, Long> sampled = new HashMap<>();
        long n = 0;
        for (SampleBatch b : consumer.batches) {
            for (int i = 0; i < b.size; i++) {
                if ((b.counter[i] & 0xFF) != column) {
                    continue;
                }
                String image = d.imageName(b.image[i]);
                assertFalse(image.startsWith("("), "sample at 0x" + Long.toHexString(b.pc[i]) + " in " + image);
                String sym = b.symbol[i] >= 0 ? d.symbolName(b.symbol[i]) : "(no symbols)";
                sampled.merge(b.domain[i] + " " + image + " " + sym, 1L, Long::sum);
                n++;
            }
        }
        Map<String, Long> trueMilli = new HashMap<>();
        long total = 0;
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == 0 || r.domid() == 1) {
                trueMilli.merge(r.domid() + " " + r.image() + " " + r.symbol(), r.milli(signal), Long::sum);
                total += r.milli(signal);
            }
        }
        assertTrue(n > 5000, signal + " column has " + n + " samples");
        int checked = 0;
        for (Map.Entry<String, Long> e : trueMilli.entrySet()) {
            double share = (double) e.getValue() / total;
            if (share < 0.01) {
                continue;
            }
            double got = (double) sampled.getOrDefault(e.getKey(), 0L) / n;
            double bound = 4 * Math.sqrt(share * (1 - share) / n) + 0.002;
            assertTrue(Math.abs(got - share) <= bound, String.format("%s (%s): sampled %.4f, true %.4f, bound %.4f",
                    e.getKey(), signal, got, share, bound));
            checked++;
        }
        assertTrue(checked >= 10, "symbols of at least 1 %: " + checked);
    }

    /**
     * taken = delivered + lost + dropped + invalid, Xen counting each IBS block as one sample; the
     * report has one sample of it in each column of its kind (two fetch events: two).
     */
    @Test
    void theBooksCountEachIbsBlockOnceAndEachColumnOfItsKindShowsIt() throws Exception {
        ProfilerImpl p = wire(FAMILY10);
        try {
            SessionSummary s = profile(p, 100_000, "CPU_CLK_UNHALTED:100000:0:1:1", "IBS_FETCH_ALL:50000:0:1:1",
                    "IBS_FETCH_ATTEMPTED:50000:0:1:1", "IBS_OP_ALL:50000:0:1:1");
            assertTrue(s.accounting().balanced(), s.accounting().line());
            assertEquals(0, s.accounting().lost(), "2048-slot buffers hold every block: " + s.accounting().line());
            Map<Integer, Long> byColumn = new HashMap<>();
            for (SampleBatch b : consumer.batches) {
                for (int i = 0; i < b.size; i++) {
                    byColumn.merge(b.counter[i] & 0xFF, 1L, Long::sum);
                }
            }
            assertEquals(4, byColumn.size(), "the counter and the three IBS columns: " + byColumn);
            assertTrue(byColumn.values().stream().allMatch(v -> v > 1000), byColumn.toString());
            assertEquals(byColumn.get(0x10), byColumn.get(0x11), "every fetch sample is one of each fetch column");
            assertEquals(s.accounting().delivered() + byColumn.get(0x11), consumer.samples(), s.accounting().line());
            assertFalse(s.notes().stream().anyMatch(l -> l.contains("IBS block")), s.notes().toString());
        } finally {
            p.deactivate();
        }
    }

    /** The XenLinux driver's 16 slots hold one op block at a time: the books count the losses, a note says what to ask for. */
    @Test
    void sixteenSlotBuffersLoseIbsSamplesAndANoteSaysWhatToAskFor() throws Exception {
        ProfilerImpl p = wire(FAMILY10);
        try {
            SessionSummary s = profile(p, 50_000, 16, "IBS_OP_ALL:50000:0:1:1");
            assertTrue(s.accounting().balanced(), s.accounting().line());
            assertTrue(s.accounting().lost() > 0, s.accounting().line());
            assertEquals(s.accounting().delivered(), consumer.samples(), s.accounting().line());
            assertTrue(s.notes().stream().anyMatch(l -> l.contains("each IBS op sample as 14 entries")
                    && l.contains("buffers of 16 slots") && l.contains("--buffer-size=2048")), s.notes().toString());
        } finally {
            p.deactivate();
        }
    }

    /** OProfile's default op unit mask (0x01) asks for dispatched-op counting, which the default family 10h part lacks. */
    @Test
    void dispatchedOpsOnAPartWithoutOpCntAreRefusedWithTheWayOut() throws Exception {
        ProfilerImpl p = wire(FAMILY10);
        try {
            OpcontrolResult r = op(p, 0, "--start-daemon", "--event=IBS_OP_ALL:100000");
            assertFalse(r.ok());
            assertTrue(r.output().contains("dispatched-op counting is not supported") && r.output().contains(
                    "IBS_OP_ALL:100000:0:1:1") && r.output().contains("ibs.caps=0x1f"), r.output());
            assertFalse(r.output().contains("\tat "), r.output());
        } finally {
            p.deactivate();
        }
    }

    @Test
    void ibsEventsOnAHostWithoutIbsAreRefusedNamingTheFamilyThatHasIt() throws Exception {
        ProfilerImpl p = wire(null);
        try {
            OpcontrolResult r = op(p, 0, "--start-daemon", "--event=IBS_FETCH_ALL:50000:0:1:1");
            assertFalse(r.ok());
            assertTrue(r.output().contains("has no IBS") && r.output().contains("--cpu " + FAMILY10), r.output());
        } finally {
            p.deactivate();
        }
    }
}
