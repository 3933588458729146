package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86_64.ArchFixture.ARCH;
import static org.hyperprof.pmu.x86_64.ArchFixture.CORE2;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PmuModel;
import org.junit.jupiter.api.Test;

/** OProfile's event specification checked against the models: names, counts, unit masks, counters, CPUID availability. */
class ArchAllocateTest {

    @Test
    void theDefaultEventIsCpuClkUnhaltedEvery100000CyclesOnBothModels() throws Exception {
        for (PmuModel m : List.of(ARCH, CORE2)) {
            assertEquals("CPU_CLK_UNHALTED:100000:0:1:1", m.defaultEvent());
            CounterConfig c = configs(m, m.defaultEvent())[0];
            assertEquals(0, c.counter());
            assertEquals(0x3C, c.event().code());
            assertEquals(100000, c.count());
            assertEquals(0, c.unitMask());
        }
    }

    @Test
    void eventsGoToTheLowestFreeCounters() throws Exception {
        CounterConfig[] c = configs(ARCH, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "LLC_MISSES:6000",
                "BR_INST_RETIRED:500");
        assertEquals(List.of(0, 1, 2, 3), Arrays.stream(c).map(CounterConfig::counter).toList());
    }

    @Test
    void theUnitMaskDefaultsToTheEventsOwn() throws Exception {
        assertEquals(0x41, configs(ARCH, "LLC_MISSES:6000")[0].unitMask());
        assertEquals(0x1, configs(ARCH, "UNHALTED_REFERENCE_CYCLES:6000")[0].unitMask());
        assertEquals(0x7F, configs(CORE2, "L2_RQSTS:500")[0].unitMask());
    }

