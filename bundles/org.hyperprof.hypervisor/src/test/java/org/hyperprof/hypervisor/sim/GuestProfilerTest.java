package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.vpmu.kit.PmuContext;
import org.junit.jupiter.api.Test;

/** The engine's side of a guest that profiles itself: programming, virtual interrupts, visible PCs, traps, on-behalf truth. */
class GuestProfilerTest {

    /** The smallest policy that gives each vCPU its own counters: whole save and restore at every switch. */
    static final class WholeContextPolicy implements CounterVirtualizationPolicy {
        /** Every register a guest wrote, in order. */
        final List<Integer> guestWrites = new java.util.ArrayList<>();

        @Override
        public String name() {
            return "test-wholecontext";
        }

        @Override
        public String description() {
            return "test";
        }

        @Override
        public PolicySession open(PolicyHost host) {
            return new PolicySession() {
                final Map<Integer, PmuContext> contexts = new HashMap<>();

                PmuContext of(int domid, int vcpu) {
                    return contexts.computeIfAbsent(domid << 8 | vcpu, k -> new PmuContext(host.newPmuContext()));
                }

                @Override
                public void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
                    if (prevDomid >= 0) {
                        of(prevDomid, prevVcpu).save(host.pmu(pcpu));
                    }
                    if (nextDomid >= 0) {
                        of(nextDomid, nextVcpu).restore(host.pmu(pcpu));
                    } else {
                        new PmuContext(host.newPmuContext()).quiet(host.pmu(pcpu));
                    }
                }

                @Override
                public void hypervisorEntry(int pcpu, int domid, int vcpu) {
                }

                @Override
                public void hypervisorExit(int pcpu, int domid, int vcpu) {
                }

                @Override
                public long guestRead(int pcpu, int domid, int vcpu, int register) {
                    return host.pmu(pcpu).read(register);
                }

                @Override
                public boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
                    guestWrites.add(register);
                    host.pmu(pcpu).write(register, value);
                    return true;
                }

                @Override
                public boolean guestsSeePmu() {
                    return true;
                }

                @Override
                public boolean pmuInterrupt(int pcpu, int domid, int vcpu, CpuMode mode) {
                    if (domid >= 0) {
                        host.injectVirtualInterrupt(domid, vcpu);
                    }
                    return false;
                }

                @Override
                public OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode) {
                    return OverflowRoute.GUEST;
                }

