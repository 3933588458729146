package org.hyperprof.testing.vpmu;

import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.x86.LocalApicLvtpc;
import org.hyperprof.pmu.x86.PerfEvtSelFields;

/**
 * A real model a policy test runs on, with the select words and event names the test programs it
 * with, and the x86 select bits and rates those tests share. The model bundles are each test's own
 * dependencies, not this bundle's, so that the model bundles may use this one in their tests; the
 * select bits are the x86 driver kit's own (a kit, not a model).
 */
public record TestedModel(String name, PmuModel model, int instCode, int clkCode, String instName, int[] counters,
        int[] controls) {
    public TestedModel(String name, PmuModel model, int instCode, int clkCode, String instName) {
        this(name, model, instCode, clkCode, instName, model.createPmu(0, Map.of()).counterRegisters().clone(),
                model.createPmu(0, Map.of()).controlRegisters().clone());
    }

    // The select bits and the LVTPC entry as the x86 driver kit defines them (the P6 layout, which AMD shares).
    public static final long USR = PerfEvtSelFields.EVTSEL_USR;
    public static final long OS = PerfEvtSelFields.EVTSEL_OS;
    public static final long INT = PerfEvtSelFields.EVTSEL_INT;
    /** EN: on P6 only PerfEvtSel0's enables (both counters); on AMD each select enables its own counter. */
    public static final long EN = PerfEvtSelFields.EVTSEL_EN;
    /** Masked, as LVT entries come out of reset. */
    public static final long LVTPC_POWER_ON = LocalApicLvtpc.POWER_ON;
    public static final int LVTPC = LocalApicLvtpc.OFFSET;

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
