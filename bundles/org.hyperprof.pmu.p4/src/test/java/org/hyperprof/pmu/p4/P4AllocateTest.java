package org.hyperprof.pmu.p4;

import static org.hyperprof.pmu.p4.P4Fixture.P4;
import static org.hyperprof.pmu.p4.P4Fixture.P4_HT;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.junit.jupiter.api.Test;

/** OProfile's event specification checked against the P4 tables: names, counts, unit masks, counter pairs. */
class P4AllocateTest {

    @Test
    void theDefaultEventIsGlobalPowerEventsWithUnitMask1Every100000() throws Exception {
        for (var m : List.of(P4, P4_HT)) {
            assertEquals("GLOBAL_POWER_EVENTS:100000:1:1:1", m.defaultEvent());
            CounterConfig c = configs(m, m.defaultEvent())[0];
            assertEquals(0, c.counter());
            assertEquals(0x1D, c.event().code(), "OProfile event number 29: an index into the binding table");
            assertEquals(1, c.unitMask());
            assertEquals(100000, c.count());
        }
    }

    @Test
    void eventsOfOneGroupTakeBothCountersOfItsPair() throws Exception {
        CounterConfig[] c = configs(P4, "GLOBAL_POWER_EVENTS:3000", "BPU_FETCH_REQUEST:3000");
        assertEquals(0, c[0].counter());
        assertEquals(4, c[1].counter());
    }

    @Test
    void aThirdEventOfAGroupFindsBothCountersTakenAndTheMessageNamesThem() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(P4, "GLOBAL_POWER_EVENTS:3000",
                "BPU_FETCH_REQUEST:3000", "ITLB_REFERENCE:3000"));
        assertTrue(e.getMessage().contains("no free counter for ITLB_REFERENCE"), e.getMessage());
        assertTrue(e.getMessage().contains("0 (BPU_COUNTER0), 4 (BPU_COUNTER2)"), e.getMessage());
        assertTrue(e.getMessage().contains("counter 0 is taken by GLOBAL_POWER_EVENTS, counter 4 is taken by"
                + " BPU_FETCH_REQUEST"), e.getMessage());
    }

    @Test
    void eventsOfDifferentGroupsRunTogetherOnAllEightCounters() throws Exception {
        CounterConfig[] c = configs(P4, "GLOBAL_POWER_EVENTS:3000", "UOP_QUEUE_WRITES:3000", "X87_FP_UOP:3000",
                "INSTR_RETIRED:3000", "BSQ_CACHE_REFERENCE:3000", "RETIRED_BRANCH_TYPE:3000", "MEMORY_CANCEL:3000",
                "UOPS_RETIRED:3000");
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), Arrays.stream(c).map(CounterConfig::counter).toList());
    }

    @Test
    void ioqAllocationOnlyRunsOnCounter0AndPushesAnotherBpuEventTo4() throws Exception {
        CounterConfig[] c = configs(P4, "GLOBAL_POWER_EVENTS:3000", "IOQ_ALLOCATION:3000");
        assertEquals(4, c[0].counter());
        assertEquals(0, c[1].counter());
    }

    @Test
    void onP4HtEachGroupHasOneCounterPerLogicalCpu() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> configs(P4_HT, "GLOBAL_POWER_EVENTS:6000", "BPU_FETCH_REQUEST:6000"));
        assertTrue(e.getMessage().contains("no free counter for BPU_FETCH_REQUEST: it can use counter(s) 0"
                + " (BPU_COUNTER0) and counter 0 is taken by GLOBAL_POWER_EVENTS"), e.getMessage());
        assertTrue(e.getMessage().endsWith("events of one counter group share its counters, so choose events of"
                + " different groups"), e.getMessage());
    }

    @Test
    void moreEventsThanCountersAreRefused() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(P4_HT, "GLOBAL_POWER_EVENTS:6000",
                "UOP_QUEUE_WRITES:6000", "MEMORY_CANCEL:6000", "INSTR_RETIRED:6000", "UOPS_RETIRED:6000"));
        assertTrue(e.getMessage().contains("only 4 counters per logical CPU"), e.getMessage());
    }

    @Test
    void theMinimumIs3000OnP4And6000OnP4Ht() throws Exception {
        assertEquals(3000, configs(P4, "INSTR_RETIRED:3000")[0].count());
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(P4_HT, "INSTR_RETIRED:3000"));
        assertTrue(e.getMessage().contains("below its minimum of 6000 on i386/p4-ht"), e.getMessage());
    }

    @Test
    void aCountThatDoesNotKeepBit31SetIsRefused() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(P4, "INSTR_RETIRED:2147483648"));
        assertTrue(e.getMessage().contains("at most 2147483647"), e.getMessage());
    }

    @Test
    void globalPowerEventsTakesOnlyItsMandatoryUnitMask() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(P4, "GLOBAL_POWER_EVENTS:3000:2"));
        assertTrue(e.getMessage().contains("unit mask 0x2 is not valid for GLOBAL_POWER_EVENTS"), e.getMessage());
        assertTrue(e.getMessage().contains("only 0x01"), e.getMessage());
    }

    @Test
    void bitmaskUnitMasksTakeAnyCombinationOfTheirBits() throws Exception {
        assertEquals(0x0F, configs(P4, "BRANCH_RETIRED:3000:0x0f")[0].unitMask());
        assertEquals(0x0C, configs(P4, "BRANCH_RETIRED:3000")[0].unitMask(), "default: taken branches");
        assertThrows(EventSpecException.class, () -> configs(P4, "BRANCH_RETIRED:3000:0x10"));
    }

    @Test
    void unknownEventsListTheTablesEvents() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(P4_HT, "X87_FP_UOP:6000"));
        assertTrue(e.getMessage().contains("unknown event 'X87_FP_UOP' for CPU type i386/p4-ht"), e.getMessage());
        assertTrue(e.getMessage().contains("GLOBAL_POWER_EVENTS, BRANCH_RETIRED"), e.getMessage());
        e = assertThrows(EventSpecException.class, () -> configs(P4, "global_power_events:3000"));
        assertTrue(e.getMessage().contains("did you mean GLOBAL_POWER_EVENTS"), e.getMessage());
    }

    @Test
    void noEventsNullEventsAndNeitherModeAreRefused() {
        assertThrows(EventSpecException.class, () -> P4.allocate(List.of()));
        assertThrows(EventSpecException.class, () -> P4.allocate(Arrays.asList((EventSpec) null)));
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> P4.allocate(List.of(new EventSpec("INSTR_RETIRED", 3000, -1, false, false))));
        assertTrue(e.getMessage().contains("neither kernel nor user"), e.getMessage());
    }
}
