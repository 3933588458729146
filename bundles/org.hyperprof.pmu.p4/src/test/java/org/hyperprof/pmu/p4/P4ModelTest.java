package org.hyperprof.pmu.p4;

import static org.hyperprof.pmu.p4.P4Fixture.P4;
import static org.hyperprof.pmu.p4.P4Fixture.P4_HT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The two models, their event tables and the createPmu options. */
class P4ModelTest {

    @Test
    void modelsNameThemselvesAsOprofileDoes() {
        assertEquals("i386/p4", P4.cpuType());
        assertEquals("Pentium 4 / Xeon", P4.displayName());
        assertEquals(8, P4.counterCount());
        assertEquals(40, P4.counterWidth());
        assertEquals("i386/p4-ht", P4_HT.cpuType());
        assertEquals("Pentium 4 / Xeon with 2 hyper-threads", P4_HT.displayName());
        assertEquals(4, P4_HT.counterCount());
        assertEquals(40, P4_HT.counterWidth());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"GLOBAL_POWER_EVENTS, 0x1D, '0,4', 0x01, CYCLES", "INSTR_RETIRED, 0x23, '3,7', 0x01, INSTRUCTIONS",
        "UOPS_RETIRED, 0x24, '3,7', 0x01, UOPS", "BRANCH_RETIRED, 0x01, '3,7', 0x0C, BRANCHES",
        "MISPRED_BRANCH_RETIRED, 0x02, '3,7', 0x01, BRANCH_MISSES",
        "RETIRED_BRANCH_TYPE, 0x27, '1,5', 0x1F, BRANCHES",
        "RETIRED_MISPRED_BRANCH_TYPE, 0x26, '1,5', 0x1F, BRANCH_MISSES",
        "TC_DELIVER_MODE, 0x03, '1,5', 0x04, CYCLES", "BPU_FETCH_REQUEST, 0x04, '0,4', 0x01, L1I_MISSES",
        "ITLB_REFERENCE, 0x05, '0,4', 0x07, ITLB_MISSES", "PAGE_WALK_TYPE, 0x0B, '0,4', 0x01, DTLB_MISSES",
        "BSQ_CACHE_REFERENCE, 0x0C, '0,4', 0x073F, L2_REQUESTS", "MEMORY_CANCEL, 0x06, '2,6', 0x08, L1D_MISSES",
        "MOB_LOAD_REPLAY, 0x0A, '0,4', 0x3A, L1D_MISSES", "MACHINE_CLEAR, 0x1C, '3,7', 0x01, RESOURCE_STALLS",
        "X87_ASSIST, 0x12, '3,7', 0x1F, FP_OPERATIONS", "X87_FP_UOP, 0x1A, '2,6', 0x8000, FP_OPERATIONS",
        "PACKED_DP_UOP, 0x15, '2,6', 0x8000, FP_OPERATIONS", "SCALAR_DP_UOP, 0x17, '2,6', 0x8000, FP_OPERATIONS",
        "UOP_QUEUE_WRITES, 0x1F, '1,5', 0x07, UOPS", "IOQ_ALLOCATION, 0x0D, 0, 0xEFE1, BUS_TRANSACTIONS"})
    void p4TableHoldsTheFactsEvents(String name, String number, String counters, String unitMask, Signal signal) {
        EventDescriptor e = P4.events().find(name).orElseThrow();
        assertEquals(Integer.decode(number), e.code());
        assertEquals(counters, e.countersText());
        assertEquals(Long.decode(unitMask), e.unitMask().defaultValue());
        assertEquals(3000, e.minimumCount());
        assertEquals(signal, e.signal());
        assertEquals(name, P4.wiring().binding(e.code()).name(), "the event number indexes the binding table");
    }

    @Test
    void p4HtTableUsesCounters0To3AndMinimum6000() {
        assertEquals(15, P4_HT.events().events().size());
        for (EventDescriptor e : P4_HT.events().events()) {
            assertEquals(6000, e.minimumCount(), e.name());
            assertTrue(e.counterMask() != 0 && e.counterMask() < 16, e.name());
            EventDescriptor full = P4.events().find(e.name()).orElseThrow();
            assertEquals(full.code(), e.code());
            assertEquals(full.counterMask() & 0xF, e.counterMask(), e.name() + ": counter mod 4");
            assertNotNull(e.signal());
        }
    }

    @Test
    void htThreadDefaultsToCpuNumberModulo2() {
        assertEquals(0, P4Fixture.ht(0).thread());
        assertEquals(1, P4Fixture.ht(1).thread());
        assertEquals(0, P4Fixture.ht(6).thread());
        assertEquals(1, P4Fixture.ht(7).thread());
        assertEquals(0, P4Fixture.p4().thread());
    }

    @Test
    void htThreadOptionChoosesTheSibling() {
        P4Pmu pmu = (P4Pmu) P4_HT.createPmu(4, Map.of("ht.thread", "1"));
        assertEquals(1, pmu.thread());
        assertEquals(0x302, pmu.counterRegisters()[0]);
        assertSame(P4_HT, pmu.model());
    }

    @Test
    void htThreadIsAnErrorOnANonHtPackageAndMustBe0Or1() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> P4.createPmu(0, Map.of("ht.thread", "1")));
        assertTrue(e.getMessage().contains("applies to i386/p4-ht only"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> P4_HT.createPmu(0, Map.of("ht.thread", "2")));
        assertTrue(e.getMessage().contains("allowed values: 0, 1"), e.getMessage());
    }

    @Test
    void cpuModelDefaultsTo2AndRefusesTheModelsXenRefuses() {
        assertEquals(2, P4Fixture.p4().cpuModel());
        assertEquals(6, ((P4Pmu) P4.createPmu(0, Map.of("cpu.model", "6"))).cpuModel());
        for (String bad : new String[] {"5", "7", "x", "-1"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> P4.createPmu(0, Map.of("cpu.model", bad)));
            assertTrue(e.getMessage().contains("allowed values: 0, 1, 2, 3, 4, 6"), e.getMessage());
        }
    }

    @Test
    void lvtpcAutomaskIsOnByDefaultAndFalseIsAWhatIfOverride() {
        assertTrue(P4Fixture.p4().autoMasksLvtpc());
        P4Pmu noMask = (P4Pmu) P4.createPmu(0, Map.of("lvtpc.automask", "false"));
        noMask.write(0x340, 0x400);
        noMask.write(P4Fixture.FSB_ESCR0, P4Fixture.GPE_T0_ALL);
        noMask.write(0x300, -1L);
        noMask.write(0x360, P4Fixture.CCCR_FSB_ENABLED | (1L << 26));
        noMask.advance(1, PmuFixtures.onePerCycle(), 3);
        noMask.acknowledgeInterrupt();
        assertEquals(0x400, noMask.read(0x340), "delivery left LVTPC unmasked");
        assertThrows(IllegalArgumentException.class, () -> P4.createPmu(0, Map.of("lvtpc.automask", "1")));
    }

    @Test
    void unknownOptionsAndNegativeCpusAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> P4_HT.createPmu(0, Map.of("variant", "northwood")));
        assertTrue(e.getMessage().contains("unknown i386/p4-ht PMU option 'variant'"), e.getMessage());
        assertTrue(e.getMessage().contains("ht.thread (0 or 1), cpu.model"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> P4.createPmu(-1, Map.of()));
        assertEquals(0, ((P4Pmu) P4.createPmu(0, null)).thread());
    }
}
