package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.xenoprof.XenoprofCore;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.pmu.ppc970.Ppc970PmuModel;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;

/**
 * The PowerPC 970's perfmon exception becomes an interrupt only while MSR[EE]=1 (pmu-facts 6.5),
 * so an alert that latches in EE=0 code waits; the host handles it as {@code ppc.postponed} says
 * (seed 004: ignore, pass to the owner, poll). A one-CPU host at 1000 MHz runs one guest kernel
 * function in fixed slices; the test inserts an EE=0 stretch of hypervisor work at a chosen moment
 * (a policy charge), so every figure is exact: PMC2 counts cycles from 0x80000000 - 10000, turns
 * negative after 10000 cycles (at t = 10000 when the stretch starts at t = 5000), and FCECE freezes
 * the PMCs until the handler runs.
 */
class PostponedInterruptTest {
    private static final String SCENARIO = "scenario ee-gating\n"
            + "cpu.type ppc64/970\n"
            + "cpu.mhz 1000\n"
            + "cpu.count 1\n"
            + "seed 3\n"
            + "sim.quantum.us 1\n"
            + "slice.cycles 1000 1000\n"
            + "cost.halt cpu_sleep\n"
            + "ee.off do_hcall ex_hcall_continued fast_resume\n"
            + "poll.points fast_resume\n"
            + "hypervisor xen-syms-ppc 0x0000000000400000-0x0000000000480000 symbols/xen-syms-ppc-3.1.map\n"
            + "domain 0 Domain-0 type=pv vcpus=1 load=1 hardware=yes\n"
            + "kernel vmlinux 0xc000000000000000-0xc000000000800000 symbols/vmlinux-2.6.18-xen-ppc64.map\n"
            + "region k kernel vmlinux weight=1\n"
            + "symbol .schedule 1\n";
    private static final long PERIOD = 10_000;

