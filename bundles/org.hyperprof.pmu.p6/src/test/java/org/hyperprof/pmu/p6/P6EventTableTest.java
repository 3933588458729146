package org.hyperprof.pmu.p6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The model's identity and OProfile's P6 event table read from the bundle's resources. */
class P6EventTableTest {
    private final P6PmuModel model = new P6PmuModel();
    private final EventTable table = model.events();

    @Test
    void modelDescribesTheP6() {
        assertEquals("i386/p6 \"PIII\": 2 counters of 40 bits", PmuFixtures.identity(model));
    }

    @Test
    void defaultEventIsCpuClkUnhaltedEvery100000CyclesInBothModes() throws EventSpecException {
        assertEquals("CPU_CLK_UNHALTED:100000:0:1:1", model.defaultEvent());
        CounterConfig c = model.allocate(List.of(EventSpec.parse(model.defaultEvent())))[0];
        assertEquals(0, c.counter());
        assertEquals("CPU_CLK_UNHALTED", c.event().name());
        assertEquals(100_000, c.count());
        assertEquals(0, c.unitMask());
        assertTrue(c.kernel() && c.user());
        assertEquals("Counted CPU_CLK_UNHALTED events (clocks processor is not halted) with a unit mask of 0x00"
                + " (No unit mask) count 100000", c.describe());
    }

    @Test
    void tableHoldsTheWholePentiumProBaseSet() {
        List<String> names = table.events().stream().map(EventDescriptor::name).collect(Collectors.toList());
        assertEquals(List.of("CPU_CLK_UNHALTED", "INST_RETIRED", "UOPS_RETIRED", "INST_DECODED", "DATA_MEM_REFS",
                "DCU_LINES_IN", "DCU_MISS_OUTSTANDING", "IFU_IFETCH_MISS", "ITLB_MISS", "L2_RQSTS", "L2_LD", "L2_ST",
                "L2_IFETCH", "L2_LINES_IN", "BUS_TRAN_ANY", "BUS_TRAN_MEM", "BR_INST_RETIRED", "BR_MISS_PRED_RETIRED",
                "BR_TAKEN_RETIRED", "RESOURCE_STALLS", "HW_INT_RX", "FLOPS", "COMP_FLOP_RET", "CYCLES_DIV_BUSY",
                "FP_ASSIST", "MUL", "DIV"), names);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "CPU_CLK_UNHALTED     | 0x79 | 0,1 | 6000 | zero | CYCLES",
        "INST_RETIRED         | 0xC0 | 0,1 | 6000 | zero | INSTRUCTIONS",
        "UOPS_RETIRED         | 0xC2 | 0,1 | 6000 | zero | UOPS",
        "INST_DECODED         | 0xD0 | 0,1 | 6000 | zero | INSTRUCTIONS_DECODED",
        "DATA_MEM_REFS        | 0x43 | 0,1 | 500  | zero | MEMORY_REFERENCES",
        "DCU_LINES_IN         | 0x45 | 0,1 | 500  | zero | L1D_MISSES",
        "DCU_MISS_OUTSTANDING | 0x48 | 0,1 | 500  | zero | L1D_MISS_OUTSTANDING_CYCLES",
        "IFU_IFETCH_MISS      | 0x81 | 0,1 | 500  | zero | L1I_MISSES",
        "ITLB_MISS            | 0x85 | 0,1 | 500  | zero | ITLB_MISSES",
        "L2_RQSTS             | 0x2E | 0,1 | 500  | mesi | L2_REQUESTS",
        "L2_LD                | 0x29 | 0,1 | 500  | mesi | L1D_MISSES",
        "L2_ST                | 0x2A | 0,1 | 500  | mesi | L2_REQUESTS",
        "L2_IFETCH            | 0x28 | 0,1 | 500  | mesi | L1I_MISSES",
        "L2_LINES_IN          | 0x24 | 0,1 | 500  | zero | L2_MISSES",
        "BUS_TRAN_ANY         | 0x70 | 0,1 | 500  | ebl  | BUS_TRANSACTIONS",
        "BUS_TRAN_MEM         | 0x6F | 0,1 | 500  | ebl  | BUS_TRANSACTIONS",
        "BR_INST_RETIRED      | 0xC4 | 0,1 | 500  | zero | BRANCHES",
        "BR_MISS_PRED_RETIRED | 0xC5 | 0,1 | 500  | zero | BRANCH_MISSES",
        "BR_TAKEN_RETIRED     | 0xC9 | 0,1 | 500  | zero | BRANCHES_TAKEN",
        "RESOURCE_STALLS      | 0xA2 | 0,1 | 500  | zero | RESOURCE_STALLS",
        "HW_INT_RX            | 0xC8 | 0,1 | 500  | zero | HW_INTERRUPTS",
        "FLOPS                | 0x10 | 0   | 3000 | zero | FP_OPERATIONS",
        "COMP_FLOP_RET        | 0xC1 | 0   | 3000 | zero | FP_OPERATIONS",
        "CYCLES_DIV_BUSY      | 0x14 | 0   | 1000 | zero | DIV_BUSY_CYCLES",
        "FP_ASSIST            | 0x11 | 1   | 500  | zero | FP_OPERATIONS",
        "MUL                  | 0x12 | 1   | 1000 | zero | FP_OPERATIONS",
        "DIV                  | 0x13 | 1   | 500  | zero | FP_OPERATIONS"})
    void eventHasOprofilesCodeCountersMinimumUnitMaskAndItsSignal(String name, String code, String counters,
            long minimum, String unitMask, Signal signal) {
        EventDescriptor e = table.find(name).orElseThrow(() -> new AssertionError(name + " missing"));
        assertEquals(Integer.decode(code), e.code());
        assertEquals(counters, e.countersText());
        assertEquals(minimum, e.minimumCount());
        assertEquals(unitMask, e.unitMask().name());
        assertEquals(signal, e.signal());
        assertTrue(!e.description().isEmpty(), name + " has a description");
    }

    @Test
    void zeroUnitMaskIsMandatoryZero() {
        UnitMask zero = table.unitMasks().get("zero");
        assertEquals(UnitMask.Kind.MANDATORY, zero.kind());
        assertEquals(0, zero.defaultValue());
        assertEquals(List.of(0L), values(zero));
    }

    @Test
    void mesiUnitMaskIsABitmaskOfTheFourCacheStatesDefaulting0x0F() {
        UnitMask mesi = table.unitMasks().get("mesi");
        assertEquals(UnitMask.Kind.BITMASK, mesi.kind());
        assertEquals(0x0F, mesi.defaultValue());
        assertEquals(List.of(0x08L, 0x04L, 0x02L, 0x01L), values(mesi));
    }

    @Test
    void eblUnitMaskChoosesSelfOrAnyAgentDefaultingToAny() {
        UnitMask ebl = table.unitMasks().get("ebl");
        assertEquals(UnitMask.Kind.EXCLUSIVE, ebl.kind());
        assertEquals(0x20, ebl.defaultValue());
        assertEquals(List.of(0x00L, 0x20L), values(ebl));
    }

    private static List<Long> values(UnitMask um) {
        return um.values().stream().map(UnitMask.Value::value).collect(Collectors.toList());
    }
}
