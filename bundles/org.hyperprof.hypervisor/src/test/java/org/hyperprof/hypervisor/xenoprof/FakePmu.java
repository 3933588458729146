package org.hyperprof.hypervisor.xenoprof;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;

/**
 * A register-free PMU for the Xenoprof tests: it records the driver steps Xenoprof performs and
 * reports scripted overflows from {@link #checkCounters}.
 */
final class FakePmu implements PhysicalPmu {
    private final int cpu;
    private final PmuModel model;
    final List<String> steps = new ArrayList<>();
    CounterConfig[] lastSetup;
    private static final int[] NONE = new int[0];
    private int[] scripted = NONE;
    private int[] always = NONE;
    /** The IBS configurations {@link #setupIbs} received, in order. */
    final List<IbsConfig> ibsSetups = new ArrayList<>();
    /** A configuration {@link #setupIbs} refuses, as a model refuses a period it cannot hold. */
    IbsConfig refusedIbs;
    private static final long[] NO_IBS = new long[0];
    private long[] ibsBlock = NO_IBS;

    FakePmu(int cpu, PmuModel model) {
        this.cpu = cpu;
        this.model = model;
    }

    /** The counters the next {@link #checkCounters} finds overflowed. */
    void overflowNext(int... counters) {
        scripted = counters.clone();
    }

    /** Every {@link #checkCounters} from now on finds these counters overflowed (no allocation per call). */
    void overflowAlways(int... counters) {
        always = counters.clone();
    }

    /** The block the next {@link #checkIbs} finds valid (marker pseudo-PC first). */
    void ibsNext(long... entries) {
        ibsBlock = entries.clone();
    }

    @Override
    public void setupIbs(IbsConfig config) {
        if (config.equals(refusedIbs)) {
            throw new IllegalArgumentException("CPU " + cpu + ": IBS op period " + config.maxCntOp()
                    + " is out of range 16..1048575");
        }
        steps.add("setupIbs");
        ibsSetups.add(config);
    }

    @Override
    public int checkIbs(long[] entries) {
        int n = ibsBlock.length;
        System.arraycopy(ibsBlock, 0, entries, 0, n);
        ibsBlock = NO_IBS;
        return n;
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
        throw new IllegalArgumentException("the fake PMU has no registers (read 0x" + Integer.toHexString(register)
                + ")");
    }

    @Override
    public void write(int register, long value) {
        throw new IllegalArgumentException("the fake PMU has no registers (wrote 0x" + Integer.toHexString(register)
                + ")");
    }

    @Override
    public int[] counterRegisters() {
        return new int[0];
    }

    @Override
    public int[] controlRegisters() {
        return new int[0];
    }

    @Override
    public void reserve() {
        steps.add("reserve");
    }

    @Override
    public void setup(CounterConfig[] configs) {
        steps.add("setup");
        lastSetup = configs.clone();
    }

    @Override
    public void start() {
        steps.add("start");
    }

    @Override
    public void stop() {
        steps.add("stop");
    }

    @Override
    public void release() {
        steps.add("release");
    }

    @Override
    public int checkCounters(OverflowSink sink) {
        int[] now = always.length > 0 ? always : scripted;
        scripted = NONE;
        for (int c : now) {
            sink.overflow(c);
        }
        return now.length;
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
        return scripted.length > 0;
    }

    @Override
    public void acknowledgeInterrupt() {
    }
}