    private static SimHost host(String postponed, Map<String, String> pmuOptions, PmuModel model)
            throws ScenarioException {
        Scenario s = Fixtures.parse(SCENARIO).withOptions(Map.of("ppc.postponed", postponed), pmuOptions);
        return new SimHost(s, model, "model", new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
    }

    private static SimHost ppc(String postponed) throws ScenarioException {
        return host(postponed, null, new Ppc970PmuModel());
    }

    /** Runs 5 us of guest kernel code, then {@code stretch} cycles of {@code function} on top, then 10 us more. */
    private static Fixtures.Sampled stretch(SimHost host, String function, long stretch) throws Exception {
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), PERIOD));
        host.run(5, null);
        assertEquals(5_000, host.cycles());
        host.chargeHypervisor(0, stretch, function);
        host.run(10, null);
        Fixtures.stopProfiling(host, sampled);
        return sampled;
    }

    private static long c(SimHost host, String key) {
        Long v = host.counters().get(key);
        assertTrue(v != null, "no counter " + key + " in " + host.counters().keySet());
        return v;
    }

    private static boolean inFunction(SimHost host, String function, long pc) {
        ImageSpec xen = host.scenario().hypervisor();
        int i = xen.symbols().indexOf(function);
        long start = xen.runtimeStart(i);
        return pc >= start && pc < start + xen.symbols().length(i);
    }

    /** The PC of the one sample domain 0 logged, after checking there is exactly one, logged in {@code mode}. */
    private static long onlySamplePc(Fixtures.Sampled sampled, int mode, String whyThatMode) {
        List<long[]> samples = sampled.mainSamples(0, false);
        assertEquals(1, samples.size());
        assertEquals(mode, samples.get(0)[1], whyThatMode);
        return samples.get(0)[0];
    }

    private static long onlySamplePc(Fixtures.Sampled sampled, int mode) {
        return onlySamplePc(sampled, mode, "the sample's mode");
    }

    @Test
    void ignoreDropsThePostponedSampleButTheHandlerStillReArmsTheCounter() throws Exception {
        SimHost host = ppc("ignore");
        Fixtures.Sampled sampled = stretch(host, "do_hcall", 8_000);
        assertEquals(1, c(host, "interrupts.postponed.mode.ignore"));
        assertEquals(1, c(host, "interrupts.taken"), "taken at t=13000, when the EE=0 stretch ended");
        assertEquals(1, c(host, "interrupts.postponed"));
        assertEquals(1, c(host, "interrupts.postponed.dropped"));
        assertEquals(1, c(host, "samples.postponed.dropped"));
        assertEquals(1, c(host, "interrupts.lost"));
        assertEquals(0, c(host, "interrupts.misattributed"));
        assertEquals(3_000, c(host, "interrupts.postponed.delay.cycles"));
        assertEquals(3_000, c(host, "interrupts.postponed.delay.max"));
        assertEquals(0, sampled.total, "no sample reached a buffer");
        assertEquals(0, host.xenoprof().statistics().totalSamples(), "never reached xenoprof_log_event");
    }

    @Test
    void theDroppingHandlerReArmsThePmcAndReEnablesTheAlert() throws Exception {
        SimHost host = ppc("ignore");
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), PERIOD));
        host.run(5, null);
        host.chargeHypervisor(0, 8_000, "do_hcall");
        host.run(20, null); // re-armed at t=13000, the next alert latches at 23000 in EE=1 guest code
        Fixtures.stopProfiling(host, sampled);
        assertEquals(2, c(host, "interrupts.taken"));
        assertEquals(1, c(host, "interrupts.postponed"), "the second alert latched with EE=1: taken at once");
        assertEquals(1, sampled.total);
        assertEquals(XenoprofCore.MODE_KERNEL, sampled.mainSamples(0, false).get(0)[1]);
    }

    @Test
    void ownerGivesTheSampleToTheVcpuThatRanAtTheAlertInTheModeMmcraLatchedAtSiar() throws Exception {
        SimHost host = ppc("owner");
        Fixtures.Sampled sampled = stretch(host, "do_hcall", 8_000);
        assertEquals(1, c(host, "interrupts.postponed"));
        assertEquals(1, c(host, "interrupts.postponed.reattributed"));
        assertEquals(0, c(host, "interrupts.postponed.dropped"));
        assertEquals(0, c(host, "interrupts.lost"));
        assertEquals(0, c(host, "interrupts.misattributed"));
        assertEquals(3_000, c(host, "interrupts.postponed.delay.cycles"));
        long pc = onlySamplePc(sampled, XenoprofCore.MODE_XEN, "MMCRA's sampled HV bit: hypervisor state");
        assertTrue(inFunction(host, "do_hcall", pc), "the PC is SIAR, inside the EE=0 stretch: 0x"
                + Long.toHexString(pc));
    }

    /** The guest kernel runs only {@code ._switch}, with EE=0: its alerts wait for the hypervisor's EE=1 code. */
    private static SimHost ppcInKernelWithEeOff(String postponed) throws ScenarioException {
        Scenario s = Fixtures.parse(SCENARIO.replace("symbol .schedule 1\n", "symbol ._switch 1 ee=0\n"))
                .withOptions(Map.of("ppc.postponed", postponed), null);
        return new SimHost(s, new Ppc970PmuModel(), "model", new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
    }

    /** Runs 12 us of the guest's EE=0 kernel code (the alert latches at 10000), then {@code function} on top. */
    private static Fixtures.Sampled kernelAlertThen(SimHost host, String function) throws Exception {
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), PERIOD));
        host.run(12, null);
        host.chargeHypervisor(0, 1_000, function);
        host.run(3, null); // to t = 15000: the re-armed PMC2 turns negative again only at 23000 or later
        Fixtures.stopProfiling(host, sampled);
        return sampled;
    }

    /** Whether {@code pc} lies in {@code function} of dom0's kernel (addresses compared unsigned: 0xc000...). */
    private static boolean inKernelFunction(SimHost host, String function, long pc) {
        ImageSpec kernel = host.scenario().domains().get(0).images().get(0);
        int i = kernel.symbols().indexOf(function);
        long start = kernel.runtimeStart(i);
        return Long.compareUnsigned(pc, start) >= 0 && Long.compareUnsigned(pc, start + kernel.symbols().length(i)) < 0;
    }

    @Test
    void ownerLogsAKernelSiarAboveBit63AsThePcOfTheSampleNotTheInterruptedHypervisorCode() throws Exception {
        // SIAR holds 0xc000..., a 64-bit PowerPC kernel address: negative as a Java long, yet latched.
        SimHost host = ppcInKernelWithEeOff("owner");
        Fixtures.Sampled sampled = kernelAlertThen(host, "h_enter"); // EE=1 hypervisor code takes it at 12000
        assertEquals(1, c(host, "interrupts.taken"));
        assertEquals(1, c(host, "interrupts.postponed.reattributed"));
        assertEquals(2_000, c(host, "interrupts.postponed.delay.cycles"));
        assertEquals(0, c(host, "interrupts.misattributed"));
        long pc = onlySamplePc(sampled, XenoprofCore.MODE_KERNEL, "MMCRA's sampled bits: supervisor state");
        assertTrue(inKernelFunction(host, "._switch", pc), "the PC is SIAR, in the kernel's EE=0"
                + " code, not h_enter where the interrupt was taken: 0x" + Long.toHexString(pc));
    }

    @Test
    void pollLogsAKernelSiarAboveBit63AsThePcOfTheSampleNotThePollPoint() throws Exception {
        SimHost host = ppcInKernelWithEeOff("poll");
        Fixtures.Sampled sampled = kernelAlertThen(host, "fast_resume"); // polled when it ends, at 13000
        assertEquals(0, c(host, "interrupts.taken"));
        assertEquals(1, c(host, "interrupts.polled"));
        assertEquals(0, c(host, "interrupts.misattributed"));
        long pc = onlySamplePc(sampled, XenoprofCore.MODE_KERNEL);
        assertTrue(inKernelFunction(host, "._switch", pc), "the PC is SIAR, not fast_resume: 0x"
                + Long.toHexString(pc));
    }

    @Test
    void ownerWithTheWrongMmcraBitAssignmentMisattributesTheMode() throws Exception {
        // The part sets bit 35 for HV (as Linux and Xen-PPC read it); software reading XNU's assignment
        // takes bit 35 for PR: a hypervisor sample becomes a user one.
        SimHost host = host("owner", Map.of("mmcra.hvpr", "xnu", "mmcra.hvpr.hardware", "linux"),
                new Ppc970PmuModel());
        Fixtures.Sampled sampled = stretch(host, "do_hcall", 8_000);
        assertEquals(1, c(host, "interrupts.postponed.reattributed"));
        assertEquals(1, c(host, "interrupts.misattributed"));
        assertEquals(XenoprofCore.MODE_USER, sampled.mainSamples(0, false).get(0)[1]);
    }

    @Test
    void pollRunsTheHandlerAtTheEndOfAPollPointAndTakesNoInterrupt() throws Exception {
        SimHost host = ppc("poll");
        Fixtures.Sampled sampled = stretch(host, "fast_resume", 8_000);
        assertEquals(0, c(host, "interrupts.taken"), "the poll cleared PMAO before EE=1 code ran");
        assertEquals(1, c(host, "interrupts.polled"));
        assertEquals(1, c(host, "interrupts.postponed"));
        assertEquals(0, c(host, "interrupts.postponed.dropped"));
        assertEquals(0, c(host, "interrupts.lost"));
        assertEquals(0, c(host, "interrupts.misattributed"));
        assertEquals(3_000, c(host, "interrupts.postponed.delay.cycles"));
        long pc = onlySamplePc(sampled, XenoprofCore.MODE_XEN);
        assertTrue(inFunction(host, "fast_resume", pc));
    }

    @Test
    void pollDropsWhatNoPollCaughtAsIgnoreDoes() throws Exception {
        SimHost host = ppc("poll");
        Fixtures.Sampled sampled = stretch(host, "do_hcall", 8_000); // EE=0, but not a poll point
        assertEquals(0, c(host, "interrupts.polled"));
        assertEquals(1, c(host, "interrupts.taken"));
        assertEquals(1, c(host, "interrupts.postponed.dropped"));
        assertEquals(1, c(host, "interrupts.lost"));
        assertEquals(0, sampled.total);
    }

    @Test
    void anAlertInCodeWithEeSetIsTakenAtOnceAndNothingIsPostponed() throws Exception {
        SimHost host = ppc("ignore");
        Fixtures.Sampled sampled = stretch(host, "h_enter", 8_000); // hypervisor code with EE=1
        assertEquals(1, c(host, "interrupts.taken"));
        assertEquals(0, c(host, "interrupts.postponed"));
        assertEquals(0, c(host, "interrupts.postponed.delay.cycles"));
        long pc = onlySamplePc(sampled, XenoprofCore.MODE_XEN);
        assertTrue(inFunction(host, "h_enter", pc));
    }

    @Test
    void anAlertSoftwareClearsBeforeItIsTakenIsWithdrawnAndLost() throws Exception {
        SimHost host = ppc("owner");
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), PERIOD));
        host.run(5, null);
        host.chargeHypervisor(0, 20_000, "do_hcall");
        host.run(7, null); // t = 12000: latched at 10000, still in the EE=0 stretch
        Fixtures.ok(host.xenoprof(), 0, XenoprofOp.STOP, null);
        Fixtures.ok(host.xenoprof(), 0, XenoprofOp.START, null); // start clears MMCR0[PMAO]
        host.run(8, null); // to t = 20000: the re-armed PMC2 turns negative only at 22000
        Fixtures.stopProfiling(host, sampled);
        assertEquals(0, c(host, "interrupts.taken"));
        assertEquals(1, c(host, "interrupts.postponed"));
        assertEquals(1, c(host, "interrupts.postponed.withdrawn"));
        assertEquals(1, c(host, "interrupts.lost"));
        assertEquals(0, c(host, "interrupts.postponed.reattributed"));
        assertEquals(0, c(host, "interrupts.postponed.delay.cycles"), "no handler ran for it");
    }

    @Test
    void anNmiIgnoresMsrEeSoTheSameStretchPostponesNothingOnX86() throws Exception {
        SimHost host = host("ignore", Map.of(), new P6PmuModel());
        Fixtures.Sampled sampled = stretch(host, "do_hcall", 8_000);
        assertEquals(1, c(host, "interrupts.taken"));
        assertEquals(0, c(host, "interrupts.postponed"));
        assertEquals(XenoprofCore.MODE_XEN, sampled.mainSamples(0, false).get(0)[1], "taken inside the stretch");
        assertTrue(inFunction(host, "do_hcall", sampled.mainSamples(0, false).get(0)[0]));
    }
    @Test
    void anNmiBlockedBehindTheHandlerIsChargedToTheCodeItReturnsToAndCountsAsMisattributed() throws Exception {
        // A 7000-cycle NMI handler and a 6000-cycle period: the counter, re-armed as the handler starts,
        // overflows again inside it (Xen code); the NMI waits and is taken in the guest kernel code the
        // handler returns to, where Xenoprof charges it.
        SimHost host = Fixtures.host(Fixtures.minimal("sim.quantum.us 1\nslice.cycles 1000 1000\ncost.nmi 7000 nmi=1\n",
                "domain 0 d type=pv vcpus=1 load=1 hardware=yes", ""));
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, 6_000, true, true);
        host.run(26, null); // overflows at 6000 (guest), 12000 and 19000 (handler); taken at 6000, 13000, 20000
        Fixtures.stopProfiling(host, sampled);
        assertEquals(3, c(host, "interrupts.taken"));
        assertEquals(2, c(host, "interrupts.blocked"));
        assertEquals(2, c(host, "interrupts.misattributed"));
        assertEquals(0, c(host, "interrupts.postponed"), "an NMI is blocked, never postponed");
        assertEquals(List.of(1L, 1L, 1L), sampled.mainSamples(0, false).stream().map(e -> e[1]).toList(),
                "all three charged to the kernel");
    }
}