    @Test
    void moreEventsThanCpuidCountersAreRefused() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(CORE2, "CPU_CLK_UNHALTED:6000",
                "INST_RETIRED:6000", "UOPS_RETIRED:6000"));
        assertTrue(e.getMessage().contains("only 2 general-purpose counters"), e.getMessage());
        PmuModel two = ARCH.createPmu(0, Map.of("cpuid.gp", "2")).model();
        e = assertThrows(EventSpecException.class, () -> configs(two, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000",
                "LLC_REFS:6000"));
        assertTrue(e.getMessage().contains("give at most 2 events"), e.getMessage());
    }

    @Test
    void anEventMarkedUnavailableByCpuidIsRefusedNamingTheEbxBit() {
        PmuModel noLlcMisses = ARCH.createPmu(0, Map.of("cpuid.ebx", "0x10")).model();
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(noLlcMisses, "LLC_MISSES:6000"));
        assertTrue(e.getMessage().contains("LLC_MISSES is not available"), e.getMessage());
        assertTrue(e.getMessage().contains("EBX bit 4 (LLC misses) is set"), e.getMessage());
        assertTrue(e.getMessage().contains("LLC_REFS") && !e.getMessage().contains("LLC_MISSES,"), e.getMessage());
    }

    @Test
    void everyArchitecturalEventFollowsItsOwnEbxBit() throws Exception {
        String[] byBit = {"CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "UNHALTED_REFERENCE_CYCLES:6000",
            "LLC_REFS:6000", "LLC_MISSES:6000", "BR_INST_RETIRED:500", "BR_MISS_PRED_RETIRED:500"};
        for (int bit = 0; bit < byBit.length; bit++) {
            PmuModel m = ARCH.createPmu(0, Map.of("cpuid.ebx", Integer.toString(1 << bit))).model();
            for (int other = 0; other < byBit.length; other++) {
                String spec = byBit[other];
                if (other == bit) {
                    assertThrows(EventSpecException.class, () -> configs(m, spec), spec + " with EBX bit " + bit);
                } else {
                    configs(m, spec);
                }
            }
        }
    }

    @Test
    void unknownEventsListTheOnesTheCpuCounts() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(ARCH, "GLOBAL_POWER_EVENTS:100000"));
        assertTrue(e.getMessage().contains("unknown event 'GLOBAL_POWER_EVENTS'"), e.getMessage());
        assertTrue(e.getMessage().contains("CPU_CLK_UNHALTED, INST_RETIRED, UNHALTED_REFERENCE_CYCLES"), e.getMessage());
        e = assertThrows(EventSpecException.class, () -> configs(CORE2, "cpu_clk_unhalted:100000"));
        assertTrue(e.getMessage().contains("did you mean CPU_CLK_UNHALTED"), e.getMessage());
    }

    @Test
    void unknownEventsLeaveOutTheEventsCpuidMarksUnavailable() {
        PmuModel noLlcMisses = ARCH.createPmu(0, Map.of("cpuid.ebx", "0x10")).model();
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(noLlcMisses, "LLC_MISS:6000"));
        assertTrue(e.getMessage().contains("allowed events: CPU_CLK_UNHALTED, INST_RETIRED, UNHALTED_REFERENCE_CYCLES,"
                + " LLC_REFS, BR_INST_RETIRED"), e.getMessage());
        assertTrue(!e.getMessage().contains("LLC_MISSES"), e.getMessage());
    }

    @Test
    void noCounterMessagesNameTheIa32PmcRegisters() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> configs(CORE2, "ITLB_MISS_RETIRED:500", "MEM_LOAD_RETIRED:500"));
        assertTrue(e.getMessage().contains("it can use counter(s) 0 (IA32_PMC0) and counter 0 is taken by"
                + " ITLB_MISS_RETIRED"), e.getMessage());
        e = assertThrows(EventSpecException.class, () -> configs(CORE2, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000",
                "UOPS_RETIRED:6000"));
        assertTrue(e.getMessage().contains("counters (CPUID.0AH EAX[15:8]): 0 (IA32_PMC0), 1 (IA32_PMC1)"),
                e.getMessage());
    }

    @Test
    void aCountBelowTheMinimumIsRefused() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(ARCH, "CPU_CLK_UNHALTED:5999"));
        assertTrue(e.getMessage().contains("below its minimum of 6000"), e.getMessage());
    }

    @Test
    void theBranchEventsHaveTheLowerMinimumOf500() throws Exception {
        assertEquals(500, configs(ARCH, "BR_MISS_PRED_RETIRED:500")[0].count());
    }

    @Test
    void aCountThatDoesNotFit31BitsIsRefused() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(ARCH, "CPU_CLK_UNHALTED:2147483648"));
        assertTrue(e.getMessage().contains("at most 2147483647"), e.getMessage());
    }

    @Test
    void aUnitMaskTheEventDoesNotHaveIsRefusedListingTheAllowedOnes() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> configs(ARCH, "LLC_MISSES:6000:0x4f"));
        assertTrue(e.getMessage().contains("unit mask 0x4f is not valid for LLC_MISSES"), e.getMessage());
        assertTrue(e.getMessage().contains("only 0x41"), e.getMessage());
        e = assertThrows(EventSpecException.class, () -> configs(CORE2, "BR_INST_RETIRED:500:0x10"));
        assertTrue(e.getMessage().contains("any combination of the bits"), e.getMessage());
    }

    @Test
    void core2CounterZeroOnlyEventsPushOthersToCounterOne() throws Exception {
        CounterConfig[] c = configs(CORE2, "CPU_CLK_UNHALTED:6000", "MEM_LOAD_RETIRED:500");
        assertEquals(1, c[0].counter());
        assertEquals(0, c[1].counter());
    }

    @Test
    void twoCounterZeroOnlyEventsCannotBothRun() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> configs(CORE2, "ITLB_MISS_RETIRED:500", "MEM_LOAD_RETIRED:500"));
        assertTrue(e.getMessage().contains("no free counter for MEM_LOAD_RETIRED"), e.getMessage());
        assertTrue(e.getMessage().contains("counter 0 is taken by ITLB_MISS_RETIRED"), e.getMessage());
    }

    @Test
    void noEventsOrNullEventsAreRefused() {
        assertThrows(EventSpecException.class, () -> ARCH.allocate(List.of()));
        assertThrows(EventSpecException.class, () -> ARCH.allocate(null));
        assertThrows(EventSpecException.class,
                () -> ARCH.allocate(Arrays.asList(EventSpec.parse("CPU_CLK_UNHALTED:6000"), null)));
    }

    @Test
    void neitherKernelNorUserIsRefused() {
        EventSpecException e = assertThrows(EventSpecException.class,
                () -> ARCH.allocate(List.of(new EventSpec("CPU_CLK_UNHALTED", 6000, -1, false, false))));
        assertTrue(e.getMessage().contains("neither kernel nor user"), e.getMessage());
    }
}
