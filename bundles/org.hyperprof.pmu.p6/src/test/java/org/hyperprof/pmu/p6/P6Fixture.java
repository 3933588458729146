package org.hyperprof.pmu.p6;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/** Shared wiring for the P6 tests: one model (the table is read once per test class) and rates. */
final class P6Fixture {
    /** CPU_CLK_UNHALTED's event code. */
    static final long CLK = 0x79;
    /** INST_RETIRED's event code. */
    static final long INST = 0xC0;
    static final long TWO_TO_40 = 1L << 40;

    final P6PmuModel model = new P6PmuModel();

    P6Pmu pmu() {
        return (P6Pmu) model.createPmu(0, Map.of());
    }

    P6Pmu pmu(Map<String, String> options) {
        return (P6Pmu) model.createPmu(0, options);
    }

    CounterConfig[] configs(String... specs) throws EventSpecException {
        EventSpec[] parsed = new EventSpec[specs.length];
        for (int i = 0; i < specs.length; i++) {
            parsed[i] = EventSpec.parse(specs[i]);
        }
        return model.allocate(List.of(parsed));
    }

    /** Rates where {@code signal} is emitted at {@code perKilocycle} events per 1000 cycles, nothing else. */
    static SignalRates rates(Signal signal, long perKilocycle) {
        long[] r = new long[Signal.COUNT];
        r[signal.ordinal()] = perKilocycle;
        return SignalRates.of(r);
    }

    /** One event per cycle of both CYCLES and INSTRUCTIONS: cycles and events coincide. */
    static SignalRates onePerCycle() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 1000;
        return SignalRates.of(r);
    }

    /** The same configuration on another counter. */
    static CounterConfig onCounter(CounterConfig c, int counter) {
        return new CounterConfig(counter, c.event(), c.count(), c.unitMask(), c.kernel(), c.user());
    }

    /** The same configuration with another sampling period. */
    static CounterConfig withCount(CounterConfig c, long count) {
        return new CounterConfig(c.counter(), c.event(), count, c.unitMask(), c.kernel(), c.user());
    }

    private P6Fixture() {
    }

    static P6Fixture create() {
        return new P6Fixture();
    }
}
