package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.events;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.SymbolFile;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;
import org.hyperprof.hypervisor.xenoprof.XenoprofBuffer;
import org.junit.jupiter.api.Test;

/**
 * The embedded {@code xen-multi-domain} host, profiled with every role at once: dom0 primary and
 * active, dom1 active, dom2 (PV) and dom3 (HVM) passive, dom4 unlisted.
 */
class MultiDomainScenarioTest {

    static final String NAME = "xen-multi-domain";
    static final int DOM0 = 0;
    static final int WEB = 1;
    static final int DB = 2;
    static final int HVM = 3;
    static final int BATCH = 4;
    static final List<Integer> ACTIVE = List.of(DOM0, WEB);
    static final List<Integer> PASSIVE = List.of(DB, HVM);

    /**
     * A whole session on the scenario's lists ({@link #ACTIVE} active, {@link #PASSIVE} passive): counting unhalted
     * cycles every {@code count} in OS (and with {@code user} USR) mode with call traces of {@code depth}, active
     * buffers of {@code activeMaxSamples} slots, started, run for {@code micros} and stopped.
     */
    static Fixtures.Sampled profile(SimHost host, long count, boolean user, long depth, int activeMaxSamples,
            long micros) throws HostStoppedException {
        Fixtures.Sampled sampled = Fixtures.startSession(host, count, true, user, depth, activeMaxSamples, ACTIVE,
                PASSIVE);
        host.run(micros, null);
        Fixtures.stopProfiling(host, sampled);
        return sampled;
    }

    static SimHost host() throws Exception {
        return (SimHost) Fixtures.service().load(NAME, null);
    }

    @Test
    void theHostHasDom0AndFourGuestsEachWithItsOwnImages() throws Exception {
        SimHost host = host();
        assertEquals(List.of(0, 1, 2, 3, 4), host.domains().stream().map(DomainInfo::domid).toList());
        assertTrue(host.domain(DOM0).hardwareDomain());
        assertTrue(host.domain(HVM).hvm(), "dom3 is the HVM guest");
        for (int d : List.of(DOM0, WEB, DB, BATCH)) {
            assertFalse(host.domain(d).hvm(), "dom" + d + " is PV");
        }
        assertEquals(4, host.pcpuCount());
        for (DomainSpec d : host.scenario().domains()) {
            assertEquals(ImageKind.KERNEL, d.images().get(0).kind(), d.name() + " boots its own kernel");
            assertTrue(d.images().stream().anyMatch(i -> i.kind() == ImageKind.USER), d.name() + " runs user code");
            assertTrue(d.regions().stream().anyMatch(r -> r.mode() == CpuMode.HYPERVISOR),
                    d.name() + " has Xen work done on its behalf");
        }
        assertEquals("vmlinux-2.6.24-19-generic", host.scenario().domains().get(HVM).images().get(0).name());
        assertEquals("vmlinux-syms-2.6.18-53.el5xen", host.scenario().domains().get(DB).images().get(0).name());
    }

    @Test
    void everySymbolHasAtMostSixCallerFramesAndMostHaveThreeOrMore() throws Exception {
        SimHost host = host();
        int chains = 0;
        for (DomainSpec d : host.scenario().domains()) {
            for (RegionSpec r : d.regions()) {
                for (WeightedSymbol ws : r.symbols()) {
                    int frames = ws.callers().size();
                    assertTrue(frames <= 6, ws.symbol().name() + " has " + frames + " frames");
                    if (frames >= 3) {
                        chains++;
                    }
                }
            }
        }
        assertTrue(chains > 200, chains + " symbols with a call stack of 3 to 6 frames");
    }

    @Test
    void eachDomainRunsItsLoadAndTheCpusStayIdleAboutAFifthOfTheTime() throws Exception {
        SimHost host = host();
        host.run(1_000_000, null);
        GroundTruth truth = host.groundTruth();
        double elapsed = host.cycles();
        for (DomainSpec d : host.scenario().domains()) {
            double busy = events(truth, d.domid(), null, Signal.CYCLES) / elapsed / d.vcpus();
            if (d.domid() == BATCH) {
                // Its long bursts spend its credit; woken I/O guests, boosted, preempt it: it gets less.
                assertTrue(busy > 0.35 && busy < d.loadPpm() / 1e6, d.name() + " busy share per vCPU " + busy);
            } else {
                assertEquals(d.loadPpm() / 1e6, busy, 0.04, d.name() + " busy share per vCPU");
            }
        }
        long halted = host.counters().get("halted.cycles");
        double idleShare = (halted + events(truth, GroundTruth.IDLE_DOMAIN, null, Signal.CYCLES)) / (4 * elapsed);
        assertTrue(idleShare > 0.12 && idleShare < 0.35, "idle share " + idleShare);
    }

