package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.hypervisor.sim.scenario.CallSite;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.junit.jupiter.api.Test;

/** {@code callsite} lines: their grammar, and truth B booking a hypercall's work to the function that made it. */
class CallSiteTest {

    /**
     * A domain whose kernel runs tcp_v4_rcv and net_rx_action (the call sites name other functions,
     * so whatever they are booked is what the call sites gave them), and hypervisor work under three
     * handlers: memory_op, event_channel_op and a multicall whose mmu_update chain stops short of the
     * handler (get_page_type), plus the hypercall entry, which no call site can claim.
     */
    private static String scenario(String callSites) {
        return "scenario mini\n"
                + "cpu.type i386/p6\n"
                + "cpu.mhz 1000\n"
                + "cpu.count 1\n"
                + "seed 7\n"
                + "cost.halt default_idle\n"
                + "hypervisor xen-syms 0xff100000-0xff12a000 symbols/xen-syms-3.0.map\n"
                + "domain 0 d0 type=pv vcpus=1 load=0.9 hardware=yes\n"
                + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xen0.map\n"
                + "module e1000 0xd0858000-0xd085d000 symbols/e1000.kallsyms\n"
                + "process rcv22 0x08048000-0x08049000 symbols/rcv22.map\n"
                + "region k kernel vmlinux weight=6\n"
                + "symbol tcp_v4_rcv 8\n"
                + "symbol net_rx_action 2\n"
                + "region x hypervisor xen-syms weight=4\n"
                + "symbol alloc_domheap_pages<increase_reservation<do_memory_op<hypercall 2\n"
                + "symbol do_memory_op<hypercall 1\n"
                + "symbol evtchn_set_pending<evtchn_send<do_event_channel_op<hypercall 2\n"
                + "symbol get_page_type<get_page_from_l1e<mod_l1_entry 2\n"
                + "symbol mod_l1_entry<do_mmu_update<do_multicall<hypercall 1\n"
                + "symbol do_multicall<hypercall 1\n"
                + "symbol hypercall 1\n"
                + callSites;
    }

    private static final String SOURCE = " source=drivers/xen/netback/netback.c:net_rx_action";

    // ------------------------------------------------------------------------------------- grammar

    @Test
    void aCallSiteNamesAGuestFunctionAHandlerAWeightAndASource() throws Exception {
        Scenario s = Fixtures.parse(scenario("callsite alloc_mfn do_memory_op source=drivers/xen/netback/netback.c:alloc_mfn\n"
                + "callsite e1000:e1000_xmit_frame do_event_channel_op weight=2.5" + SOURCE + "\n"));
        List<CallSite> sites = s.domains().get(0).callSites();
        assertEquals(2, sites.size());
        assertEquals("alloc_mfn", sites.get(0).guestFunction().name());
        assertEquals("do_memory_op", sites.get(0).handler().name());
        assertEquals(1_000_000, sites.get(0).weight(), "the weight is 1 unless given");
        assertEquals("drivers/xen/netback/netback.c:alloc_mfn", sites.get(0).source());
        assertEquals(23, sites.get(0).line(), "the line after the 22 of the scenario");
        assertEquals("e1000", sites.get(1).guestFunction().image().name(), "<module>:<function> names a module's");
        assertEquals(2_500_000, sites.get(1).weight());
    }

    @Test
    void aDomainWithoutCallSitesHasNone() throws Exception {
        for (DomainSpec d : Fixtures.parse(scenario("")).domains()) {
            assertTrue(d.callSites().isEmpty());
        }
    }

    @Test
    void aCallSiteWithoutItsSourceIsRefused() {
        assertEquals("test.scenario:23: missing source=...; expected 'callsite <guest function> <hypercall handler>"
                + " [weight=<w>] source=<file>:<function>'",
                Fixtures.parseError(scenario("callsite alloc_mfn do_memory_op weight=1\n")));
    }

    @Test
    void aSourceMustSayFileAndFunction() {
        String m = Fixtures.parseError(scenario("callsite alloc_mfn do_memory_op source=netback.c\n"));
        assertTrue(m.startsWith("test.scenario:23: source=netback.c is not <file>:<function>"), m);
    }

