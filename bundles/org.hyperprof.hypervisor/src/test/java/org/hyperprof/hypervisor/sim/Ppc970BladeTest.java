package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.PostponedHandling;
import org.junit.jupiter.api.Test;

/**
 * The embedded PowerPC 970 blade: a notable share of its PMU interrupts is postponed by Xen-PPC's
 * EE=0 code, and each way of handling them keeps its books and shows in the profile.
 */
class Ppc970BladeTest {
    private static final String SCENARIO = "ppc970-blade";

    private record Run(SimHost host, Map<String, Long> c, Fixtures.Sampled sampled, GroundTruth truth) {
        long get(String key) {
            return c.get(key);
        }

        /** Xen-mode share of the samples both domains' buffers received. */
        double xenShare() {
            long xen = sampled.samples(0, CpuMode.HYPERVISOR) + sampled.samples(1, CpuMode.HYPERVISOR);
            return (double) xen / (sampled.samples(0) + sampled.samples(1));
        }

        /** Xen-mode share of the two domains' cycles. */
        double trueXenShare() {
            double xen = 0;
            double all = 0;
            for (int d : List.of(0, 1)) {
                xen += Fixtures.events(truth, d, CpuMode.HYPERVISOR, Signal.CYCLES);
                all += Fixtures.events(truth, d, null, Signal.CYCLES);
            }
            return xen / all;
        }
    }

