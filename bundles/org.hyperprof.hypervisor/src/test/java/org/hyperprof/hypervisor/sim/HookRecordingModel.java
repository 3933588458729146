package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.testing.pmu.ForwardingPmu;

/**
 * A real model whose PMUs record what the engine tells them besides counting: the program counter
 * before each stretch of code, interrupts taken and returns from interrupt. Everything else is the
 * wrapped model's.
 */
final class HookRecordingModel extends AbstractPmuModel {
    private final PmuModel model;
    /** Per call, in order: "pc" (setProgramCounter), "advance", "ack", "rfi". */
    final List<String> calls = new ArrayList<>();
    /** Every program counter the engine gave. */
    final List<Long> pcs = new ArrayList<>();
    /** advance calls that came without a setProgramCounter since the previous advance. */
    int advancesWithoutPc;

    HookRecordingModel(PmuModel model) {
        super(model.cpuType(), model.displayName(), model.counterCount(), model.counterWidth(), model.events(),
                model.defaultEvent());
        this.model = model;
    }

    long count(String call) {
        return calls.stream().filter(call::equals).count();
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        return model.allocate(specs);
    }

    @Override
    public long ibsCapabilities() {
        return model.ibsCapabilities();
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        PmuModel self = this;
        return new ForwardingPmu(model.createPmu(cpu, options)) {
            private boolean pcGiven;

            @Override
            public PmuModel model() {
                return self;
            }

            @Override
            public void advance(long cycles, SignalRates rates, int cpl) {
                if (!pcGiven) {
                    advancesWithoutPc++;
                }
                pcGiven = false;
                calls.add("advance");
                super.advance(cycles, rates, cpl);
            }

            @Override
            public void acknowledgeInterrupt() {
                calls.add("ack");
                super.acknowledgeInterrupt();
            }

            @Override
            public void setProgramCounter(long pc) {
                pcGiven = true;
                calls.add("pc");
                pcs.add(pc);
                super.setProgramCounter(pc);
            }

            @Override
            public void returnFromInterrupt() {
                calls.add("rfi");
                super.returnFromInterrupt();
            }
        };
    }
}
