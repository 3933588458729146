package org.hyperprof.pmu.ppc970;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/** Shared wiring for the PowerPC 970 tests: the model, register programming helpers and rates. */
final class Ppc970Fixture {
    static final int HV = Ppc970Pmu.CPL_HYPERVISOR;
    static final int SUP = Ppc970Pmu.CPL_SUPERVISOR;
    static final int PR = Ppc970Pmu.CPL_PROBLEM_STATE;
    static final int CYC = Ppc970Registers.SEL_CYCLES;
    static final int INST = Ppc970Registers.SEL_INSTRUCTIONS;
    static final int NOTHING = Ppc970Registers.SEL_NOTHING;
    /** MMCR0 with PMC1SEL and PMC2SEL both "cycles". */
    static final long MMCR0_CYCLES = mmcr0Selectors(CYC, CYC);
    /** MMCR1 with PMC3SEL..PMC8SEL all "cycles". */
    static final long MMCR1_CYCLES = mmcr1Selectors(CYC, CYC, CYC, CYC, CYC, CYC);

    final Ppc970PmuModel model = new Ppc970PmuModel();

    Ppc970Pmu pmu() {
        return (Ppc970Pmu) model.createPmu(0, Map.of());
    }

    Ppc970Pmu pmu(Map<String, String> options) {
        return (Ppc970Pmu) model.createPmu(0, options);
    }

    /** A PMU whose eight PMCs all count cycles, with {@code extraMmcr0} bits in MMCR0. */
    Ppc970Pmu allCounting(long extraMmcr0) {
        return allCounting(Map.of(), extraMmcr0);
    }

    Ppc970Pmu allCounting(Map<String, String> options, long extraMmcr0) {
        Ppc970Pmu pmu = pmu(options);
        pmu.write(Ppc970Registers.MMCR1, MMCR1_CYCLES);
        pmu.write(Ppc970Registers.MMCR0, MMCR0_CYCLES | extraMmcr0);
        return pmu;
    }

    CounterConfig[] configs(String... specs) throws EventSpecException {
        EventSpec[] parsed = new EventSpec[specs.length];
        for (int i = 0; i < specs.length; i++) {
            parsed[i] = EventSpec.parse(specs[i]);
        }
        return model.allocate(List.of(parsed));
    }

    /** MMCR0's PMC1SEL and PMC2SEL fields. */
    static long mmcr0Selectors(int pmc1, int pmc2) {
        return ((long) pmc1 << Ppc970Registers.PMC1SEL_SHIFT) | ((long) pmc2 << Ppc970Registers.PMC2SEL_SHIFT);
    }

    /** MMCR1's PMC3SEL..PMC8SEL fields. */
    static long mmcr1Selectors(int... pmc3to8) {
        long m = 0;
        for (int i = 0; i < pmc3to8.length; i++) {
            m |= (long) pmc3to8[i] << Ppc970Registers.MMCR1_SEL_SHIFT[i];
        }
        return m;
    }

    static int pmc(int counter) {
        return Ppc970Registers.pmcRegister(counter);
    }

    /** Rates where {@code signal} is emitted at {@code perKilocycle} events per 1000 cycles, nothing else. */
    static SignalRates rates(Signal signal, long perKilocycle) {
        long[] r = new long[Signal.COUNT];
        r[signal.ordinal()] = perKilocycle;
        return SignalRates.of(r);
    }

    /** One cycle and one instruction per cycle: cycles and events coincide. */
    static SignalRates onePerCycle() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 1000;
        return SignalRates.of(r);
    }

    private Ppc970Fixture() {
    }

    static Ppc970Fixture create() {
        return new Ppc970Fixture();
    }
}