    private static Run run(String handling, Map<String, String> pmuOptions) throws Exception {
        SimHost host = (SimHost) Fixtures.everyModel().load(SCENARIO, null, Map.of("ppc.postponed", handling),
                pmuOptions);
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), 100_000));
        host.resetGroundTruth();
        host.run(200_000, null);
        Fixtures.stopProfiling(host, sampled);
        XenoprofStatistics st = host.xenoprof().statistics();
        assertTrue(st.balanced(), st.toString());
        return new Run(host, host.counters(), sampled, host.groundTruth());
    }

    @Test
    void theBladeIsA970WithTwoCpusAt2GhzAndIgnoresPostponedSamplesByDefault() throws Exception {
        SimHost host = (SimHost) Fixtures.everyModel().load(SCENARIO, null);
        assertEquals("ppc64/970", host.model().cpuType());
        assertEquals(2, host.pcpuCount());
        assertEquals(2000, host.mhz());
        assertEquals(PostponedHandling.IGNORE, host.scenario().postponedHandling());
        assertEquals(1L, host.counters().get("interrupts.postponed.mode.ignore"));
        assertTrue(host.scenario().interruptsOff().size() > 20, "Xen-PPC's EE=0 functions are listed");
    }

    @Test
    void ignoreDropsANotableShareOfTheInterruptsAndUnderSamplesXen() throws Exception {
        Run r = run("ignore", null);
        long taken = r.get("interrupts.taken");
        long postponed = r.get("interrupts.postponed");
        assertTrue(postponed > 0.05 * taken && postponed < 0.4 * taken, postponed + " of " + taken + " postponed");
        assertEquals(postponed, r.get("interrupts.postponed.dropped") + r.get("interrupts.postponed.withdrawn"));
        assertEquals(r.get("interrupts.lost"), postponed);
        assertEquals(0L, r.get("interrupts.postponed.reattributed") + r.get("interrupts.polled"));
        assertEquals(taken - r.get("interrupts.postponed.dropped"), r.get("samples.taken"),
                "one counter: each interrupt not dropped is one sample");
        assertTrue(r.xenShare() < r.trueXenShare() - 0.03, "Xen's EE=0 time goes unsampled: " + r.xenShare()
                + " of the samples, " + r.trueXenShare() + " of the cycles");
        long delay = r.get("interrupts.postponed.delay.cycles");
        assertTrue(delay / postponed > 500 && r.get("interrupts.postponed.delay.max") > delay / postponed);
    }

    @Test
    void ownerKeepsEverySampleAndRestoresXensShareWithTheRightMmcraReading() throws Exception {
        Run r = run("owner", null);
        long postponed = r.get("interrupts.postponed");
        assertEquals(postponed, r.get("interrupts.postponed.reattributed") + r.get("interrupts.postponed.withdrawn"));
        assertEquals(0L, r.get("interrupts.postponed.dropped"));
        assertEquals(0L, r.get("interrupts.misattributed"), "the MMCRA reading matches the part");
        assertEquals(r.get("interrupts.taken"), r.get("samples.taken"));
        assertEquals(r.trueXenShare(), r.xenShare(), 0.02);
    }

    /**
     * Samples whose PC no image of their domain maps in their mode (OProfile's daemon looks a PC up
     * only in the space of its mode: Xen's image, the kernel and its modules, the processes).
     * Addresses compare unsigned: the kernels run at 0xc000..., negative as a Java long.
     */
    private static long unmapped(Run r) {
        ImageSpec xen = r.host().scenario().hypervisor();
        long unmapped = 0;
        for (DomainSpec d : r.host().scenario().domains()) {
            for (long[] e : r.sampled().mainSamples(d.domid(), false)) {
                long pc = e[0];
                int mode = (int) e[1];
                boolean mapped = mode == CpuMode.HYPERVISOR.code() && holds(xen, pc);
                for (ImageSpec i : d.images()) {
                    boolean kernelSpace = i.kind() == ImageKind.KERNEL || i.kind() == ImageKind.MODULE;
                    boolean space = mode == CpuMode.KERNEL.code() ? kernelSpace
                            : mode == CpuMode.USER.code() && i.kind() == ImageKind.USER;
                    mapped |= space && holds(i, pc);
                }
                if (!mapped) {
                    unmapped++;
                }
            }
        }
        return unmapped;
    }

    private static boolean holds(ImageSpec image, long pc) {
        return Long.compareUnsigned(pc, image.start()) >= 0 && Long.compareUnsigned(pc, image.end()) < 0;
    }

    @Test
    void ownerAndPollSamplesCarryThePcAndModeOfTheSameInstruction() throws Exception {
        // SIAR and MMCRA's sampled bits latch together at the alert: a postponed sample's PC lies in an
        // image its mode maps, whether it is the guest kernel's (0xc000...), a process's or Xen's.
        for (String handling : List.of("owner", "poll")) {
            Run r = run(handling, null);
            long handled = r.get("interrupts.postponed.reattributed") + r.get("interrupts.polled");
            assertTrue(handled > 100, handling + ": only " + handled + " postponed samples were logged");
            assertEquals(0L, unmapped(r), handling + ": samples at a PC their mode's images do not map");
        }
    }

    @Test
    void ownerWithXnusMmcraReadingMisattributesThePostponedXenSamples() throws Exception {
        Run r = run("owner", Map.of("mmcra.hvpr", "xnu", "mmcra.hvpr.hardware", "linux"));
        long misattributed = r.get("interrupts.misattributed");
        assertTrue(misattributed > 0.5 * r.get("interrupts.postponed"), misattributed + " misattributed");
        assertTrue(misattributed <= r.get("interrupts.postponed.reattributed"), "only the postponed ones are read"
                + " through MMCRA; the others are attributed where they were taken");
        assertTrue(r.xenShare() < r.trueXenShare() - 0.03, "Xen samples read as user ones");
    }

    @Test
    void pollCatchesSomePostponedInterruptsAtThePollPointsAndDropsTheRest() throws Exception {
        Run r = run("poll", null);
        long postponed = r.get("interrupts.postponed");
        long polled = r.get("interrupts.polled");
        assertTrue(polled > 0.1 * postponed, polled + " of " + postponed + " polled");
        assertEquals(postponed, polled + r.get("interrupts.postponed.dropped")
                + r.get("interrupts.postponed.withdrawn"));
        assertEquals(r.get("interrupts.lost"), r.get("interrupts.postponed.dropped")
                + r.get("interrupts.postponed.withdrawn"));
        Run ignore = run("ignore", null);
        assertTrue(r.get("samples.taken") > ignore.get("samples.taken"), "polling keeps samples ignore drops");
    }
    @Test
    void theGatedInterruptPathAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        for (String handling : List.of("owner", "poll")) {
            SimHost host = (SimHost) Fixtures.everyModel().load(SCENARIO, null, Map.of("ppc.postponed", handling),
                    null);
            Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), 100_000));
            host.xenoprof().bindVirq(0, vcpu -> { }); // daemons that read nothing: the path itself is measured
            host.xenoprof().bindVirq(1, vcpu -> { });
            host.run(100_000, null); // the interpreter and the JIT allocate while warming up
            long quietest = Long.MAX_VALUE;
            for (int i = 0; i < 5; i++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                host.run(20_000, null);
                quietest = Math.min(quietest, mx.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(host.counters().get("interrupts.postponed") > 500, handling);
            assertTrue(quietest < 1024, handling + ": 20 ms of postponed interrupts allocated " + quietest + " bytes");
        }
    }
}
