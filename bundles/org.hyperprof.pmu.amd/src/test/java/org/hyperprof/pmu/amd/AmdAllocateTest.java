package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.ATHLON;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY15H;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Checking a user's events against the AMD tables and placing them on counters. */
class AmdAllocateTest {

    private static String rejection(AmdPmuModel model, String... specs) {
        return assertThrows(EventSpecException.class, () -> configs(model, specs)).getMessage();
    }

    private static int[] counters(CounterConfig[] c) {
        return Arrays.stream(c).mapToInt(CounterConfig::counter).toArray();
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void theDefaultEventIsCpuClkUnhaltedCount100000OnCounter0(AmdPmuModel model) throws EventSpecException {
        assertEquals("CPU_CLK_UNHALTED:100000:0:1:1", model.defaultEvent());
        CounterConfig c = configs(model, model.defaultEvent())[0];
        assertEquals(0, c.counter());
        assertEquals(0x76, c.event().code());
        assertEquals(100_000, c.count());
        assertTrue(c.kernel() && c.user());
    }

    @Test
    void fourEventsFillTheFourCountersInOrder() throws EventSpecException {
        CounterConfig[] c = configs(HAMMER, "CPU_CLK_UNHALTED:100000", "RETIRED_INSTRUCTIONS:3000:0:0:1",
                "DATA_CACHE_MISSES:500", "L2_CACHE_MISS:500");
        assertEquals(List.of(0, 1, 2, 3), Arrays.stream(counters(c)).boxed().toList());
        assertFalse(c[1].kernel());
        assertTrue(c[1].user());
    }

    @Test
    void aFifthEventOnAFourCounterPartIsRefused() {
        String m = rejection(ATHLON, "CPU_CLK_UNHALTED:3000", "RETIRED_INSNS:3000", "RETIRED_OPS:500",
                "ICACHE_MISSES:500", "DATA_CACHE_MISSES:500");
        assertTrue(m.contains("5 events given, but the Athlon (i386/athlon) has only 4 counters"), m);
    }

    @Test
    void family15hTakesSixEvents() throws EventSpecException {
        CounterConfig[] c = configs(FAMILY15H, "RETIRED_INSTRUCTIONS:50000", "RETIRED_UOPS:50000",
                "DATA_CACHE_ACCESSES:500", "RETIRED_BRANCH_INSTRUCTIONS:500", "INTERRUPTS_TAKEN:500",
                "DATA_CACHE_MISSES:500");
        assertEquals(List.of(0, 1, 2, 3, 4, 5), Arrays.stream(counters(c)).boxed().toList());
    }

    @Test
    void family15hCounter3OnlyEventsGoToCounter3() throws EventSpecException {
        assertEquals(3, configs(FAMILY15H, "DISPATCHED_FPU_OPS:500")[0].counter());
        assertEquals(List.of(0, 3), Arrays.stream(counters(configs(FAMILY15H, "RETIRED_INSTRUCTIONS:50000",
                "RETIRED_SSE_OPS:500"))).boxed().toList());
    }

    @Test
    void family15hBacktracksWhenACounter0To2EventComesLast() throws EventSpecException {
        CounterConfig[] c = configs(FAMILY15H, "RETIRED_INSTRUCTIONS:50000", "RETIRED_UOPS:50000",
                "RETIRED_BRANCH_INSTRUCTIONS:500", "CPU_CLK_UNHALTED:50000");
        assertEquals(List.of(0, 1, 3, 2), Arrays.stream(counters(c)).boxed().toList(),
                "CPU_CLK_UNHALTED may use counters 0-2 only, so the branch event moves to 3");
    }

    @Test
    void twoCounter3OnlyEventsCannotBothBeCounted() {
        String m = rejection(FAMILY15H, "DISPATCHED_FPU_OPS:500", "RETIRED_SSE_OPS:500");
        assertTrue(m.contains("no free counter for RETIRED_SSE_OPS: it can use counter(s) 3 and counter 3 is taken by"
                + " DISPATCHED_FPU_OPS"), m);
    }

    @Test
    void fourCounter0To2EventsDoNotFitFamily15h() {
        String m = rejection(FAMILY15H, "CPU_CLK_UNHALTED:50000", "REQUESTS_TO_L2:500", "L2_CACHE_MISS:500",
                "INSTRUCTION_CACHE_MISSES:500");
        assertTrue(m.contains("no free counter for INSTRUCTION_CACHE_MISSES: it can use counter(s) 0,1,2"), m);
        assertTrue(m.contains("counter 0 is taken by CPU_CLK_UNHALTED"), m);
    }

    @Test
    void anUnknownEventIsRefusedListingTheModelsEvents() {
        String m = rejection(HAMMER, "INST_RETIRED:6000");
        assertTrue(m.startsWith("unknown event 'INST_RETIRED' for CPU type x86-64/hammer (AMD64 processors)"), m);
        assertTrue(m.contains("allowed events: CPU_CLK_UNHALTED, RETIRED_INSTRUCTIONS"), m);
        assertTrue(rejection(HAMMER, "cpu_clk_unhalted:6000").contains("did you mean CPU_CLK_UNHALTED?"));
        assertTrue(rejection(ATHLON, "RETIRED_INSTRUCTIONS:3000").contains("RETIRED_INSNS"),
                "the Athlon names it RETIRED_INSNS");
    }

    @Test
    void aCountBelowTheEventsMinimumIsRefused() {
        String m = rejection(FAMILY10, "CPU_CLK_UNHALTED:3000");
        assertTrue(m.contains("count 3000 for CPU_CLK_UNHALTED is below its minimum of 50000 on x86-64/family10"), m);
        assertTrue(rejection(HAMMER, "INTERRUPTS_TAKEN:9").contains("minimum of 10"));
    }

    @Test
    void aCountAboveBit31IsRefusedBecauseOverflowIsSeenAsBit31Clearing() throws EventSpecException {
        assertEquals(0x7FFF_FFFFL, configs(HAMMER, "CPU_CLK_UNHALTED:2147483647")[0].count());
        String m = rejection(HAMMER, "CPU_CLK_UNHALTED:2147483648");
        assertTrue(m.contains("at most 2147483647"), m);
    }

    @Test
    void unitMaskMinusOneTakesTheEventsDefault() throws EventSpecException {
        CounterConfig[] c = configs(HAMMER, "DATA_CACHE_REFILLS_FROM_L2_OR_SYSTEM:500", "DATA_CACHE_LINES_EVICTED:500",
                "REQUESTS_TO_L2:500", "DRAM_ACCESSES:500");
        assertEquals(0x1E, c[0].unitMask(), "moess: all L2 states, not the refill from system");
        assertEquals(0x1F, c[1].unitMask(), "moesi: all five states");
        assertEquals(0x1F, c[2].unitMask(), "l2_internal");
        assertEquals(0x07, c[3].unitMask(), "page_access: hit, miss, conflict");
    }

    @Test
    void anAllowedUnitMaskIsKeptAndAnotherIsRefusedListingTheAllowedValues() throws EventSpecException {
        assertEquals(0x11, configs(ATHLON, "DATA_CACHE_REFILLS_FROM_SYSTEM:500:0x11")[0].unitMask());
        String m = rejection(ATHLON, "DATA_CACHE_REFILLS_FROM_SYSTEM:500:0x20");
        assertTrue(m.contains("unit mask 0x20 is not valid for DATA_CACHE_REFILLS_FROM_SYSTEM (unit mask 'moesi')"), m);
        assertTrue(m.contains("0x10 (M)odified cache state"), m);
        String zero = rejection(HAMMER, "CPU_CLK_UNHALTED:100000:0x1");
        assertTrue(zero.contains("only 0x00 No unit mask"), zero);
    }

    @Test
    void kernelAndUserFlagsAreKeptAndNeitherIsRefused() throws EventSpecException {
        CounterConfig c = configs(FAMILY10, "CPU_CLK_UNHALTED:100000:0:1:0")[0];
        assertTrue(c.kernel());
        assertFalse(c.user());
        assertTrue(rejection(FAMILY10, "CPU_CLK_UNHALTED:100000:0:0:0").contains("neither kernel nor user"));
    }

    @Test
    void noEventsOrANullEventAreRefused() {
        EventSpecException e = assertThrows(EventSpecException.class, () -> HAMMER.allocate(List.of()));
        assertTrue(e.getMessage().contains("CPU_CLK_UNHALTED:100000:0:1:1"), e.getMessage());
        assertThrows(EventSpecException.class, () -> HAMMER.allocate(null));
        assertThrows(EventSpecException.class, () -> HAMMER.allocate(Arrays.asList(new org.hyperprof.api.pmu.EventSpec[1])));
    }
}
