package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.pmu.ppc970.Ppc970PmuModel;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;

/**
 * What the engine tells a PMU besides counting: the program counter of the code it is about to run
 * (so a model can latch SIAR or an IBS address), and the end of each interrupt handler (rfid: the
 * 970 restores MSR[PMM] there).
 */
class PmuHooksTest {

    private static boolean inSomeImage(Scenario s, long pc) {
        if (Long.compareUnsigned(pc, s.hypervisor().start()) >= 0 && Long.compareUnsigned(pc, s.hypervisor().end()) < 0) {
            return true;
        }
        for (DomainSpec d : s.domains()) {
            for (ImageSpec i : d.images()) {
                if (Long.compareUnsigned(pc, i.start()) >= 0 && Long.compareUnsigned(pc, i.end()) < 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A host of {@code scenario} on {@code model} (of bundle {@code modelBundle}) under the system-wide policy. */
    private static SimHost host(Scenario scenario, HookRecordingModel model, String modelBundle)
            throws ScenarioException {
        return new SimHost(scenario, model, modelBundle, new SystemWidePolicy(), Fixtures.SYSTEMWIDE_BUNDLE);
    }

    @Test
    void everyStretchOfCodeIsPrecededByItsProgramCounter() throws Exception {
        HookRecordingModel model = new HookRecordingModel(new P6PmuModel());
        Scenario scenario = Fixtures.service().parse(HostService.DEFAULT_SCENARIO);
        Fixtures.profile(host(scenario, model, "p6"), 100_000, true, true, 20_000);
        assertTrue(model.count("advance") > 1000, "the engine ran: " + model.count("advance"));
        assertEquals(0, model.advancesWithoutPc, "every advance came after setProgramCounter");
        for (long pc : model.pcs) {
            assertTrue(inSomeImage(scenario, pc), "0x" + Long.toHexString(pc) + " lies in no image of the host");
        }
    }

    @Test
    void everyInterruptHandlerEndsWithAReturnFromInterrupt() throws Exception {
        HookRecordingModel model = new HookRecordingModel(new P6PmuModel());
        SimHost host = host(Fixtures.service().parse(HostService.DEFAULT_SCENARIO), model, "p6");
        Fixtures.profile(host, 50_000, true, true, 20_000);
        long acks = model.count("ack");
        long rfis = model.count("rfi");
        assertTrue(acks > 500, "interrupts were taken: " + acks);
        assertTrue(rfis == acks || rfis == acks - 1, "one rfi per handler (the last may still run): " + acks
                + " interrupts, " + rfis + " returns");
        // In order: no return before its interrupt, none twice.
        int open = 0;
        for (String call : model.calls) {
            if (call.equals("ack")) {
                open++;
            } else if (call.equals("rfi")) {
                open--;
                assertTrue(open >= 0, "a return from interrupt without an interrupt");
            }
        }
    }

    @Test
    void withoutHandlerCostTheReturnFollowsTheInterruptAtOnce() throws Exception {
        HookRecordingModel model = new HookRecordingModel(new P6PmuModel());
        SimHost host = host(Fixtures.parse(Fixtures.minimal("", "domain 0 d type=pv vcpus=1 load=1 hardware=yes", "")),
                model, "p6");
        Fixtures.profile(host, 10_000, true, true, 1_000);
        // One overflow every 10000 cycles; the 100th comes with the run's last cycle and waits for the next run.
        assertEquals(99, model.count("ack"));
        assertEquals(99, model.count("rfi"));
        for (int i = 0; i < model.calls.size(); i++) {
            if (model.calls.get(i).equals("ack")) {
                assertEquals("rfi", model.calls.get(i + 1), "call " + i);
            }
        }
    }

    @Test
    void aHandlerRunAtAPollPointIsNoInterruptAndEndsWithoutReturn() throws Exception {
        HookRecordingModel model = new HookRecordingModel(new Ppc970PmuModel());
        String text = "scenario poll-hooks\ncpu.type ppc64/970\ncpu.mhz 1000\ncpu.count 1\nsim.quantum.us 1\n"
                + "slice.cycles 1000 1000\ncost.halt cpu_sleep\ncost.nmi 500 do_perfmon=1\nee.off fast_resume\n"
                + "poll.points fast_resume\nhost.option ppc.postponed=poll\n"
                + "hypervisor xen-syms-ppc 0x0000000000400000-0x0000000000480000 symbols/xen-syms-ppc-3.1.map\n"
                + "domain 0 Domain-0 type=pv vcpus=1 load=1 hardware=yes\n"
                + "kernel vmlinux 0xc000000000000000-0xc000000000800000 symbols/vmlinux-2.6.18-xen-ppc64.map\n"
                + "region k kernel vmlinux weight=1\nsymbol .schedule 1\n";
        SimHost host = host(Fixtures.parse(text), model, "ppc970");
        Fixtures.Sampled sampled = Fixtures.startProfiling(host, Fixtures.defaultEvent(host.model(), 10_000));
        host.run(5, null);
        host.chargeHypervisor(0, 8_000, "fast_resume");
        host.run(10, null);
        Fixtures.stopProfiling(host, sampled);
        Map<String, Long> c = host.counters();
        assertEquals(1L, c.get("interrupts.polled"));
        assertEquals(0, model.count("ack"));
        assertEquals(0, model.count("rfi"));
        assertEquals(List.of(2L), sampled.mainSamples(0, false).stream().map(e -> e[1]).toList());
    }
}
