package org.hyperprof.testing.pmu;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;

/**
 * A PMU with no registers and no counters: the driver steps do nothing, nothing ever overflows and
 * a register access fails. A test extends it to record only what it looks at (the driver steps, the
 * cycles run at each privilege level).
 */
public class RegisterFreePmu implements PhysicalPmu {
    private static final int[] NO_REGISTERS = new int[0];
    private final int cpu;
    private final PmuModel model;

    public RegisterFreePmu(int cpu, PmuModel model) {
        this.cpu = cpu;
        this.model = model;
    }

    @Override
    public int cpu() {
        return cpu;
    }

    @Override
    public PmuModel model() {
        return model;
    }

    @Override
    public long read(int register) {
        throw new IllegalArgumentException("the PMU of CPU " + cpu + " has no registers (read 0x"
                + Integer.toHexString(register) + ")");
    }

    @Override
    public void write(int register, long value) {
        throw new IllegalArgumentException("the PMU of CPU " + cpu + " has no registers (wrote 0x"
                + Integer.toHexString(register) + ")");
    }

    @Override
    public int[] counterRegisters() {
        return NO_REGISTERS;
    }

    @Override
    public int[] controlRegisters() {
        return NO_REGISTERS;
    }

    @Override
    public void reserve() {
    }

    @Override
    public void setup(CounterConfig[] configs) {
    }

    @Override
    public void start() {
    }

    @Override
    public void stop() {
    }

    @Override
    public void release() {
    }

    @Override
    public int checkCounters(OverflowSink sink) {
        return 0;
    }

    @Override
    public long cyclesUntilOverflow(SignalRates rates, int cpl) {
        return Long.MAX_VALUE;
    }

    @Override
    public void advance(long cycles, SignalRates rates, int cpl) {
    }

    @Override
    public boolean interruptPending() {
        return false;
    }

    @Override
    public void acknowledgeInterrupt() {
    }
}
