package org.hyperprof.pmu.x86_64;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/** Shared wiring for the architectural perfmon tests: the two models (read once per JVM) and rates. */
final class ArchFixture {
    static final ArchPerfmonPmuModel ARCH = new ArchPerfmonPmuModel();
    static final Core2PmuModel CORE2 = new Core2PmuModel();

    /** Architectural event codes. */
    static final long CLK = 0x3C;
    static final long INST = 0xC0;
    static final long LLC = 0x2E;

    private ArchFixture() {
    }

    static ArchPerfmonPmu arch() {
        return (ArchPerfmonPmu) ARCH.createPmu(0, Map.of());
    }

    static ArchPerfmonPmu arch(Map<String, String> options) {
        return (ArchPerfmonPmu) ARCH.createPmu(0, options);
    }

    static ArchPerfmonPmu core2() {
        return (ArchPerfmonPmu) CORE2.createPmu(0, Map.of());
    }

    static ArchPerfmonPmu core2(Map<String, String> options) {
        return (ArchPerfmonPmu) CORE2.createPmu(0, options);
    }

    static CounterConfig[] configs(PmuModel model, String... specs) throws EventSpecException {
        List<EventSpec> parsed = new ArrayList<>();
        for (String s : specs) {
            parsed.add(EventSpec.parse(s));
        }
        return model.allocate(parsed);
    }

    /** Rates where {@code signal} is emitted at {@code perKilocycle} events per 1000 cycles, nothing else. */
    static SignalRates rates(Signal signal, long perKilocycle) {
        long[] r = new long[Signal.COUNT];
        r[signal.ordinal()] = perKilocycle;
        return SignalRates.of(r);
    }

    /** Every signal at one event per cycle: cycles and events coincide for every counter. */
    static SignalRates onePerCycle() {
        long[] r = new long[Signal.COUNT];
        java.util.Arrays.fill(r, 1000);
        return SignalRates.of(r);
    }

    /** The same configuration with another sampling period. */
    static CounterConfig withCount(CounterConfig c, long count) {
        return new CounterConfig(c.counter(), c.event(), count, c.unitMask(), c.kernel(), c.user());
    }

    /** The same configuration on another counter. */
    static CounterConfig onCounter(CounterConfig c, int counter) {
        return new CounterConfig(counter, c.event(), c.count(), c.unitMask(), c.kernel(), c.user());
    }
}
