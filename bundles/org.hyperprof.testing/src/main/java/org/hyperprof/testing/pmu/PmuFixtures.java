package org.hyperprof.testing.pmu;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/** What every PMU model's tests build their cases from: configurations as OProfile's specs give them, and rates. */
public final class PmuFixtures {
    private PmuFixtures() {
    }

    /** A model's identity as one line: its cpu_type, the name opreport prints, its counters and their width. */
    public static String identity(PmuModel model) {
        return model.cpuType() + " \"" + model.displayName() + "\": " + model.counterCount() + " counters of "
                + model.counterWidth() + " bits";
    }

    /** The model's allocation of the OProfile event specs ({@code EVENT:count:unitmask:kernel:user}). */
    public static CounterConfig[] configs(PmuModel model, String... specs) throws EventSpecException {
        List<EventSpec> parsed = new ArrayList<>();
        for (String s : specs) {
            parsed.add(EventSpec.parse(s));
        }
        return model.allocate(parsed);
    }

    /** The message of the error the model's allocation of the OProfile event specs fails with. */
    public static String rejection(PmuModel model, String... specs) {
        return assertThrows(EventSpecException.class, () -> configs(model, specs)).getMessage();
    }

    /** What a read of {@code register} returns right after {@code value} was written to it. */
    public static long afterWrite(PhysicalPmu pmu, int register, long value) {
        pmu.write(register, value);
        return pmu.read(register);
    }

    /** Rates where {@code signal} is emitted at {@code perKilocycle} events per 1000 cycles, nothing else. */
    public static SignalRates rates(Signal signal, long perKilocycle) {
        long[] r = new long[Signal.COUNT];
        r[signal.ordinal()] = perKilocycle;
        return SignalRates.of(r);
    }

    /** One cycle and one instruction per cycle: cycles and events coincide. */
    public static SignalRates onePerCycle() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 1000;
        return SignalRates.of(r);
    }

    /** The same configuration on another counter. */
    public static CounterConfig onCounter(CounterConfig c, int counter) {
        return new CounterConfig(counter, c.event(), c.count(), c.unitMask(), c.kernel(), c.user());
    }

    /** The same configuration with another sampling period. */
    public static CounterConfig withCount(CounterConfig c, long count) {
        return new CounterConfig(c.counter(), c.event(), count, c.unitMask(), c.kernel(), c.user());
    }
}
