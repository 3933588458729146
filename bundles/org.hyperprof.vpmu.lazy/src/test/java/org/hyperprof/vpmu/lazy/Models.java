package org.hyperprof.vpmu.lazy;

import java.util.stream.Stream;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;

/** The real models the tests run on, and the select words and rates they use. */
record Models(String name, PmuModel model, int instCode, int clkCode, String instName, int[] counters,
        int[] controls) {
    Models(String name, PmuModel model, int instCode, int clkCode, String instName) {
        this(name, model, instCode, clkCode, instName, model.createPmu(0, java.util.Map.of()).counterRegisters().clone(),
                model.createPmu(0, java.util.Map.of()).controlRegisters().clone());
    }

    static final Models P6 = new Models("P6", new P6PmuModel(), 0xC0, 0x79, "INST_RETIRED");
    static final Models HAMMER = new Models("AMD hammer", new HammerPmuModel(), 0xC0, 0x76, "RETIRED_INSTRUCTIONS");

    static final long USR = 1L << 16;
    static final long OS = 1L << 17;
    static final long INT = 1L << 20;
    /** EN: on P6 only PerfEvtSel0's enables (both counters); on AMD each select enables its own counter. */
    static final long EN = 1L << 22;
    /** Masked, as LVT entries come out of reset. */
    static final long LVTPC_POWER_ON = 1L << 16;
    static final int LVTPC = 0x340;

    static Stream<Models> both() {
        return Stream.of(P6, HAMMER);
    }

    @Override
    public String toString() {
        return name;
    }

    int counter(int i) {
        return counters[i];
    }

    int control(int i) {
        return controls[i];
    }

    /** Counters + controls + LVTPC: the registers of one context. */
    int contextSize() {
        return 2 * model.counterCount() + 1;
    }

    /** A profiler configuration: instructions retired in user mode every {@code count}. */
    CounterConfig userInstructionsEvery(long count) {
        EventDescriptor inst = model.events().find(instName).orElseThrow();
        return new CounterConfig(0, inst, count, 0, false, true);
    }

    /** {@code cycles} CYCLES per 1000 cycles and {@code instructions} INSTRUCTIONS per 1000 cycles. */
    static SignalRates rates(long cycles, long instructions) {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = cycles;
        r[Signal.INSTRUCTIONS.ordinal()] = instructions;
        return SignalRates.of(r);
    }
}
