package org.hyperprof.testing.vpmu.truth;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;

/**
 * A real model's register file that counts the register reads and writes made through it, and
 * logs which registers were read (in a primitive array, so logging allocates nothing).
 */
public final class CountingPmu implements PhysicalPmu {
    public final PhysicalPmu real;
    public long reads;
    public long writes;
    public final int[] readLog = new int[1 << 12];
    public int readLogged;

    public CountingPmu(PhysicalPmu real) {
        this.real = real;
    }

    public long accesses() {
        return reads + writes;
    }

    @Override public int cpu() { return real.cpu(); }
    @Override public PmuModel model() { return real.model(); }
    @Override
    public long read(int register) {
        if (readLogged < readLog.length) {
            readLog[readLogged] = register;
        }
        readLogged++;
        reads++;
        return real.read(register);
    }

    /** Forgets the registers read so far. */
    public void clearReadLog() {
        readLogged = 0;
    }

    /** Whether every register read since the last clear is one of {@code allowed}. */
    public boolean readOnly(int[] allowed) {
        for (int k = 0; k < Math.min(readLogged, readLog.length); k++) {
            boolean ok = false;
            for (int a : allowed) {
                ok |= readLog[k] == a;
            }
            if (!ok) {
                return false;
            }
        }
        return true;
    }
    @Override public void write(int register, long value) { writes++; real.write(register, value); }
    @Override public int[] counterRegisters() { return real.counterRegisters(); }
    @Override public int[] controlRegisters() { return real.controlRegisters(); }
    @Override public int[] interruptRegisters() { return real.interruptRegisters(); }
    @Override public void reserve() { real.reserve(); }
    @Override public void setup(CounterConfig[] configs) { real.setup(configs); }
    @Override public void start() { real.start(); }
    @Override public void stop() { real.stop(); }
    @Override public void release() { real.release(); }
    @Override public int checkCounters(OverflowSink sink) { return real.checkCounters(sink); }
    @Override public long cyclesUntilOverflow(SignalRates rates, int cpl) { return real.cyclesUntilOverflow(rates, cpl); }
    @Override public void advance(long cycles, SignalRates rates, int cpl) { real.advance(cycles, rates, cpl); }
    @Override public boolean interruptPending() { return real.interruptPending(); }
    @Override public void acknowledgeInterrupt() { real.acknowledgeInterrupt(); }
}
