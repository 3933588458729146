package org.hyperprof.testing.vpmu;

import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/**
 * A real model a policy test runs on, with the select words and event names the test programs it
 * with, and the x86 select bits and rates those tests share. The model bundles are each test's own
 * dependencies, not this bundle's, so that the model bundles may use this one in their tests.
 */
public record TestedModel(String name, PmuModel model, int instCode, int clkCode, String instName, int[] counters,
        int[] controls) {
    public TestedModel(String name, PmuModel model, int instCode, int clkCode, String instName) {
        this(name, model, instCode, clkCode, instName, model.createPmu(0, Map.of()).counterRegisters().clone(),
                model.createPmu(0, Map.of()).controlRegisters().clone());
    }

    public static final long USR = 1L << 16;
    public static final long OS = 1L << 17;
    public static final long INT = 1L << 20;
    /** EN: on P6 only PerfEvtSel0's enables (both counters); on AMD each select enables its own counter. */
    public static final long EN = 1L << 22;
    /** Masked, as LVT entries come out of reset. */
    public static final long LVTPC_POWER_ON = 1L << 16;
    public static final int LVTPC = 0x340;

    @Override
    public String toString() {
        return name;
    }

    public int counter(int i) {
        return counters[i];
    }

    public int control(int i) {
        return controls[i];
    }

    /** Counters + controls + LVTPC: the registers of one context. */
    public int contextSize() {
        return 2 * model.counterCount() + 1;
    }

    /** A profiler configuration: instructions retired in user mode every {@code count}. */
    public CounterConfig userInstructionsEvery(long count) {
        EventDescriptor inst = model.events().find(instName).orElseThrow();
        return new CounterConfig(0, inst, count, 0, false, true);
    }

    /** {@code cycles} CYCLES per 1000 cycles and {@code instructions} INSTRUCTIONS per 1000 cycles. */
    public static SignalRates rates(long cycles, long instructions) {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = cycles;
        r[Signal.INSTRUCTIONS.ordinal()] = instructions;
        return SignalRates.of(r);
    }
}
