package org.hyperprof.pmu.p6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;

/** Checking a user's events against the P6 table and placing them on counters. */
class P6AllocateTest {
    private final P6Fixture fixture = P6Fixture.create();

    private String rejection(String... specs) {
        return PmuFixtures.rejection(fixture.model, specs);
    }

    @Test
    void eventsGoToTheFirstFreeCounterTheyMayUseInOrder() throws EventSpecException {
        CounterConfig[] c = fixture.configs("CPU_CLK_UNHALTED:100000", "INST_RETIRED:6000:0:0:1");
        assertEquals(0, c[0].counter());
        assertEquals(1, c[1].counter());
        assertEquals("INST_RETIRED", c[1].event().name());
        assertEquals(6000, c[1].count());
        assertFalse(c[1].kernel());
        assertTrue(c[1].user());
    }

    /** The counter each event is placed on, in the order given. */
    private List<Integer> counters(String... specs) throws EventSpecException {
        return Arrays.stream(fixture.configs(specs)).map(CounterConfig::counter).toList();
    }

    /** The unit mask each event is programmed with, in the order given. */
    private List<Long> unitMasks(String... specs) throws EventSpecException {
        return Arrays.stream(fixture.configs(specs)).map(CounterConfig::unitMask).toList();
    }

    @Test
    void aCounterRestrictedEventPushesAnEarlierEventToTheOtherCounter() throws EventSpecException {
        assertEquals(List.of(1, 0), counters("CPU_CLK_UNHALTED:100000", "FLOPS:3000"),
                "CPU_CLK_UNHALTED moves to counter 1 because FLOPS can use counter 0 only");
    }

    @Test
    void counter1OnlyEventsGoToCounter1() throws EventSpecException {
        assertEquals(List.of(1), counters("FP_ASSIST:500"));
        assertEquals(List.of(1, 0), counters("MUL:1000", "FLOPS:3000"));
    }

    @Test
    void unitMaskMinusOneTakesTheEventsDefault() throws EventSpecException {
        assertEquals(List.of(0x0FL, 0x20L), unitMasks("L2_RQSTS:500", "BUS_TRAN_ANY:500"),
                "mesi defaults to all four states, ebl to any agent");
    }

    @Test
    void anAllowedUnitMaskIsKept() throws EventSpecException {
        assertEquals(List.of(0x0CL), unitMasks("L2_LD:500:0x0c"));
        assertEquals(List.of(0x00L), unitMasks("BUS_TRAN_MEM:500:0x00"));
    }

    @Test
    void anUnknownEventIsRejectedListingTheAllowedEvents() {
        String m = rejection("CPU_CYCLES:100000");
        assertTrue(m.contains("unknown event 'CPU_CYCLES'"), m);
        assertTrue(m.contains("i386/p6"), m);
        assertTrue(m.contains("CPU_CLK_UNHALTED, INST_RETIRED"), m);
        assertTrue(m.contains("DIV"), m);
    }

    @Test
    void aLowerCaseEventNameGetsAHint() {
        String m = rejection("cpu_clk_unhalted:100000");
        assertTrue(m.contains("did you mean CPU_CLK_UNHALTED"), m);
    }

    @Test
    void aCountBelowTheMinimumIsRejectedNamingTheMinimum() {
        String m = rejection("CPU_CLK_UNHALTED:5999");
        assertTrue(m.contains("count 5999 for CPU_CLK_UNHALTED is below its minimum of 6000"), m);
        String fp = rejection("FLOPS:2999");
        assertTrue(fp.contains("minimum of 3000"), fp);
    }

    @Test
    void theMinimumCountItselfIsAccepted() throws EventSpecException {
        assertEquals(6000, fixture.configs("CPU_CLK_UNHALTED:6000")[0].count());
        assertEquals(500, fixture.configs("DATA_MEM_REFS:500")[0].count());
    }

    @Test
    void aCountThatDoesNotFit31BitsIsRejected() throws EventSpecException {
        assertEquals(0x7FFF_FFFFL, fixture.configs("CPU_CLK_UNHALTED:2147483647")[0].count());
        String m = rejection("CPU_CLK_UNHALTED:2147483648");
        assertTrue(m.contains("at most 2147483647"), m);
    }

    @Test
    void aUnitMaskTheEventDoesNotHaveIsRejectedListingTheAllowedValues() {
        String mesi = rejection("L2_RQSTS:500:0x10");
        assertTrue(mesi.contains("unit mask 0x10 is not valid for L2_RQSTS"), mesi);
        assertTrue(mesi.contains("any combination of the bits: 0x08"), mesi);
        String zero = rejection("CPU_CLK_UNHALTED:100000:1");
        assertTrue(zero.contains("only 0x00 No unit mask"), zero);
        String ebl = rejection("BUS_TRAN_ANY:500:0x10");
        assertTrue(ebl.contains("one of: 0x00 self-generated transactions; 0x20"), ebl);
    }

    @Test
    void twoEventsForTheSameSingleCounterAreRejectedNamingTheTakenCounter() {
        String m = rejection("FLOPS:3000", "COMP_FLOP_RET:3000");
        assertTrue(m.contains("no free counter for COMP_FLOP_RET: it can use counter(s) 0"), m);
        assertTrue(m.contains("counter 0 is taken by FLOPS"), m);
        String one = rejection("FP_ASSIST:500", "DIV:500");
        assertTrue(one.contains("no free counter for DIV: it can use counter(s) 1 and counter 1 is taken by FP_ASSIST"),
                one);
    }

    @Test
    void moreEventsThanCountersAreRejected() {
        String m = rejection("CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "UOPS_RETIRED:6000");
        assertTrue(m.contains("3 events given"), m);
        assertTrue(m.contains("only 2 counters"), m);
    }

    @Test
    void eachPartNamesItselfAndItsTwoCountersInAllocationMessages() {
        var pentiumM = fixture.model.createPmu(0, java.util.Map.of("variant", "p6_mobile")).model();
        EventSpecException e = assertThrows(EventSpecException.class, () -> pentiumM.allocate(List.of(
                EventSpec.parse("CPU_CLK_UNHALTED:6000"), EventSpec.parse("INST_RETIRED:6000"),
                EventSpec.parse("UOPS_RETIRED:6000"))));
        assertTrue(e.getMessage().contains("the " + pentiumM.displayName() + " (i386/p6) has only 2 counters (PerfCtr0,"
                + " PerfCtr1)"), e.getMessage());
    }

    @Test
    void noEventsAtAllIsRejectedNamingTheDefault() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> fixture.model.allocate(List.of()));
        assertTrue(e.getMessage().contains("CPU_CLK_UNHALTED:100000:0:1:1"), e.getMessage());
    }

    @Test
    void anEventCountingInNeitherModeIsRejected() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> fixture.model.allocate(List.of(new EventSpec("CPU_CLK_UNHALTED", 100000, -1, false, false))));
        assertTrue(e.getMessage().contains("neither kernel nor user"), e.getMessage());
    }
}
