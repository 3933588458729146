package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.cycles;
import static org.hyperprof.hypervisor.sim.Fixtures.events;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.junit.jupiter.api.Test;

/** What a counter-virtualization policy hears from the engine, and what it may do to the host. */
class PolicyHostTest {

    /** Records every hook; optionally charges work on each switch and routes overflows its own way. */
    static final class RecordingPolicy implements CounterVirtualizationPolicy {
        final List<String> violations = new ArrayList<>();
        long switches;
        long entries;
        long exits;
        long overflows;
        long closed;
        String chargeOnSwitch;
        long chargeCycles;
        boolean guestsSeePmu;
        OverflowRoute route = OverflowRoute.XENOPROF;
        PolicyHost host;
        private boolean[] inXen;

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public String description() {
            return "records the hooks";
        }

        @Override
        public PolicySession open(PolicyHost h) {
            host = h;
            inXen = new boolean[h.pcpuCount()];
            java.util.Arrays.fill(inXen, true);
            return new PolicySession() {
                @Override
                public void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
                    switches++;
                    inXen[pcpu] = true; // the next vCPU starts in Xen
                    if (chargeOnSwitch != null) {
                        host.chargeHypervisor(pcpu, chargeCycles, chargeOnSwitch);
                    }
                }

                @Override
                public void hypervisorEntry(int pcpu, int domid, int vcpu) {
                    entries++;
                    if (inXen[pcpu]) {
                        violations.add("entry while in Xen on pCPU " + pcpu);
                    }
                    if (domid < 0 || domid == GroundTruth.IDLE_DOMAIN) {
                        violations.add("entry for the idle vCPU");
                    }
                    inXen[pcpu] = true;
                }

                @Override
                public void hypervisorExit(int pcpu, int domid, int vcpu) {
                    exits++;
                    if (!inXen[pcpu]) {
                        violations.add("exit while in the guest on pCPU " + pcpu);
                    }
                    inXen[pcpu] = false;
                }

                @Override
                public long guestRead(int pcpu, int domid, int vcpu, int register) {
                    return 0;
                }

                @Override
                public boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
                    return false;
                }

                @Override
                public boolean guestsSeePmu() {
                    return guestsSeePmu;
                }

                @Override
                public OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode) {
                    overflows++;
                    return route;
                }

