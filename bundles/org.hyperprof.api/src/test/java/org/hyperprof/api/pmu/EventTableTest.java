package org.hyperprof.api.pmu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The event table as a value: file order kept, names unique, every event's unit mask in the table. */
class EventTableTest {
    private static final UnitMask ZERO = new UnitMask("zero", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "none")));
    private static final EventDescriptor CYCLES = new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 0b11, 6000, ZERO,
            Signal.CYCLES, "cycles");
    private static final EventDescriptor RETIRED = new EventDescriptor("INST_RETIRED", 0xc0, 0b11, 6000, ZERO,
            Signal.INSTRUCTIONS, "instructions");

    @Test
    void keepsTheEventsInTheirOrderAndFindsThemByName() {
        EventTable t = EventTable.of(List.of(RETIRED, CYCLES), Map.of("zero", ZERO));
        assertEquals(List.of(RETIRED, CYCLES), t.events());
        assertEquals(CYCLES, t.find("CPU_CLK_UNHALTED").orElseThrow());
        assertTrue(t.find("cpu_clk_unhalted").isEmpty());
        assertEquals("INST_RETIRED, CPU_CLK_UNHALTED", t.namesText());
        assertEquals(Map.of("zero", ZERO), t.unitMasks());
    }

    @Test
    void refusesAnEventTwice() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventTable.of(List.of(CYCLES, CYCLES), Map.of("zero", ZERO)));
        assertEquals("event CPU_CLK_UNHALTED is in the table twice", e.getMessage());
    }

    @Test
    void refusesAnEventWhoseUnitMaskIsNotInTheTable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventTable.of(List.of(CYCLES), Map.of()));
        assertEquals("event CPU_CLK_UNHALTED has unit mask zero, which is not among the table's unit masks []",
                e.getMessage());
    }

    @Test
    void cannotBeChangedThroughWhatItHandsOut() {
        EventTable t = EventTable.of(List.of(CYCLES), Map.of("zero", ZERO));
        assertThrows(UnsupportedOperationException.class, () -> t.unitMasks().clear());
        assertThrows(UnsupportedOperationException.class, () -> t.events().clear());
    }
}
