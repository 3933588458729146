package org.hyperprof.pmu.ppc970;

import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.testing.pmu.PmuFixtures;

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
        return PmuFixtures.configs(model, specs);
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

    private Ppc970Fixture() {
    }

    static Ppc970Fixture create() {
        return new Ppc970Fixture();
    }
}