                @Override
                public void close() {
                    closed++;
                }
            };
        }
    }

    private static SimHost host(Scenario scenario, RecordingPolicy policy) throws Exception {
        return new SimHost(scenario, new P6PmuModel(), Fixtures.P6_BUNDLE, policy, "test.policy");
    }

    private static Scenario defaultScenario() throws Exception {
        return new HostServiceImpl().parse(HostService.DEFAULT_SCENARIO);
    }

    @Test
    void everyVcpuSwitchIsReportedAndEntriesAndExitsAlternate() throws Exception {
        RecordingPolicy policy = new RecordingPolicy();
        SimHost host = host(defaultScenario(), policy);
        host.run(100_000, null);
        assertTrue(host.vcpuSwitches() > 10, "vCPUs block and wake: " + host.vcpuSwitches());
        assertEquals(host.vcpuSwitches(), policy.switches);
        assertTrue(policy.entries > 1000, "hypervisor regions are entered: " + policy.entries);
        assertTrue(Math.abs(policy.entries - policy.exits) <= policy.switches + 2, policy.entries + " / " + policy.exits);
        assertEquals(List.of(), policy.violations);
    }

    @Test
    void workAPolicyChargesIsHypervisorTimeOfTheCurrentVcpu() throws Exception {
        RecordingPolicy policy = new RecordingPolicy();
        policy.chargeOnSwitch = "vpmu_load";
        policy.chargeCycles = 3_000;
        SimHost host = host(defaultScenario(), policy);
        host.run(100_000, null);
        GroundTruth truth = host.groundTruth();
        double charged = cycles(truth, 0, "vpmu_load") + cycles(truth, 1, "vpmu_load")
                + cycles(truth, GroundTruth.IDLE_DOMAIN, "vpmu_load");
        assertTrue(charged <= policy.switches * 3_000.0 && charged > (policy.switches - 2) * 3_000.0,
                charged + " cycles for " + policy.switches + " switches");
        assertTrue(cycles(truth, 0, "vpmu_load") > 0, "charged to dom0 when it is switched in");
        GroundTruth.Row row = truth.rows().stream().filter(r -> r.symbol().equals("vpmu_load")).findFirst()
                .orElseThrow();
        assertEquals(CpuMode.HYPERVISOR, row.mode());
        assertEquals("xen-syms", row.image());
        assertEquals(List.of(), policy.violations, "charged work triggers no hooks of its own");
    }

    @Test
    void chargingAFunctionTheHypervisorLacksIsRefused() throws Exception {
        SimHost host = host(defaultScenario(), new RecordingPolicy());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> host.chargeHypervisor(0, 100, "kvm_pmu_refresh"));
        assertTrue(e.getMessage().contains("not a function of the hypervisor image xen-syms"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> host.chargeHypervisor(2, 100, "vpmu_save"));
    }

    @Test
    void virtualInterruptsAreCountedPerVcpu() throws Exception {
        SimHost host = host(defaultScenario(), new RecordingPolicy());
        host.injectVirtualInterrupt(1, 0);
        host.injectVirtualInterrupt(1, 0);
        assertEquals(2, host.virtualInterrupts(1, 0));
        assertEquals(0, host.virtualInterrupts(0, 0));
        assertThrows(IllegalArgumentException.class, () -> host.injectVirtualInterrupt(1, 3));
    }

    @Test
    void overflowsGoWhereThePolicyRoutesThem() throws Exception {
        RecordingPolicy policy = new RecordingPolicy();
        policy.route = OverflowRoute.DROP;
        SimHost host = host(defaultScenario(), policy);
        assertFalse(host.xenoprofProfiling());
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 100_000, true, true);
        assertTrue(host.xenoprofProfiling());
        host.run(20_000, null);
        Fixtures.stopProfiling(host, sampled);
        assertTrue(host.interruptsTaken() > 100);
        assertEquals(host.interruptsTaken(), policy.overflows, "the policy decides every overflow");
        assertEquals(0, sampled.total, "dropped overflows reach no buffer");
    }

    @Test
    void theGuestsHoldThePmuWhenThePolicyOffersThemOneAndAGuestUsesIt() throws Exception {
        RecordingPolicy policy = new RecordingPolicy();
        policy.guestsSeePmu = true;
        String pvOnly = Fixtures.minimal("", "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes",
                "domain 1 pv type=pv vcpus=1 load=0.5\n"
                        + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xenU.map\n"
                        + "region k kernel vmlinux weight=1\nsymbol tcp_v4_rcv 1\n");
        assertNull(host(Fixtures.parse(pvOnly), policy).guestsHoldPmu(), "no HVM guest, no guest profiler");
        assertEquals("the counter-virtualization policy recording gives the guests the PMU: the profiler of domain 1"
                + " (domU-rcv) uses its virtual counters", host(defaultScenario(), policy).guestsHoldPmu(),
                "a PV guest running its own profiler holds the PMU through the policy: no HVM guest is named");
        String hvm = Fixtures.minimal("", "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes",
                "domain 3 hvm type=hvm vcpus=2 load=0.5\n"
                        + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xenU.map\n"
                        + "region k kernel vmlinux weight=1\nsymbol tcp_v4_rcv 1\n");
        SimHost host = host(Fixtures.parse(hvm), policy);
        assertTrue(host.hvm(3));
        assertEquals(2, host.vcpuCount(3));
        assertEquals("the counter-virtualization policy recording gives the guests the PMU: HVM guest domain 3 (hvm)"
                + " has a vPMU", host.guestsHoldPmu());
        policy.guestsSeePmu = false;
        assertNull(host.guestsHoldPmu());
    }

    @Test
    void theSessionClosesWhenTheHostStops() throws Exception {
        RecordingPolicy policy = new RecordingPolicy();
        SimHost host = host(defaultScenario(), policy);
        host.stop("test");
        host.stop("again");
        assertEquals(1, policy.closed);
        assertEquals("test", host.stopReason(), "the first reason counts");
    }

    // ------------------------------------------------------------------------------------- privilege

    private static final String MIXED = Fixtures.minimal("", "domain 0 pv type=pv vcpus=1 load=1 hardware=yes",
            "region u user rcv22 weight=1\nsymbol main 1\n"
                    + "region x hypervisor xen-syms weight=1\nsymbol do_mmu_update 1\n"
                    + "domain 3 hvm type=hvm vcpus=1 load=1\n"
                    + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xenU.map\n"
                    + "region k kernel vmlinux weight=1\nsymbol tcp_v4_rcv 1\n")
            .replace("cpu.count 1", "cpu.count 2");

    /** 20 ms of {@code scenario} on a host of {@code model}, whose PMUs record the cycles run at each CPL. */
    private static GroundTruth runAtEachCpl(CplRecordingModel model, String scenario) throws Exception {
        SimHost host = new SimHost(Fixtures.parse(scenario), model, "test.model", new RecordingPolicy(), "test.policy");
        host.run(20_000, null);
        return host.groundTruth();
    }

    @Test
    void xenRunsAtCpl0PvKernelsAt1UserCodeAt3AndHvmKernelsAtTheirOwn0() throws Exception {
        CplRecordingModel model = new CplRecordingModel("i386/p6");
        GroundTruth truth = runAtEachCpl(model, MIXED);
        double pvKernel = events(truth, 0, CpuMode.KERNEL, Signal.CYCLES);
        double hvmKernel = events(truth, 3, CpuMode.KERNEL, Signal.CYCLES);
        double user = events(truth, 0, CpuMode.USER, Signal.CYCLES) + events(truth, 3, CpuMode.USER, Signal.CYCLES);
        double xen = truth.rows().stream().filter(r -> r.mode() == CpuMode.HYPERVISOR)
                .mapToLong(r -> r.milli(Signal.CYCLES)).sum() / 1000.0;
        assertTrue(pvKernel > 0 && hvmKernel > 0 && user > 0 && xen > 0);
        assertEquals(pvKernel, model.unhaltedByCpl[1], 1e-6);
        assertEquals(user, model.unhaltedByCpl[3], 1e-6);
        assertEquals(xen + hvmKernel, model.unhaltedByCpl[0], 1e-6);
        assertEquals(0, model.unhaltedByCpl[2]);
    }

    @Test
    void pvKernelsOfA64BitHostRunAtCpl3() throws Exception {
        CplRecordingModel model = new CplRecordingModel("x86-64/hammer");
        GroundTruth truth = runAtEachCpl(model, MIXED);
        double pvKernel = events(truth, 0, CpuMode.KERNEL, Signal.CYCLES);
        double user = events(truth, 0, CpuMode.USER, Signal.CYCLES);
        assertEquals(0, model.unhaltedByCpl[1]);
        assertEquals(pvKernel + user, model.unhaltedByCpl[3], 1e-6);
    }

    @Test
    void theScenarioMaySetThePvKernelCpl() throws Exception {
        CplRecordingModel model = new CplRecordingModel("x86-64/hammer");
        GroundTruth truth = runAtEachCpl(model, MIXED.replace("seed 7\n", "seed 7\npv.kernel.cpl 1\n"));
        assertEquals(events(truth, 0, CpuMode.KERNEL, Signal.CYCLES), model.unhaltedByCpl[1], 1e-6);
    }
}
