package org.hyperprof.testing.pmu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * What the SPI promises of every {@link PmuModel} and the {@link PhysicalPmu}s it makes, checked for
 * each model a bundle offers: a model bundle's test extends this class and names its models. The
 * rules are those the hypervisor and the policies rely on without knowing the model.
 */
public abstract class PmuModelContract {

    /** The models under test, each as its bundle registers it. */
    protected abstract List<PmuModel> models();

    @TestFactory
    Stream<DynamicContainer> everyModelKeepsTheContract() {
        return models().stream().map(model -> DynamicContainer.dynamicContainer(model.cpuType(), Stream.of(
                DynamicTest.dynamicTest("it is known by the cpu.type its component states, and says that name",
                        () -> knownByTheCpuTypeItRegistersWith(model)),
                DynamicTest.dynamicTest("a PMU knows its CPU and model", () -> knowsItsCpuAndModel(model)),
                DynamicTest.dynamicTest("one counter register per counter, every register distinct and readable",
                        () -> registersAreDistinctAndReadable(model)),
                DynamicTest.dynamicTest("release restores what reserve saved, whatever setup wrote",
                        () -> releaseRestoresWhatReserveSaved(model)),
                DynamicTest.dynamicTest("setup without configurations is refused before any register changes",
                        () -> setupOfNothingIsRefused(model)),
                DynamicTest.dynamicTest("with no counter configured nothing overflows or interrupts",
                        () -> nothingConfiguredNothingOverflows(model)),
                DynamicTest.dynamicTest("a counter of cycles overflows when the simulation says, once, and is re-armed",
                        () -> aCycleCounterOverflowsWhenForecast(model)))));
    }

    private static void aCycleCounterOverflowsWhenForecast(PmuModel model) {
        EventDescriptor cycles = model.events().events().stream().filter(e -> e.signal() == Signal.CYCLES)
                .findFirst().orElseThrow(() -> new AssertionError(model.cpuType() + " has no event of cycles"));
        int counter = IntStream.range(0, model.counterCount()).filter(cycles::canUseCounter).findFirst()
                .orElseThrow();
        long count = Math.max(cycles.minimumCount(), 100_000);
        long mask = cycles.unitMask() == null ? 0 : cycles.unitMask().defaultValue();
        CounterConfig[] configs = new CounterConfig[model.counterCount()];
        configs[counter] = new CounterConfig(counter, cycles, count, mask, true, true);
        PhysicalPmu pmu = model.createPmu(0, Map.of());
        pmu.reserve();
        pmu.setup(configs);
        pmu.start();
        SignalRates busy = busy();
        long forecast = pmu.cyclesUntilOverflow(busy, 3);
        assertTrue(forecast > 0 && forecast < Long.MAX_VALUE, "forecast " + forecast);
        pmu.advance(forecast, busy, 3);
        assertTrue(pmu.interruptPending(), "the overflow interrupts");
        int[] reported = new int[model.counterCount()];
        assertEquals(1, pmu.checkCounters(c -> reported[c]++));
        assertEquals(1, reported[counter]);
        assertTrue(pmu.cyclesUntilOverflow(busy, 3) > 0, "re-armed");
        pmu.stop();
        pmu.release();
    }

    private static SignalRates busy() {
        long[] rates = new long[Signal.COUNT];
        rates[Signal.CYCLES.ordinal()] = 1000;
        rates[Signal.INSTRUCTIONS.ordinal()] = 800;
        return SignalRates.of(rates);
    }

    private static void knownByTheCpuTypeItRegistersWith(PmuModel model) {
        PmuModel.CpuType stated = model.getClass().getAnnotation(PmuModel.CpuType.class);
        assertNotNull(stated, model.getClass().getName() + " states its cpu.type with @PmuModel.CpuType");
        // What a host binds the model under: the property DS registers from that statement.
        String identity = PmuModel.IDENTITY.of(Map.of(PmuModel.CPU_TYPE, stated.value()), model);
        assertEquals(identity, model.cpuType(), "XENOPROF_init's cpu_type is the name the host found the model by");
        assertEquals(identity, model.createPmu(0, Map.of()).model().cpuType(), "the CPUs it makes say the same");
    }

    private static void knowsItsCpuAndModel(PmuModel model) {
        for (int cpu : new int[] {0, 3}) {
            PhysicalPmu pmu = model.createPmu(cpu, Map.of());
            assertEquals(cpu, pmu.cpu());
            assertSame(model, pmu.model());
        }
    }

    private static void registersAreDistinctAndReadable(PmuModel model) {
        PhysicalPmu pmu = model.createPmu(0, Map.of());
        assertEquals(model.counterCount(), pmu.counterRegisters().length);
        Set<Integer> seen = new HashSet<>();
        for (int r : all(pmu)) {
            assertTrue(seen.add(r), "register 0x" + Integer.toHexString(r) + " is listed twice");
            pmu.read(r);
        }
    }

    private static void releaseRestoresWhatReserveSaved(PmuModel model) {
        PhysicalPmu pmu = model.createPmu(0, Map.of());
        int[] registers = all(pmu);
        long[] before = IntStream.of(registers).mapToLong(pmu::read).toArray();
        pmu.reserve();
        pmu.setup(new CounterConfig[model.counterCount()]);
        pmu.release();
        assertArrayEquals(before, IntStream.of(registers).mapToLong(pmu::read).toArray());
    }

    private static void setupOfNothingIsRefused(PmuModel model) {
        PhysicalPmu pmu = model.createPmu(0, Map.of());
        int[] registers = all(pmu);
        long[] before = IntStream.of(registers).mapToLong(pmu::read).toArray();
        pmu.reserve();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.setup(null));
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "the refusal says why");
        assertArrayEquals(before, IntStream.of(registers).mapToLong(pmu::read).toArray());
    }

    private static void nothingConfiguredNothingOverflows(PmuModel model) {
        PhysicalPmu pmu = model.createPmu(0, Map.of());
        pmu.reserve();
        pmu.setup(new CounterConfig[model.counterCount()]);
        pmu.start();
        SignalRates busy = busy();
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(busy, 3));
        pmu.advance(10_000_000, busy, 3);
        assertFalse(pmu.interruptPending());
        assertEquals(0, pmu.checkCounters(counter -> { }));
        pmu.stop();
        pmu.release();
    }

    private static int[] all(PhysicalPmu pmu) {
        return IntStream.concat(IntStream.concat(IntStream.of(pmu.counterRegisters()),
                IntStream.of(pmu.controlRegisters())), IntStream.of(pmu.interruptRegisters())).toArray();
    }
}
