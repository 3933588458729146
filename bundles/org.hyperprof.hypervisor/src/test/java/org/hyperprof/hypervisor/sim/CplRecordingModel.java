package org.hyperprof.hypervisor.sim;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.kit.AbstractPmuModel;

/**
 * A test model whose PMUs have no counters: they only record, per CPL, the unhalted cycles the
 * engine ran, so that tests can see at which privilege each kind of code runs.
 */
final class CplRecordingModel extends AbstractPmuModel {
    final long[] unhaltedByCpl = new long[4];

    CplRecordingModel(String cpuType) {
        super(cpuType, "CPL recorder", 0, 40, EventTable.of(List.of(), Map.of()), "");
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        throw new EventSpecException("the CPL recorder has no counters");
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        PmuModel model = this;
        return new PhysicalPmu() {
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
                throw new IllegalArgumentException("no register " + register);
            }

            @Override
            public void write(int register, long value) {
                throw new IllegalArgumentException("no register " + register);
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
                if (rates.perKilocycle(Signal.CYCLES) > 0) {
                    unhaltedByCpl[cpl] += cycles;
                }
            }

            @Override
            public boolean interruptPending() {
                return false;
            }

            @Override
            public void acknowledgeInterrupt() {
            }
        };
    }
}
