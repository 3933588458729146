package org.hyperprof.testing.pmu;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;

/**
 * A PMU that hands every call to another, a real one: a test extends it to see the calls it cares
 * about (register accesses, the engine's hooks) and leaves the counting to the real PMU.
 */
public class ForwardingPmu implements PhysicalPmu {
    /** The PMU every call goes to. */
    public final PhysicalPmu real;

    public ForwardingPmu(PhysicalPmu real) {
        this.real = real;
    }

    @Override
    public int cpu() {
        return real.cpu();
    }

    @Override
    public PmuModel model() {
        return real.model();
    }

    @Override
    public long read(int register) {
        return real.read(register);
    }

    @Override
    public void write(int register, long value) {
        real.write(register, value);
    }

    @Override
    public int[] counterRegisters() {
        return real.counterRegisters();
    }

    @Override
    public int[] controlRegisters() {
        return real.controlRegisters();
    }

    @Override
    public int[] interruptRegisters() {
        return real.interruptRegisters();
    }

    @Override
    public void reserve() {
        real.reserve();
    }

    @Override
    public void setup(CounterConfig[] configs) {
        real.setup(configs);
    }

    @Override
    public void start() {
        real.start();
    }

    @Override
    public void stop() {
        real.stop();
    }

    @Override
    public void release() {
        real.release();
    }

    @Override
    public int checkCounters(OverflowSink sink) {
        return real.checkCounters(sink);
    }

    @Override
    public long cyclesUntilOverflow(SignalRates rates, int cpl) {
        return real.cyclesUntilOverflow(rates, cpl);
    }

    @Override
    public void advance(long cycles, SignalRates rates, int cpl) {
        real.advance(cycles, rates, cpl);
    }

    @Override
    public boolean interruptPending() {
        return real.interruptPending();
    }

    @Override
    public void acknowledgeInterrupt() {
        real.acknowledgeInterrupt();
    }

    @Override
    public boolean gatedByExternalInterruptEnable() {
        return real.gatedByExternalInterruptEnable();
    }

    @Override
    public long sampledAddress() {
        return real.sampledAddress();
    }

    @Override
    public int sampledCpl() {
        return real.sampledCpl();
    }

    @Override
    public boolean alertPending() {
        return real.alertPending();
    }

    @Override
    public void setProgramCounter(long pc) {
        real.setProgramCounter(pc);
    }

    @Override
    public void returnFromInterrupt() {
        real.returnFromInterrupt();
    }

    @Override
    public void setupIbs(IbsConfig config) {
        real.setupIbs(config);
    }

    @Override
    public int checkIbs(long[] entries) {
        return real.checkIbs(entries);
    }
}