    @Test
    void aLineWithTooFewWordsShowsTheGrammarAndAnExample() {
        String m = Fixtures.parseError(scenario("callsite alloc_mfn do_memory_op\n"));
        assertTrue(m.startsWith("test.scenario:23: expected 'callsite <guest function> <hypercall handler>"), m);
        assertTrue(m.contains("e.g. 'callsite network_start_xmit do_event_channel_op"), m);
    }

    @Test
    void userCodeMakesNoHypercalls() {
        String m = Fixtures.parseError(scenario("callsite rcv22:main do_memory_op" + SOURCE + "\n"));
        assertTrue(m.startsWith("test.scenario:23: 'rcv22:main' is user code; hypercalls are made by the guest's"
                + " kernel or its modules"), m);
    }

    @Test
    void theGuestFunctionMustBeInItsImage() {
        String m = Fixtures.parseError(scenario("callsite no_such_fn do_memory_op" + SOURCE + "\n"));
        assertTrue(m.startsWith("test.scenario:23: image 'vmlinux' has no function 'no_such_fn'"), m);
    }

    @Test
    void theHandlerMustBeAFunctionOfTheHypervisor() {
        String m = Fixtures.parseError(scenario("callsite alloc_mfn do_no_such_op" + SOURCE + "\n"));
        assertTrue(m.startsWith("test.scenario:23: image 'xen-syms' has no function 'do_no_such_op'"), m);
    }

    @Test
    void aHandlerTheDomainsHypervisorWorkNeverRunsUnderIsRefusedWithTheOnesItDoes() {
        String m = Fixtures.parseError(scenario("callsite alloc_mfn do_grant_table_op" + SOURCE + "\n"));
        assertEquals("test.scenario:23: no hypervisor work of domain 0 runs in or below 'do_grant_table_op' (no"
                + " caller chain of its hypervisor regions names it), so the call site would get nothing; name a"
                + " handler its regions show, e.g. one of [do_event_channel_op, do_memory_op, do_mmu_update,"
                + " do_multicall]", m);
    }

    @Test
    void theSameCallSiteTwiceIsRefused() {
        String m = Fixtures.parseError(scenario("callsite alloc_mfn do_memory_op" + SOURCE + "\n"
                + "callsite alloc_mfn do_memory_op weight=2" + SOURCE + "\n"));
        assertEquals("test.scenario:24: call site alloc_mfn -> do_memory_op is given twice in domain 0 (first on"
                + " line 23)", m);
    }

    @Test
    void weightsAreRelativeAndPositive() {
        String m = Fixtures.parseError(scenario("callsite alloc_mfn do_memory_op weight=0" + SOURCE + "\n"));
        assertEquals("test.scenario:23: call site weight 0 must be above 0", m);
        m = Fixtures.parseError(scenario("callsite alloc_mfn do_memory_op weight=1 colour=red" + SOURCE + "\n"));
        assertTrue(m.startsWith("test.scenario:23: unknown attribute 'colour'"), m);
    }

    @Test
    void aCallSiteBelongsToADomain() {
        String m = Fixtures.parseError("scenario mini\ncpu.type i386/p6\ncost.halt default_idle\n"
                + "hypervisor xen-syms 0xff100000-0xff12a000 symbols/xen-syms-3.0.map\n"
                + "callsite alloc_mfn do_memory_op" + SOURCE + "\n");
        assertTrue(m.startsWith("test.scenario:5: 'callsite' belongs to a domain"), m);
    }

    // --------------------------------------------------------------------------------------- truth B

    /** Hypervisor cycles of domain 0 per hypervisor function, and on-behalf cycles per guest function. */
    private record Books(Map<String, Long> hypervisor, Map<String, Long> onBehalf) {
        long hypervisor(Set<String> functions) {
            return functions.stream().mapToLong(f -> hypervisor.getOrDefault(f, 0L)).sum();
        }

        long onBehalf(String function) {
            return onBehalf.getOrDefault(function, 0L);
        }

        long allHypervisor() {
            return hypervisor.values().stream().mapToLong(Long::longValue).sum();
        }

