package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.ACTIVE;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.HVM;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.PASSIVE;
import static org.hyperprof.hypervisor.sim.MultiDomainScenarioTest.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin;
import org.hyperprof.hypervisor.sim.scenario.ScenarioParser;
import org.hyperprof.hypervisor.sim.scenario.SymbolRef;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;
import org.hyperprof.hypervisor.xenoprof.XenoprofBuffer;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;

/**
 * Call traces taken on the whole machine (section 7 of the facts): each sample's walk follows the
 * simulated stack of the code that ran, guest frames always, Xen frames only in a Xen built with
 * frame pointers, and the ring rules (two free slots to start, a full ring ends the walk) hold.
 */
class CallTraceEngineTest {

    private static final long DEPTH = 4;

    /** One trace as a daemon reads it: the sample, its mode, and the return addresses after it. */
    private record Trace(long pc, int mode, List<Long> frames) {
    }

    private static List<Trace> traces(List<long[]> entries) {
        List<Trace> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            long[] escape = entries.get(i);
            assertEquals(SharedBuffer.ESCAPE_CODE, escape[0], "a trace starts with an escape record, entry " + i);
            assertEquals(SharedBuffer.TRACE_BEGIN, escape[2], "the escape record's event is TRACE_BEGIN");
            long[] sample = entries.get(i + 1);
            assertEquals(escape[1], sample[1], "the escape record carries the sample's mode");
            List<Long> frames = new ArrayList<>();
            int j = i + 2;
            for (; j < entries.size() && entries.get(j)[0] != SharedBuffer.ESCAPE_CODE; j++) {
                assertEquals(sample[1], entries.get(j)[1], "a frame carries the sample's mode");
                assertEquals(0, entries.get(j)[2], "a frame's event is 0");
                frames.add(entries.get(j)[0]);
            }
            out.add(new Trace(sample[0], (int) sample[1], frames));
            i = j - 1;
        }
        return out;
    }

    /** The caller chain the scenario gives the function that holds {@code pc} in a domain. */
    private static List<SymbolRef> chainOf(Scenario scenario, int domid, long pc) {
        DomainSpec d = scenario.domains().stream().filter(x -> x.domid() == domid).findFirst().orElseThrow();
        List<SymbolRef> found = null;
        for (RegionSpec r : d.regions()) {
            for (WeightedSymbol ws : r.symbols()) {
                SymbolRef s = ws.symbol();
                if (Long.compareUnsigned(pc - s.start(), s.size()) < 0) {
                    if (found != null && !found.equals(ws.callers())) {
                        return null; // the function runs under two different chains
                    }
                    found = ws.callers();
                }
            }
        }
        return found;
    }

    /** The frames are the chain's return addresses in order, each inside its caller, past its first byte. */
    private static void assertFramesFollowTheChain(Trace t, List<SymbolRef> chain, String where) {
        for (int f = 0; f < t.frames().size(); f++) {
            SymbolRef caller = chain.get(f);
            long ret = t.frames().get(f);
            assertTrue(ret > caller.start() && ret < caller.start() + caller.size(), where + ": frame " + f
                    + " 0x" + Long.toHexString(ret) + " is not a return address inside " + caller.name());
        }
    }

    @Test
    void guestTracesWalkTheCallerChainAndXenModeTracesStopWithoutFramePointers() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.Sampled sampled = MultiDomainScenarioTest.profile(host, 50_000, true, DEPTH, 2048, 60_000);
        int full = 0;
        int xen = 0;
        for (int d : List.of(WEB, MultiDomainScenarioTest.DB, HVM)) {
            for (Trace t : traces(sampled.entries.get(d))) {
                List<SymbolRef> chain = chainOf(host.scenario(), d, t.pc());
                if (t.mode() == 2) {
                    assertEquals(0, t.frames().size(), "no Xen frames without frame pointers");
                    xen++;
                    continue;
                }
                if (chain == null) {
                    continue;
                }
                assertEquals(Math.min(DEPTH, chain.size()), t.frames().size(), "dom" + d + " trace depth");
                assertFramesFollowTheChain(t, chain, "dom" + d);
                full++;
            }
        }
        assertTrue(full > 1000 && xen > 100, full + " guest traces, " + xen + " Xen-mode traces");
        assertEquals(0, host.counters().get("trace.entries.lost"), "2048-slot rings drained in time never cut a trace");
    }

    @Test
    void aHypervisorBuiltWithFramePointersWalksXensOwnChains() throws Exception {
        SimHost host = withFramePointers();
        Fixtures.Sampled sampled = MultiDomainScenarioTest.profile(host, 50_000, true, DEPTH, 2048, 60_000);
        int walked = 0;
        for (int d : List.of(WEB, MultiDomainScenarioTest.DB, HVM)) {
            for (Trace t : traces(sampled.entries.get(d))) {
                List<SymbolRef> chain = chainOf(host.scenario(), d, t.pc());
                if (t.mode() != 2 || chain == null || chain.isEmpty()) {
                    continue;
                }
                assertEquals(Math.min(DEPTH, chain.size()), t.frames().size(), "Xen trace depth in dom" + d);
                assertFramesFollowTheChain(t, chain, "Xen in dom" + d);
                walked++;
            }
        }
        assertTrue(walked > 100, walked + " Xen-mode traces walked");
    }

    @Test
    void aSmallRingCutsTheTraceThatFillsItAndThenLosesWholeSamples() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        // The active guests get 6-slot rings (5 usable) and dom1's daemon never drains.
        Fixtures.Sampled sampled = Fixtures.startSession(host, 50_000, true, true, DEPTH, 6, ACTIVE, PASSIVE);
        sampled.stalled.add(WEB);
        host.run(20_000, null);

        for (XenoprofBuffer b : host.xenoprofCore().buffers(WEB)) {
            assertEquals(6, b.size());
            List<long[]> ring = new ArrayList<>();
            for (int slot = b.tail(); slot != b.head(); slot = (slot + 1) % b.size()) {
                ring.add(new long[] {b.eip(slot), b.mode(slot), b.event(slot)});
            }
            List<Trace> inRing = traces(ring);
            int free = XenoprofBuffer.space(b.head(), b.tail(), b.size());
            assertTrue(free < 2, "vcpu " + b.vcpuId() + ": the ring was left with " + free + " free slots");
            int used = 0;
            for (int i = 0; i < inRing.size(); i++) {
                Trace t = inRing.get(i);
                List<SymbolRef> chain = chainOf(host.scenario(), WEB, t.pc());
                long whole = t.mode() == 2 ? 0 : chain == null ? t.frames().size() : Math.min(DEPTH, chain.size());
                used += 2 + t.frames().size();
                boolean last = i == inRing.size() - 1;
                if (t.frames().size() < whole) {
                    assertTrue(last && used == b.size() - 1, "only the trace that filled the ring is cut");
                }
                if (t.mode() != 2 && chain != null) {
                    assertFramesFollowTheChain(t, chain, "vcpu " + b.vcpuId());
                }
            }
            assertEquals(inRing.size(), b.userSamples() + b.kernelSamples() + b.xenSamples(),
                    "each trace in the ring holds one written sample");
            assertTrue(b.lostSamples() > 10, "later samples found fewer than 2 free slots: " + b.lostSamples());
        }
        long lostInRings = 0;
        for (XenoprofBuffer b : host.xenoprofCore().buffers(WEB)) {
            lostInRings += b.lostSamples();
        }
        assertTrue(host.xenoprof().statistics().lostSamples() >= lostInRings);
        assertTrue(host.counters().get("trace.entries.lost") > 0, "a trace was cut by the full ring");
        assertTrue(host.xenoprof().statistics().balanced());
    }

    @Test
    void passiveDomainsGetCallTracesInTheirPassiveBuffers() throws Exception {
        SimHost host = MultiDomainScenarioTest.host();
        Fixtures.Sampled sampled = MultiDomainScenarioTest.profile(host, 50_000, true, DEPTH, 16, 30_000);
        for (int d : PASSIVE) {
            List<Trace> ts = traces(sampled.entries.get(d));
            assertTrue(ts.stream().anyMatch(t -> t.frames().size() == DEPTH), "dom" + d + " traces of full depth");
        }
    }

    private static SimHost withFramePointers() throws Exception {
        String text;
        try (InputStream in = CallTraceEngineTest.class.getClassLoader().getResourceAsStream(
                HostServiceImpl.SCENARIO_FOLDER + "/" + MultiDomainScenarioTest.NAME + HostServiceImpl.SCENARIO_SUFFIX)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        String changed = text.replace("xen.frame-pointers no", "xen.frame-pointers yes");
        assertTrue(!changed.equals(text));
        Scenario scenario = ScenarioParser.parse(ScenarioOrigin.text("fp.scenario", changed,
                CallTraceEngineTest.class.getClassLoader(), HostServiceImpl.SCENARIO_FOLDER));
        assertTrue(scenario.xenFramePointers());
        return new SimHost(scenario, new P6PmuModel(), Fixtures.P6_BUNDLE, new SystemWidePolicy(),
                Fixtures.SYSTEMWIDE_BUNDLE);
    }
}