                @Override
                public void close() {
                }
            };
        }
    }

    private static SimHost host() throws Exception {
        return host(new WholeContextPolicy());
    }

    private static SimHost host(WholeContextPolicy policy) throws Exception {
        Scenario s = Fixtures.defaultHost().scenario();
        return new SimHost(s, new org.hyperprof.pmu.p6.P6PmuModel(), Fixtures.P6_BUNDLE, policy, "test");
    }

    @Test
    void theGuestsDriverProgramsOnlyTheRegistersOfTheCountersItUses() throws Exception {
        WholeContextPolicy policy = new WholeContextPolicy();
        SimHost host = host(policy);
        host.run(20_000, null);
        // P6: CPU_CLK_UNHALTED on counter 0 = PerfCtr0 (0xC1) and PerfEvtSel0 (0x186), then LVTPC (0x340).
        assertEquals(List.of(0xC1, 0x186, 0x340), policy.guestWrites.subList(0, 3), "the start sequence");
        assertTrue(policy.guestWrites.stream().allMatch(r -> r == 0xC1 || r == 0x186 || r == 0x340),
                "never PerfCtr1 or PerfEvtSel1, which another owner may hold: " + policy.guestWrites);
    }

    @Test
    void theGuestsOwnSamplesCountItsCyclesAndSitAtPcsTheGuestCanSee() throws Exception {
        SimHost host = host();
        host.run(200_000, null);
        Map<String, Long> c = host.counters();
        List<SharedBuffer> buffers = host.guestProfilerBuffers(1);
        assertEquals(1, buffers.size(), "domU runs its own profiler on its one vCPU");
        assertTrue(host.guestProfilerBuffers(0).isEmpty(), "dom0 runs none");
        SharedBuffer b = buffers.get(0);
        long written = b.userSamples() + b.kernelSamples() + b.xenSamples();
        assertEquals(c.get("guest.samples"), written + c.get("guest.samples.lost"), "every sample written or lost");
        assertEquals(0, b.xenSamples(), "a guest's own sample is never in Xen mode: it sees guest PCs only");
        // The domU's cycles while it ran (its own code and the hypervisor's work for it) over the period.
        GroundTruth truth = host.groundTruth();
        long cycles = 0;
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == 1) {
                cycles += r.milli(Signal.CYCLES) / 1000;
            }
        }
        long expected = cycles / 100_000;
        assertTrue(Math.abs(c.get("guest.samples") - expected) <= 2 + expected / 50,
                "samples " + c.get("guest.samples") + " vs cycles/period " + expected);
        for (int i = 0; i < b.head(); i++) {
            long pc = b.eip(i);
            assertTrue(host.domain(1).memoryMap().stream().skip(1).anyMatch(m -> m.contains(pc)),
                    String.format("sample at 0x%x lies in one of domU's own images", pc));
        }
    }

    @Test
    void everyTrappedAccessCostsTheScenariosTrapAsHypervisorWork() throws Exception {
        SimHost host = host();
        host.run(50_000, null);
        Map<String, Long> c = host.counters();
        assertTrue(c.get("guest.accesses.trapped") > 0);
        assertEquals(c.get("guest.accesses.trapped") * 1500, c.get("guest.trap.cycles"),
                "a PV guest's access is an emulated privileged instruction: cost.trap.pv 1500 each");
        long emulate = 0;
        for (GroundTruth.Row r : host.groundTruth().rows()) {
            if (r.symbol().equals("emulate_privileged_op")) {
                emulate += r.milli(Signal.CYCLES) / 1000;
            }
        }
        assertEquals(c.get("guest.trap.cycles"), emulate, "the traps appear in the ground truth where they ran");
    }

    @Test
    void hypervisorWorkForAGuestIsBookedToTheGuestFunctionThatEnteredIt() throws Exception {
        SimHost host = host();
        host.run(100_000, null);
        GroundTruth truth = host.groundTruth();
        for (int domid : new int[] {0, 1}) {
            long hypervisor = 0;
            for (GroundTruth.Row r : truth.rows()) {
                if (r.domid() == domid && r.mode() == CpuMode.HYPERVISOR) {
                    hypervisor += r.milli(Signal.CYCLES);
                }
            }
            long behalf = 0;
            for (GroundTruth.Row r : truth.onBehalf()) {
                if (r.domid() == domid) {
                    assertTrue(r.mode() != CpuMode.HYPERVISOR, "on-behalf rows name guest code: " + r.symbol());
                    behalf += r.milli(Signal.CYCLES);
                }
            }
            assertTrue(hypervisor > 0);
            // Only the hypervisor work before the vCPU first ran guest code has no guest function to go to.
            assertTrue(behalf <= hypervisor && behalf >= hypervisor * 99 / 100,
                    "domain " + domid + ": on behalf " + behalf + " of hypervisor " + hypervisor);
        }
    }

    @Test
    void underTheSystemwidePolicyTheGuestsProfilerFindsNoPmuAndCostsNothing() throws Exception {
        SimHost host = Fixtures.defaultHost();
        host.run(50_000, null);
        Map<String, Long> c = host.counters();
        assertEquals(1, c.get("guest.profilers.nopmu"));
        assertEquals(0, c.get("guest.accesses"));
        assertEquals(0, c.get("guest.trap.cycles"));
        assertTrue(host.guestProfilerBuffers(1).isEmpty());
        assertTrue(host.guestProfilerNotes().get(0).contains("offers guests no PMU"));
    }

    @Test
    void aGuestProfilingItselfUnderARealPolicyAllocatesNothingPerSample() throws Exception {
        Scenario s = Fixtures.defaultHost().scenario();
        SimHost host = new SimHost(s, new org.hyperprof.pmu.p6.P6PmuModel(), Fixtures.P6_BUNDLE,
                new org.hyperprof.vpmu.saverestore.SaveRestorePolicy(), "org.hyperprof.vpmu.saverestore");
        host.run(100_000, null); // warm-up: every path taken and compiled
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long samplesBefore = host.counters().get("guest.samples");
        long before = threads.getThreadAllocatedBytes(id);
        host.run(400_000, null);
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        long samples = host.counters().get("guest.samples") - samplesBefore;
        host.guestProfilerBuffers(1).get(0).writeTail(host.guestProfilerBuffers(1).get(0).head());
        assertTrue(samples > 5_000, "the guest sampled itself: " + samples);
        // Only the run's bookkeeping per quantum may allocate, never the switch, trap or interrupt path.
        assertTrue(allocated < samples, "allocated " + allocated + " bytes for " + samples + " guest samples");
    }
}