        long allOnBehalf() {
            return onBehalf.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static Books run(String callSites) throws Exception {
        SimHost host = Fixtures.host(scenario(callSites));
        host.run(100_000, null);
        GroundTruth truth = host.groundTruth();
        Map<String, Long> hypervisor = new HashMap<>();
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == 0 && r.mode() == CpuMode.HYPERVISOR) {
                hypervisor.merge(r.symbol(), r.milli(Signal.CYCLES), Long::sum);
            }
        }
        Map<String, Long> onBehalf = new HashMap<>();
        for (GroundTruth.Row r : truth.onBehalf()) {
            if (r.domid() == 0) {
                onBehalf.merge(r.symbol(), r.milli(Signal.CYCLES), Long::sum);
            }
        }
        return new Books(hypervisor, onBehalf);
    }

    private static final Set<String> MEMORY_OP = Set.of("do_memory_op", "alloc_domheap_pages");
    private static final Set<String> EVENT_CHANNEL_OP = Set.of("evtchn_set_pending");
    private static final Set<String> MMU_UPDATE = Set.of("mod_l1_entry", "get_page_type");

    @Test
    void twoFunctionsMakingDifferentHypercallsEachGetTheirOwnHypercallsWork() throws Exception {
        Books b = run("callsite alloc_mfn do_memory_op" + SOURCE + "\n"
                + "callsite make_tx_response do_event_channel_op" + SOURCE + "\n");
        long memory = b.hypervisor(MEMORY_OP);
        long events = b.hypervisor(EVENT_CHANNEL_OP);
        assertTrue(memory > 0 && events > 0);
        assertEquals(memory, b.onBehalf("alloc_mfn"), "all of memory_op's work and nothing else");
        assertEquals(events, b.onBehalf("make_tx_response"), "all of event_channel_op's work and nothing else");
        // Without the call sites the same work follows whichever function ran last.
        Books before = run("");
        assertEquals(0, before.onBehalf("alloc_mfn"));
        assertEquals(before.onBehalf("tcp_v4_rcv") + before.onBehalf("net_rx_action"),
                b.onBehalf("tcp_v4_rcv") + b.onBehalf("net_rx_action") + memory + events);
        assertEquals(before.allOnBehalf(), b.allOnBehalf(), "the work is moved between functions, not made");
        assertEquals(before.hypervisor(), b.hypervisor(), "what ran is the same: truth A does not change");
    }

    @Test
    void workNoCallSiteClaimsKeepsGoingToTheFunctionThatEnteredTheHypervisor() throws Exception {
        Books b = run("callsite alloc_mfn do_memory_op" + SOURCE + "\n");
        long claimed = b.hypervisor(MEMORY_OP);
        assertEquals(claimed, b.onBehalf("alloc_mfn"));
        // The rest (the hypercall entry, the other handlers, the context switch) goes where it went.
        long rest = b.onBehalf("tcp_v4_rcv") + b.onBehalf("net_rx_action");
        assertTrue(b.hypervisor(EVENT_CHANNEL_OP) + b.hypervisor(Set.of("hypercall")) < rest);
        assertTrue(b.onBehalf("tcp_v4_rcv") > b.onBehalf("net_rx_action"), "tcp_v4_rcv runs four times as much");
        assertTrue(claimed + rest >= b.allHypervisor() * 99 / 100);
        assertEquals(b.allOnBehalf(), claimed + rest);
    }

    @Test
    void severalFunctionsMakingTheSameHypercallShareItsWorkByWeight() throws Exception {
        Books b = run("callsite alloc_mfn do_memory_op weight=3" + SOURCE + "\n"
                + "callsite make_tx_response do_memory_op weight=1" + SOURCE + "\n");
        long memory = b.hypervisor(MEMORY_OP);
        long a = b.onBehalf("alloc_mfn");
        long m = b.onBehalf("make_tx_response");
        assertEquals(memory, a + m, "every cycle of the hypercall is booked once");
        assertEquals(3.0, (double) a / m, 0.01);
    }

    @Test
    void theNearestNamedHandlerWinsAndAChainThatStopsShortIsCompletedByAnother() throws Exception {
        Books b = run("callsite alloc_mfn do_mmu_update" + SOURCE + "\n"
                + "callsite make_tx_response do_multicall" + SOURCE + "\n");
        // get_page_type<get_page_from_l1e<mod_l1_entry never names a handler; mod_l1_entry's own chain does.
        assertEquals(b.hypervisor(MMU_UPDATE), b.onBehalf("alloc_mfn"), "mmu_update's work, inside the multicall");
        assertEquals(b.hypervisor(Set.of("do_multicall")), b.onBehalf("make_tx_response"),
                "the multicall's own work");
    }

