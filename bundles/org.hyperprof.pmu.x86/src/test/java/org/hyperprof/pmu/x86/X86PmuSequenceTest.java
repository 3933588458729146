package org.hyperprof.pmu.x86;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.pmu.UnitMask;
import org.junit.jupiter.api.Test;

/**
 * The order of the driver's register writes, which the models' tests see only through the values
 * left behind: setup clears the controls before it touches a counter, and release writes the
 * controls back before the counters, so no restored counter counts while it is written.
 */
class X86PmuSequenceTest {
    private static final UnitMask NO_MASK = new UnitMask("zero", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "No unit mask")));
    private static final EventDescriptor CYCLES = new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 0b11, 6000, NO_MASK,
            Signal.CYCLES, "cycles");

    /** Two counters (0xC1, 0xC2), their controls (0x186, 0x187) and one further control (0x3A0), logging writes. */
    private static final class RecordingPmu extends X86Pmu {
        final List<String> writes = new ArrayList<>();
        private final Map<Integer, Long> registers = new HashMap<>();

        RecordingPmu() {
            super(0, null, new int[] {0xC1, 0xC2}, new int[] {0x186, 0x187, 0x3A0}, false);
        }

        @Override
        public long read(int register) {
            return register == LocalApicLvtpc.OFFSET ? lvtpc.read() : registers.getOrDefault(register, 0L);
        }

        @Override
        public void write(int register, long value) {
            writes.add(String.format("0x%X=0x%X", register, value));
            if (register == LocalApicLvtpc.OFFSET) {
                lvtpc.write(value);
            } else {
                registers.put(register, value);
            }
        }

        @Override
        protected String countersName() {
            return "the test counters";
        }

        @Override
        protected String counterRange() {
            return "the test PMU has counters 0 and 1";
        }

        @Override
        protected String preloadRule() {
            return "-count through 32 bits";
        }

        @Override
        protected int unitMaskBits() {
            return 8;
        }

        @Override
        protected String unitMaskField() {
            return "unit mask field";
        }

        @Override
        protected String eventMisfit(EventDescriptor event) {
            return null;
        }

        @Override
        protected void clearControls() {
            for (int control : controlRegisters()) {
                write(control, 0);
            }
        }

        @Override
        protected void program(int i, CounterConfig c) {
            write(counterRegisters()[i], -c.count());
            write(controlRegisters()[i], c.event().code());
        }

        @Override
        protected long enableBit() {
            return 1L << 22;
        }

        @Override
        protected boolean overflowed(int i) {
            return false;
        }

        @Override
        protected long cyclesUntilNextOverflow(SignalRates rates, int cpl) {
            return Long.MAX_VALUE;
        }

        @Override
        protected void advanceCounters(long cycles, SignalRates rates, int cpl) {
        }
    }

    private final RecordingPmu pmu = new RecordingPmu();

    @Test
    void setupClearsEveryControlThenWritesMinusOneIntoEveryCounterThenProgramsEachConfiguredCounter() {
        pmu.reserve();
        pmu.setup(new CounterConfig[] {null, new CounterConfig(1, CYCLES, 6000, 0, true, true)});
        assertEquals(List.of("0x186=0x0", "0x187=0x0", "0x3A0=0x0", "0xC1=0xFFFFFFFFFFFFFFFF",
                "0xC2=0xFFFFFFFFFFFFFFFF", "0xC2=0xFFFFFFFFFFFFE890", "0x187=0x79"), pmu.writes);
    }

    @Test
    void releaseWritesBackTheControlsFirstThenTheCountersThenLvtpc() {
        pmu.write(0xC1, 0x11);
        pmu.write(0xC2, 0x22);
        pmu.write(0x186, 0x186);
        pmu.write(0x187, 0x187);
        pmu.write(0x3A0, 0x3A0);
        pmu.write(LocalApicLvtpc.OFFSET, 0x1_00EE);
        pmu.reserve();
        pmu.setup(new CounterConfig[] {new CounterConfig(0, CYCLES, 6000, 0, true, true)});
        pmu.start();
        pmu.stop();
        pmu.writes.clear();

        pmu.release();

        assertEquals(List.of("0x186=0x186", "0x187=0x187", "0x3A0=0x3A0", "0xC1=0x11", "0xC2=0x22", "0x340=0x100EE"),
                pmu.writes);
    }
}
