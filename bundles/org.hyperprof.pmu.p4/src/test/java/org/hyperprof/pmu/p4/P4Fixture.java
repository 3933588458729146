package org.hyperprof.pmu.p4;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/** Shared wiring for the Pentium 4 tests: the two models (read once per JVM), register numbers, rates. */
final class P4Fixture {
    static final Pentium4PmuModel P4 = new Pentium4PmuModel();
    static final Pentium4HtPmuModel P4_HT = new Pentium4HtPmuModel();

    // Registers used throughout.
    static final int FSB_ESCR0 = 0x3A2;
    static final int FSB_ESCR1 = 0x3A3;
    static final int CRU_ESCR0 = 0x3B8;
    static final int CRU_ESCR1 = 0x3B9;
    static final int BSU_ESCR0 = 0x3A0;
    static final int BSU_ESCR1 = 0x3A1;
    static final int IQ_ESCR0 = 0x3BA;

    /** GLOBAL_POWER_EVENTS on the FSB ESCRs: event select 0x13, mask 0x01 (running). */
    static final long GPE_T0_ALL = (0x13L << 25) | (0x1L << 9) | 0b1100;
    /** CCCR: Enable, ESCR-select 6 (FSB), active thread 11b. */
    static final long CCCR_FSB_ENABLED = (1L << 12) | (6L << 13) | (3L << 16);

    private P4Fixture() {
    }

    static P4Pmu p4() {
        return (P4Pmu) P4.createPmu(0, Map.of());
    }

    static P4Pmu ht(int cpu) {
        return (P4Pmu) P4_HT.createPmu(cpu, Map.of());
    }

    static CounterConfig[] configs(PmuModel model, String... specs) throws EventSpecException {
        List<EventSpec> parsed = new ArrayList<>();
        for (String s : specs) {
            parsed.add(EventSpec.parse(s));
        }
        return model.allocate(parsed);
    }

    /** A configuration naming OProfile P4 event number {@code number}, as Xen would get it from a guest. */
    static CounterConfig raw(CounterConfig like, int number) {
        var e = like.event();
        var d = new org.hyperprof.api.pmu.EventDescriptor("event " + number, number, e.counterMask(), 0,
                e.unitMask(), null, "raw event number");
        return new CounterConfig(like.counter(), d, like.count(), like.unitMask(), like.kernel(), like.user());
    }

    static CounterConfig onCounter(CounterConfig c, int counter) {
        return new CounterConfig(counter, c.event(), c.count(), c.unitMask(), c.kernel(), c.user());
    }

    static CounterConfig withCount(CounterConfig c, long count) {
        return new CounterConfig(c.counter(), c.event(), count, c.unitMask(), c.kernel(), c.user());
    }

    static SignalRates rates(Signal signal, long perKilocycle) {
        long[] r = new long[Signal.COUNT];
        r[signal.ordinal()] = perKilocycle;
        return SignalRates.of(r);
    }

    /** Every signal at one event per cycle. */
    static SignalRates onePerCycle() {
        long[] r = new long[Signal.COUNT];
        Arrays.fill(r, 1000);
        return SignalRates.of(r);
    }
}