    @Test
    void readingTheTruthTwiceGivesTheSameAndAResetForgetsTheHypercallsWorkToo() throws Exception {
        SimHost host = Fixtures.host(scenario("callsite alloc_mfn do_memory_op weight=3" + SOURCE + "\n"
                + "callsite make_tx_response do_memory_op weight=1" + SOURCE + "\n"));
        host.run(20_000, null);
        Map<String, Long> first = onBehalfCycles(host.groundTruth());
        assertEquals(first, onBehalfCycles(host.groundTruth()));
        assertTrue(first.get("alloc_mfn") > 0);
        host.resetGroundTruth();
        assertTrue(host.groundTruth().onBehalf().isEmpty());
        host.run(20_000, null);
        assertTrue(host.groundTruth().onBehalf().stream().anyMatch(r -> r.symbol().equals("alloc_mfn")),
                "what ran after the reset is booked");
    }

    private static Map<String, Long> onBehalfCycles(GroundTruth truth) {
        Map<String, Long> out = new HashMap<>();
        for (GroundTruth.Row r : truth.onBehalf()) {
            out.merge(r.symbol(), r.milli(Signal.CYCLES), Long::sum);
        }
        return out;
    }

    // ------------------------------------------------------------------------------ shipped scenarios

    /** The domU's hypercall work in the default scenario: every function under a handler its call sites name. */
    private static final Set<String> DOMU_CLAIMED = Set.of("mod_l1_entry", "get_page_from_l1e", "put_page_from_l1e",
            "do_mmu_update", "get_page_type", "put_page_type", "do_update_va_mapping", "do_mmuext_op", "do_multicall",
            "__copy_from_user_ll", "evtchn_send", "evtchn_set_pending", "decrease_reservation", "guest_remove_page",
            "do_memory_op", "free_domheap_pages", "find_domain_by_id", "__flush_tlb_mask");

    @Test
    void inTheDefaultScenarioTheDomUsNetfrontGetsTheXenWorkItAskedFor() throws Exception {
        SimHost host = Fixtures.defaultHost();
        host.run(50_000, null);
        GroundTruth truth = host.groundTruth();
        long hypervisor = 0;
        long claimed = 0;
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == 1 && r.mode() == CpuMode.HYPERVISOR) {
                hypervisor += r.milli(Signal.CYCLES);
                claimed += DOMU_CLAIMED.contains(r.symbol()) ? r.milli(Signal.CYCLES) : 0;
            }
        }
        Map<String, Long> onBehalf = new HashMap<>();
        for (GroundTruth.Row r : truth.onBehalf()) {
            if (r.domid() == 1) {
                onBehalf.merge(r.symbol(), r.milli(Signal.CYCLES), Long::sum);
            }
        }
        long netfront = onBehalf.getOrDefault("netif_poll", 0L) + onBehalf.getOrDefault("network_alloc_rx_buffers", 0L)
                + onBehalf.getOrDefault("network_start_xmit", 0L);
        assertTrue(claimed > hypervisor * 3 / 4, "most of the domU's Xen work is its hypercalls: " + claimed + " of "
                + hypervisor);
        assertTrue(netfront >= claimed, "netfront asked for all of it (and entered Xen for some other work too)");
        assertTrue(onBehalf.getOrDefault("__copy_to_user_ll", 0L) <= hypervisor - claimed,
                "the copy to user space, the domU's busiest function, gets only work no call site claims");
    }

    @Test
    void everyShippedScenarioSaysWhoMakesItsHypercallsAndWhereInTheSource() throws Exception {
        HostServiceImpl service = Fixtures.everyModel();
        for (String name : service.scenarios()) {
            Scenario scenario = ((SimHost) service.load(name, null)).scenario();
            long sites = 0;
            for (DomainSpec d : scenario.domains()) {
                for (CallSite c : d.callSites()) {
                    sites++;
                    assertTrue(c.source().matches("[a-z0-9_/.-]+\\.[cS]:[A-Za-z_][A-Za-z0-9_]*"),
                            name + " line " + c.line() + ": " + c.source());
                }
            }
            assertTrue(sites >= 3, name + " has " + sites + " call sites");
        }
    }
}
