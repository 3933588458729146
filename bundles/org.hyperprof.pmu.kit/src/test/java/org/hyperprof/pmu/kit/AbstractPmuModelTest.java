package org.hyperprof.pmu.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.junit.jupiter.api.Test;

/**
 * A family of models that differ only in a row of a table: each member states its cpu_type and
 * nothing else, and the family's base finds the member's row by it.
 */
class AbstractPmuModelTest {
    private record Part(String displayName, int counters) {
    }

    private static final Map<String, Part> PARTS = Map.of(
            "test/small", new Part("Small", 2),
            "test/large", new Part("Large", 8));

    private abstract static class TestFamily extends AbstractPmuModel {
        final Part part;

        TestFamily() {
            super(TestFamily::definition);
            this.part = details(Part.class);
        }

        /** A model described with the explicit constructor, outside the family's table. */
        TestFamily(String cpuType) {
            super(cpuType, "Explicit", 2, 40, table(cpuType), "CPU_CLK_UNHALTED:6000:0:1:1");
            this.part = null;
        }

        private static Definition<Part> definition(String cpuType) {
            Part part = member(PARTS, cpuType);
            return new Definition<>(part, part.displayName(), part.counters(), 48, table(cpuType),
                    "CPU_CLK_UNHALTED:6000:0:1:1");
        }

        /** Places events on the counters the row describes. */
        @Override
        public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
            return new CounterAllocator(events(), cpuType(), displayName(), defaultEvent(), counterCount(), 1L << 31,
                    "a test limit").allocate(specs);
        }

        @Override
        protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
            throw new UnsupportedOperationException("these tests check the description only");
        }
    }

    @PmuModel.CpuType("test/small")
    private static final class Small extends TestFamily {
    }

    @PmuModel.CpuType("test/large")
    private static final class Large extends TestFamily {
    }

    @PmuModel.CpuType("test/medium")
    private static final class NotInTheTable extends TestFamily {
    }

    private static final class Unstated extends TestFamily {
    }

    private static final class Explicit extends TestFamily {
        Explicit() {
            super("test/explicit");
        }
    }

    private static EventTable table(String cpuType) {
        try {
            return EventTableReader.parse(cpuType,
                    new StringReader("event:0x79 counters:0,1 um:zero minimum:6000 name:CPU_CLK_UNHALTED signal:CYCLES"
                            + " : clocks\n"),
                    new StringReader("name:zero type:mandatory default:0x0\n\t0x0 No unit mask\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aMemberIsKnownByTheCpuTypeItStatesAndDescribedByItsRow() throws EventSpecException {
        Large large = new Large();
        assertEquals("test/large", large.cpuType());
        assertEquals("Large", large.displayName());
        assertEquals(8, large.counterCount());
        assertEquals(48, large.counterWidth());
        assertEquals("CPU_CLK_UNHALTED:6000:0:1:1", large.defaultEvent());
        assertSame(PARTS.get("test/large"), large.part, "the family's base takes back the row it was described by");
        assertEquals(1, large.allocate(List.of(EventSpec.parse(large.defaultEvent()))).length);
        Small small = new Small();
        assertEquals("test/small", small.cpuType());
        assertEquals(2, small.counterCount());
    }

    @Test
    void aModelThatStatesNoCpuTypeIsRefusedSayingHowToStateIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, Unstated::new);
        assertTrue(e.getMessage().startsWith(Unstated.class.getName() + " states no cpu_type"), e.getMessage());
        assertTrue(e.getMessage().contains("@PmuModel.CpuType(\"<cpu_type>\")"), e.getMessage());
    }

    @Test
    void aCpuTypeTheFamilyHasNoRowForIsRefusedNamingItsModels() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NotInTheTable::new);
        assertEquals("no model of this family has cpu_type test/medium; its models are [test/large, test/small]",
                e.getMessage());
    }

    @Test
    void aModelDescribedExplicitlyHasNoRowToTakeBack() {
        Explicit explicit = new Explicit();
        assertEquals("test/explicit", explicit.cpuType());
        assertThrows(IllegalStateException.class, () -> explicit.details(Part.class));
    }
}
