package org.hyperprof.hypervisor.sim;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.testing.pmu.RegisterFreePmu;

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
        return new RegisterFreePmu(cpu, this) {
            @Override
            public void advance(long cycles, SignalRates rates, int cpl) {
                if (rates.perKilocycle(Signal.CYCLES) > 0) {
                    unhaltedByCpl[cpl] += cycles;
                }
            }
        };
    }
}
