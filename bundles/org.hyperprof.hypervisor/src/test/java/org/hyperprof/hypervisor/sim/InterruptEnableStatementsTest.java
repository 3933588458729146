package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.minimal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.hypervisor.sim.scenario.PostponedHandling;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.SymbolRef;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;
import org.junit.jupiter.api.Test;

/**
 * The scenario statements of MSR[EE] gating: {@code ee.off} (hypervisor functions that run with
 * external interrupts disabled), the {@code ee=0|1} attribute of regions and symbols,
 * {@code poll.points}, and {@code host.option ppc.postponed=...}.
 */
class InterruptEnableStatementsTest {
    private static final String DOM = "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes";
    private static final String XEN_REGION = "region x hypervisor xen-syms weight=1\n"
            + "symbol do_mmu_update 1\n"
            + "symbol hypercall 1\n";

    /** Whether each workload symbol of the scenario's first domain runs with EE=1, by function name. */
    private static Map<String, Boolean> ee(Scenario s) {
        Map<String, Boolean> out = new HashMap<>();
        for (RegionSpec r : s.domains().get(0).regions()) {
            for (WeightedSymbol w : r.symbols()) {
                out.put(w.symbol().name(), w.interruptsEnabled());
            }
        }
        return out;
    }

    @Test
    void codeRunsWithInterruptsEnabledUnlessMarked() throws Exception {
        Scenario s = Fixtures.parse(minimal("", DOM, XEN_REGION));
        assertEquals(Map.of("tcp_v4_rcv", true, "do_mmu_update", true, "hypercall", true), ee(s));
        assertTrue(s.interruptsOff().isEmpty());
        assertTrue(s.pollPoints().isEmpty());
        assertEquals(PostponedHandling.IGNORE, s.postponedHandling(), "Xen-PPC's own behaviour is the default");
    }

    @Test
    void eeOffMarksHypervisorFunctionsWhereverAWorkloadRunsThem() throws Exception {
        Scenario s = Fixtures.parse(minimal("ee.off hypercall restore_all_guest\nee.off nmi\n", DOM, XEN_REGION));
        assertEquals(List.of("hypercall", "restore_all_guest", "nmi"),
                s.interruptsOff().stream().map(SymbolRef::name).toList());
        assertTrue(s.interruptsOff().stream().allMatch(f -> f.image() == s.hypervisor()));
        assertFalse(ee(s).get("hypercall"));
        assertTrue(ee(s).get("do_mmu_update"));
    }

    @Test
    void aRegionsEeAttributeMarksItsSymbolsAndASymbolsOwnAttributeWins() throws Exception {
        Scenario s = Fixtures.parse(minimal("ee.off do_mmu_update\n", DOM, "region x hypervisor xen-syms weight=1 ee=0\n"
                + "symbol hypercall 1\n"
                + "symbol test_all_events 1 ee=1\n"
                + "region y hypervisor xen-syms weight=1\n"
                + "symbol do_mmu_update 1 ee=1 INSTRUCTIONS=300\n"
                + "symbol context_switch 1\n"
                + "region u kernel vmlinux weight=1 ee=0\n"
                + "symbol tcp_v4_rcv 1\n"));
        Map<String, Boolean> ee = ee(s);
        assertFalse(ee.get("hypercall"), "the region's ee=0");
        assertTrue(ee.get("test_all_events"), "the symbol's ee=1 over its region's ee=0");
        assertTrue(ee.get("do_mmu_update"), "the symbol's ee=1 over the host's ee.off");
        assertTrue(ee.get("context_switch"));
        assertFalse(ee.get("tcp_v4_rcv"), "guest kernel code can run with EE=0 too (interrupt handlers)");
        WeightedSymbol withRate = s.domains().get(0).regions().get(2).symbols().get(0);
        assertEquals(300, withRate.rates()[org.hyperprof.api.pmu.Signal.INSTRUCTIONS.ordinal()],
                "rates still follow ee=");
    }

    @Test
    void pollPointsAndHostOptionsAreRead() throws Exception {
        Scenario s = Fixtures.parse(minimal("poll.points restore_all_guest context_switch\n"
                + "host.option ppc.postponed=poll\n", DOM, ""));
        assertEquals(List.of("restore_all_guest", "context_switch"),
                s.pollPoints().stream().map(SymbolRef::name).toList());
        assertEquals(PostponedHandling.POLL, s.postponedHandling());
        assertEquals(Map.of("ppc.postponed", "poll"), s.hostOptions());
    }

    @Test
    void aLoadOverridesTheScenariosHostOptions() throws Exception {
        Scenario s = Fixtures.parse(minimal("host.option ppc.postponed=poll\n", DOM, ""));
        assertEquals(PostponedHandling.OWNER, s.withOptions(Map.of("ppc.postponed", "owner"), null)
                .postponedHandling());
        assertEquals(PostponedHandling.POLL, s.withOptions(null, null).postponedHandling());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> s.withOptions(Map.of("ppc.postpone", "owner"), null));
        assertTrue(e.getMessage().contains("unknown host option 'ppc.postpone'"), e.getMessage());
        assertTrue(e.getMessage().contains("ppc.postponed (ignore|owner|poll"), e.getMessage());
    }

    private static void refused(String host, String extra, String... fragments) {
        ScenarioException e = assertThrows(ScenarioException.class, () -> Fixtures.parse(minimal(host, DOM, extra)));
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), "'" + f + "' in: " + e.getMessage());
        }
    }

    @Test
    void anEeOffOrPollFunctionTheHypervisorLacksIsAnErrorAtItsLine() {
        refused("ee.off hypercall no_such_fn\n", "", "test.scenario:6:", "no function 'no_such_fn'", "xen-syms");
        // A kernel function is no poll point: poll points are the hypervisor's.
        refused("poll.points tcp_v4_rcv\n", "", "test.scenario:6:", "image 'xen-syms' has no function 'tcp_v4_rcv'");
    }

    @Test
    void aFunctionListedTwiceOrAnEmptyListIsRefused() {
        refused("ee.off hypercall\nee.off nmi hypercall\n", "", "test.scenario:7:", "names 'hypercall' twice",
                "first on line 6");
        refused("poll.points\n", "", "expected 'poll.points <hypervisor function> ...'");
    }

    @Test
    void eeTakesZeroOrOne() {
        refused("", "region x hypervisor xen-syms weight=1 ee=yes\nsymbol hypercall 1\n", "ee=yes is not 0 or 1");
        refused("", "region x hypervisor xen-syms weight=1\nsymbol hypercall 1 ee=2\n", "ee=2 is not 0 or 1");
    }

    @Test
    void anUnknownHostOptionOrValueIsAnErrorListingWhatIsKnown() {
        refused("host.option ppc.postpned=owner\n", "", "test.scenario:6:", "unknown host option 'ppc.postpned'",
                "ppc.postponed");
        refused("host.option ppc.postponed=later\n", "", "ppc.postponed=later is not a way",
                "ignore", "owner", "poll");
        refused("host.option ppc.postponed=owner\nhost.option ppc.postponed=poll\n", "",
                "host.option ppc.postponed is given twice");
    }

    @Test
    void theNewStatementsAreHostStatements() {
        refused("", "ee.off hypercall\n", "'ee.off' is a host statement");
        refused("", "host.option ppc.postponed=owner\n", "'host.option' is a host statement");
    }
}
