package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86_64.ArchFixture.ARCH;
import static org.hyperprof.pmu.x86_64.ArchFixture.CORE2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.pmu.kit.EventTableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The event tables shipped as resources: OProfile's arch_perfmon and core_2 tables (pmu-facts 5.7, 5.8). */
class ArchEventTableTest {

    @Test
    void modelsNameThemselvesAsOprofileDoes() {
        assertEquals("i386/arch_perfmon", ARCH.cpuType());
        assertEquals("Intel Architectural Perfmon", ARCH.displayName());
        assertEquals(4, ARCH.counterCount());
        assertEquals(48, ARCH.counterWidth());
        assertEquals("i386/core_2", CORE2.cpuType());
        assertEquals("Core 2", CORE2.displayName());
        assertEquals(2, CORE2.counterCount());
        assertEquals(40, CORE2.counterWidth());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"CPU_CLK_UNHALTED, 0x3C, 0x00, 0, 6000, CYCLES",
        "INST_RETIRED, 0xC0, 0x00, 1, 6000, INSTRUCTIONS",
        "UNHALTED_REFERENCE_CYCLES, 0x3C, 0x01, 2, 6000, CYCLES",
        "LLC_REFS, 0x2E, 0x4F, 3, 6000, L2_REQUESTS",
        "LLC_MISSES, 0x2E, 0x41, 4, 6000, L2_MISSES",
        "BR_INST_RETIRED, 0xC4, 0x00, 5, 500, BRANCHES",
        "BR_MISS_PRED_RETIRED, 0xC5, 0x00, 6, 500, BRANCH_MISSES"})
    void archPerfmonHasTheSevenArchitecturalEvents(String name, String code, String umask, int filter, long min,
            Signal signal) {
        EventDescriptor e = ARCH.events().find(name).orElseThrow();
        assertEquals(Integer.decode(code), e.code());
        assertEquals(Long.decode(umask), e.unitMask().defaultValue());
        assertEquals(min, e.minimumCount());
        assertEquals(signal, e.signal());
        assertEquals("0,1,2,3,4,5,6,7", e.countersText(), "counters:cpuid, cut to the CPU's count by allocate");
        // The filter bit: with only that EBX bit set, the event alone is missing.
        IntelArchPmuModel m = (IntelArchPmuModel) ARCH.createPmu(0, Map.of("cpuid.ebx", Integer.toString(1 << filter)))
                .model();
        assertFalse(m.available(e));
        assertEquals(7, ARCH.events().events().size());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"CPU_CLK_UNHALTED, 0x3C, '0,1', 6000, 0x00",
        "INST_RETIRED_ANY_P, 0xC0, '0,1', 6000, 0x00",
        "INST_RETIRED, 0xC0, '0,1', 6000, 0x00",
        "UOPS_RETIRED, 0xC2, '0,1', 6000, 0x0F",
        "L2_RQSTS, 0x2E, '0,1', 500, 0x7F",
        "LLC_MISSES, 0x2E, '0,1', 6000, 0x41",
        "LLC_REFS, 0x2E, '0,1', 6000, 0x4F",
        "L2_LINES_IN, 0x24, '0,1', 500, 0x70",
        "L1D_REPL, 0x45, '0,1', 500, 0x0F",
        "L1I_MISSES, 0x81, '0,1', 500, 0x00",
        "DTLB_MISSES, 0x08, '0,1', 500, 0x0F",
        "ITLB, 0x82, '0,1', 500, 0x12",
        "BR_INST_RETIRED, 0xC4, '0,1', 500, 0x0A",
        "BR_MISS_PRED_RETIRED, 0xC5, '0,1', 500, 0x00",
        "RESOURCE_STALLS, 0xDC, '0,1', 3000, 0x0F",
        "MEM_LOAD_RETIRED, 0xCB, 0, 500, 0x01",
        "ITLB_MISS_RETIRED, 0xC9, 0, 500, 0x00"})
    void core2HasTheEventsOfFacts58(String name, String code, String counters, long min, String umask) {
        EventDescriptor e = CORE2.events().find(name).orElseThrow();
        assertEquals(Integer.decode(code), e.code());
        assertEquals(counters, e.countersText());
        assertEquals(min, e.minimumCount());
        assertEquals(Long.decode(umask), e.unitMask().defaultValue());
    }

    @Test
    void everyEventCountsASignal() {
        for (PmuModel m : List.of(ARCH, CORE2)) {
            for (EventDescriptor e : m.events().events()) {
                assertNotNull(e.signal(), m.cpuType() + " " + e.name());
                assertTrue(e.description().length() > 0, e.name());
            }
        }
    }

    @Test
    void core2DoesNotFilterEventsByCpuid() throws Exception {
        PmuModel noBranches = CORE2.createPmu(0, Map.of("cpuid.ebx", "0x7f")).model();
        assertEquals(1, noBranches.allocate(List.of(org.hyperprof.api.pmu.EventSpec.parse("BR_INST_RETIRED:500")))
                .length, "OProfile's core_2 table has no filter: fields");
    }

    @Test
    void aFilterFieldThatIsNoArchitecturalEventIsAMalformedTable() {
        EventTableException e = assertThrows(EventTableException.class, () -> ArchEventData.filterBits("t/events",
                new StringReader("event:0x3c counters:0 um:zero minimum:1 filter:9 name:X signal:CYCLES : x\n")));
        assertEquals(1, e.line());
        assertTrue(e.getMessage().contains("filter:9"), e.getMessage());
    }
}
