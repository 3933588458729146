package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.ATHLON;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY15H;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.stream.Collectors;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The event tables shipped as resources, and what each model says about itself. */
class AmdEventTableTest {

    private static EventDescriptor event(AmdPmuModel model, String name) {
        return model.events().find(name).orElseThrow(() -> new AssertionError(model.cpuType() + " lacks " + name));
    }

    @Test
    void eachModelHasOProfilesCpuTypeAndName() {
        assertEquals("i386/athlon", ATHLON.cpuType());
        assertEquals("Athlon", ATHLON.displayName());
        assertEquals("x86-64/hammer", HAMMER.cpuType());
        assertEquals("AMD64 processors", HAMMER.displayName());
        assertEquals("x86-64/family10", FAMILY10.cpuType());
        assertEquals("AMD64 family10", FAMILY10.displayName());
        assertEquals("x86-64/family15h", FAMILY15H.cpuType());
        assertEquals("AMD64 family15h", FAMILY15H.displayName());
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void everyEventHasASignalACodeTheSelectHoldsAndCountersThePartHas(AmdPmuModel model) {
        EventTable table = model.events();
        assertTrue(table.events().size() >= 19, model.cpuType() + " has " + table.events().size() + " events");
        long allCounters = (1L << model.counterCount()) - 1;
        for (EventDescriptor e : table.events()) {
            assertNotNull(e.signal(), e.name());
            if (IbsEvents.isIbs(e)) {
                // Sampled by IBS, not counted: checked by IbsEventTableTest.
                continue;
            }
            assertTrue(e.code() >= 0 && e.code() <= model.family().maxEventCode(), e.name());
            assertTrue(e.counterMask() != 0 && (e.counterMask() & ~allCounters) == 0, e.name() + " " + e.countersText());
            assertTrue(e.unitMask().allows(e.unitMask().defaultValue()), e.name());
            assertTrue(e.minimumCount() > 0, e.name());
        }
    }

    @Test
    void athlonTableMatchesTheFacts() {
        EventDescriptor clk = event(ATHLON, "CPU_CLK_UNHALTED");
        assertEquals(0x76, clk.code());
        assertEquals(3000, clk.minimumCount());
        assertEquals(Signal.CYCLES, clk.signal());
        assertEquals("0,1,2,3", clk.countersText());
        assertEquals(3000, event(ATHLON, "RETIRED_INSNS").minimumCount());
        assertEquals(500, event(ATHLON, "RETIRED_OPS").minimumCount());
        assertEquals(10, event(ATHLON, "HARDWARE_INTERRUPTS").minimumCount());
        UnitMask moesi = event(ATHLON, "DATA_CACHE_REFILLS_FROM_L2").unitMask();
        assertEquals("moesi", moesi.name());
        assertEquals(0x1F, moesi.defaultValue());
        assertEquals(UnitMask.Kind.BITMASK, moesi.kind());
        assertEquals(Set.of(0x10L, 0x08L, 0x04L, 0x02L, 0x01L),
                moesi.values().stream().map(UnitMask.Value::value).collect(Collectors.toSet()));
        assertEquals("moesi", event(ATHLON, "DATA_CACHE_WRITEBACKS").unitMask().name());
    }

    @Test
    void hammerTableMatchesTheFacts() {
        assertEquals(3000, event(HAMMER, "CPU_CLK_UNHALTED").minimumCount());
        assertEquals(0xC0, event(HAMMER, "RETIRED_INSTRUCTIONS").code());
        assertEquals(Signal.INSTRUCTIONS, event(HAMMER, "RETIRED_INSTRUCTIONS").signal());
        assertEquals(0x1E, event(HAMMER, "DATA_CACHE_REFILLS_FROM_L2_OR_SYSTEM").unitMask().defaultValue());
        assertEquals("moess", event(HAMMER, "DATA_CACHE_REFILLS_FROM_L2_OR_SYSTEM").unitMask().name());
        assertEquals(0x1F, event(HAMMER, "REQUESTS_TO_L2").unitMask().defaultValue());
        assertEquals(0x07, event(HAMMER, "L2_CACHE_MISS").unitMask().defaultValue());
        assertEquals(0x07, event(HAMMER, "DRAM_ACCESSES").unitMask().defaultValue());
        assertEquals(0x07, event(HAMMER, "HYPERTRANSPORT_LINK0_BANDWIDTH").unitMask().defaultValue());
        assertTrue(event(HAMMER, "HYPERTRANSPORT_LINK0_BANDWIDTH").unitMask().allows(0x08), "NOP sent");
        assertEquals(10, event(HAMMER, "INTERRUPTS_TAKEN").minimumCount());
        assertEquals(Signal.RESOURCE_STALLS, event(HAMMER, "DISPATCH_STALLS").signal());
    }

    @Test
    void family10TableRaisesTheClockAndInstructionMinimumsAndHasTwelveBitCodes() {
        assertEquals(50_000, event(FAMILY10, "CPU_CLK_UNHALTED").minimumCount());
        assertEquals(50_000, event(FAMILY10, "RETIRED_INSTRUCTIONS").minimumCount());
        assertEquals(0x1C0, event(FAMILY10, "RETIRED_X87_FLOATING_POINT_OPERATIONS").code());
        assertEquals(Signal.FP_OPERATIONS, event(FAMILY10, "RETIRED_X87_FLOATING_POINT_OPERATIONS").signal());
        assertEquals(0x3F, event(FAMILY10, "DRAM_ACCESSES").unitMask().defaultValue(), "two DRAM controllers");
    }

    @Test
    void family15hTableCarriesTheCounterConstraints() {
        assertEquals("0,1,2", event(FAMILY15H, "CPU_CLK_UNHALTED").countersText());
        assertEquals("0,1,2", event(FAMILY15H, "REQUESTS_TO_L2").countersText());
        assertEquals("0,1,2", event(FAMILY15H, "L2_CACHE_MISS").countersText());
        assertEquals("0,1,2", event(FAMILY15H, "INSTRUCTION_CACHE_FETCHES").countersText());
        assertEquals("0,1,2", event(FAMILY15H, "DISPATCH_STALLS").countersText());
        assertEquals("3", event(FAMILY15H, "DISPATCHED_FPU_OPS").countersText());
        assertEquals(0x000, event(FAMILY15H, "DISPATCHED_FPU_OPS").code());
        assertEquals("0,1,2,3,4,5", event(FAMILY15H, "RETIRED_INSTRUCTIONS").countersText());
        assertEquals(50_000, event(FAMILY15H, "RETIRED_INSTRUCTIONS").minimumCount());
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void theCoreSignalsAreCountableOnEveryModel(AmdPmuModel model) {
        Set<Signal> signals = model.events().events().stream().map(EventDescriptor::signal).collect(Collectors.toSet());
        assertTrue(signals.containsAll(Set.of(Signal.CYCLES, Signal.INSTRUCTIONS, Signal.UOPS, Signal.BRANCHES,
                Signal.BRANCH_MISSES, Signal.L1D_MISSES, Signal.L1I_MISSES, Signal.DTLB_MISSES, Signal.ITLB_MISSES,
                Signal.HW_INTERRUPTS)), model.cpuType() + " " + signals);
    }

    @Test
    void modelsDescribeThemselves() {
        assertEquals("AMD PMU model x86-64/family10 (AMD64 family10)", FAMILY10.toString());
    }
}