    @Test
    void everySampledPcIsAFunctionItsOwnDomainRanAndTheSharesAgreeWithTheGroundTruth() throws Exception {
        SimHost host = host();
        Fixtures.Sampled sampled = Fixtures.startSession(host, 100_000, true, true, 0, 16, ACTIVE, PASSIVE);
        host.resetGroundTruth();
        host.run(300_000, null);
        Fixtures.stopProfiling(host, sampled);
        GroundTruth truth = host.groundTruth();
        XenoprofStatistics stats = host.xenoprof().statistics();
        assertTrue(stats.balanced(), stats.toString());
        assertTrue(stats.passiveSamples() > 1000 && stats.activeSamples() > 1000, stats.toString());

        long written = 0;
        double truthTotal = 0;
        for (int d : List.of(DOM0, WEB, DB, HVM)) {
            written += sampled.mainSamples(d, false).size();
            truthTotal += events(truth, d, null, Signal.CYCLES);
        }
        for (int d : List.of(DOM0, WEB, DB, HVM)) {
            Set<String> ran = functionsRun(truth, d);
            List<long[]> samples = sampled.mainSamples(d, false);
            for (long[] e : samples) {
                String fn = functionAt(host.scenario(), d, e[0]);
                assertTrue(ran.contains(fn), "dom" + d + "'s buffer holds 0x" + Long.toHexString(e[0]) + " (" + fn
                        + "), which dom" + d + " never ran");
            }
            double trueShare = events(truth, d, null, Signal.CYCLES) / truthTotal;
            double share = (double) samples.size() / written;
            double sigma = Math.sqrt(trueShare * (1 - trueShare) / written);
            assertEquals(trueShare, share, 4 * sigma + 0.01, "dom" + d + " share of the written samples");
        }
        assertEquals(0, host.xenoprofCore().buffers(BATCH).length, "the unlisted guest has no buffer");
        assertTrue(events(truth, BATCH, null, Signal.CYCLES) / 100_000 * 0.9 < stats.othersSamples(),
                "the unlisted guest's samples are dropped as others: " + stats);
    }

    @Test
    void theHvmGuestsModeComesFromItsCplAndItsSamplesReachOnlyItsPassiveBuffer() throws Exception {
        SimHost host = host();
        Fixtures.Sampled sampled = profile(host, 50_000, true, 0, 16, 200_000);
        assertEquals(DomainType.PASSIVE, host.xenoprof().domainType(HVM));
        long[] perMode = new long[3];
        for (long[] e : sampled.mainSamples(HVM, false)) {
            ImageKind kind = imageAt(host.scenario(), HVM, e[0]).kind();
            int expected = kind == ImageKind.HYPERVISOR ? 2 : kind == ImageKind.USER ? 0 : 1;
            assertEquals(expected, e[1], "mode of 0x" + Long.toHexString(e[0]) + " in " + kind);
            perMode[(int) e[1]]++;
        }
        assertTrue(perMode[0] > 100 && perMode[1] > 100 && perMode[2] > 100, java.util.Arrays.toString(perMode));
        // The passive buffers are the primary's to map: not the guest's own, not another guest's.
        assertThrows(IllegalStateException.class, () -> host.xenoprof().mapBuffers(HVM, HVM));
        assertThrows(IllegalStateException.class, () -> host.xenoprof().mapBuffers(WEB, HVM));
        assertThrows(IllegalStateException.class, () -> host.xenoprof().mapBuffers(WEB, DB));
        // Its samples are counted in its own buffers' mode counters and nowhere else.
        long counted = 0;
        for (XenoprofBuffer b : host.xenoprofCore().buffers(HVM)) {
            counted += b.userSamples() + b.kernelSamples() + b.xenSamples();
            assertEquals(2048, b.size(), "passive buffers get the driver's 2048 slots");
        }
        assertEquals(sampled.mainSamples(HVM, false).size(), counted);
    }

    @Test
    void osOnlyCountingSeesTheHvmKernelAtCpl0ButNoPvKernelAtCpl1() throws Exception {
        SimHost host = host();
        Fixtures.Sampled sampled = profile(host, 20_000, false, 0, 16, 100_000);
        assertTrue(sampled.mainSamples(HVM, false).stream().filter(e -> e[1] == 1).count() > 100,
                "the HVM kernel runs at CPL 0, which OS counting sees, and Xenoprof calls it kernel mode");
        for (int d : List.of(DOM0, WEB, DB)) {
            assertTrue(sampled.mainSamples(d, false).stream().allMatch(e -> e[1] == 2),
                    "dom" + d + ": a 32-bit PV kernel runs at CPL 1, which OS counting does not see");
        }
        assertTrue(sampled.mainSamples(HVM, false).stream().noneMatch(e -> e[1] == 0), "user code is CPL 3");
    }

    // ------------------------------------------------------------------------------------- helpers

    /** "image:function" of every function a domain ran, per the ground truth. */
    static Set<String> functionsRun(GroundTruth truth, int domid) {
        Set<String> out = new HashSet<>();
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == domid && r.milli(Signal.CYCLES) > 0) {
                out.add(r.image() + ":" + r.symbol());
            }
        }
        return out;
    }

    /** The image of a domain (or the hypervisor) that holds {@code pc}. */
    static ImageSpec imageAt(Scenario scenario, int domid, long pc) {
        List<ImageSpec> images = new ArrayList<>();
        images.add(scenario.hypervisor());
        images.addAll(scenario.domains().stream().filter(d -> d.domid() == domid).findFirst().orElseThrow().images());
        for (ImageSpec i : images) {
            if (Long.compareUnsigned(pc, i.start()) >= 0 && Long.compareUnsigned(pc, i.end()) < 0) {
                return i;
            }
        }
        throw new AssertionError("0x" + Long.toHexString(pc) + " lies in no image of dom" + domid);
    }

    /** "image:function" at {@code pc} as dom{@code domid}'s memory map resolves it. */
    static String functionAt(Scenario scenario, int domid, long pc) {
        ImageSpec image = imageAt(scenario, domid, pc);
        SymbolFile symbols = image.symbols();
        long address = pc - image.loadBias();
        for (int i = 0; i < symbols.size(); i++) {
            if (address >= symbols.start(i) && address < symbols.start(i) + symbols.length(i)) {
                return image.name() + ":" + symbols.name(i);
            }
        }
        return image.name() + ":?";
    }
}
