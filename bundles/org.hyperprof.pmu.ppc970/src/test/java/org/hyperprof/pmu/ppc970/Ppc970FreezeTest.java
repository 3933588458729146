package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.CYC;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.HV;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.NOTHING;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.PR;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.SUP;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FC;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCH;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCM0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCM1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCP;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCS;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FREEZE_PMC1_4;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FREEZE_PMC5_8;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC1CE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.TRIGGER;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The freeze conditions of pmu-facts 6.5, each against the privilege mapping CPL 0 = hypervisor,
 * 1 and 2 = supervisor, 3 = problem state.
 */
class Ppc970FreezeTest {
    private final Ppc970Fixture fixture = Ppc970Fixture.create();

    /** Runs 10 cycles at {@code cpl} on a PMU with all PMCs on cycles and {@code mmcr0} bits; PMC1's gain. */
    private long gainedAt(Ppc970Pmu pmu, int cpl) {
        long before = pmu.read(pmc(0));
        pmu.advance(10, onePerCycle(), cpl);
        return pmu.read(pmc(0)) - before;
    }

    private long gainedAt(long mmcr0Bits, int cpl) {
        return gainedAt(fixture.allCounting(mmcr0Bits), cpl);
    }

    @ParameterizedTest(name = "CPL {0}")
    @CsvSource({"0", "1", "2", "3"})
    void withNoFreezeBitEveryPmcCountsAtEveryPrivilege(int cpl) {
        Ppc970Pmu pmu = fixture.allCounting(0);
        pmu.advance(10, onePerCycle(), cpl);
        for (int i = 0; i < 8; i++) {
            assertEquals(10, pmu.read(pmc(i)), "PMC" + (i + 1));
        }
    }

    @ParameterizedTest(name = "CPL {0}")
    @CsvSource({"0", "1", "2", "3"})
    void fcFreezesEveryPmcAtEveryPrivilege(int cpl) {
        Ppc970Pmu pmu = fixture.allCounting(FC);
        pmu.advance(10, onePerCycle(), cpl);
        for (int i = 0; i < 8; i++) {
            assertEquals(0, pmu.read(pmc(i)), "PMC" + (i + 1));
        }
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), cpl));
    }

    @ParameterizedTest(name = "CPL {0} gains {1}")
    @CsvSource({"0, 0", "1, 0", "2, 0", "3, 10"})
    void fcsFreezesPrivilegedStateMsrPr0ByDefault(int cpl, long gained) {
        assertEquals(gained, gainedAt(FCS, cpl), "FCS freezes MSR[PR]=0: supervisor and hypervisor");
    }

    @ParameterizedTest(name = "CPL {0} gains {1}")
    @CsvSource({"0, 10", "1, 0", "2, 0", "3, 10"})
    void fcsWithTheSupervisorOptionFreezesSupervisorStateOnly(int cpl, long gained) {
        Ppc970Pmu pmu = fixture.allCounting(Map.of("fcs.states", "supervisor"), FCS);
        assertEquals(gained, gainedAt(pmu, cpl), "FCS freezes MSR[HV,PR]=00 only");
    }

    @ParameterizedTest(name = "CPL {0} gains {1}")
    @CsvSource({"0, 10", "1, 10", "2, 10", "3, 0"})
    void fcpFreezesProblemStateOnly(int cpl, long gained) {
        assertEquals(gained, gainedAt(FCP, cpl));
    }

    @ParameterizedTest(name = "CPL {0} gains {1}")
    @CsvSource({"0, 0", "1, 10", "2, 10", "3, 10"})
    void fchFreezesHypervisorStateOnly(int cpl, long gained) {
        assertEquals(gained, gainedAt(FCH, cpl));
    }

    static Stream<Arguments> markFreezes() {
        return Stream.of(arguments("FCM1 freezes while MSR[PMM] is set", FCM1, 10L, 0L),
                arguments("FCM0 freezes while MSR[PMM] is clear", FCM0, 0L, 10L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("markFreezes")
    void theMarkBitsFreezeByMsrPmm(String rule, long freezeBit, long gainedUnmarked, long gainedMarked) {
        Ppc970Pmu pmu = fixture.allCounting(freezeBit);
        assertEquals(gainedUnmarked, gainedAt(pmu, PR), "PMM=0");
        pmu.setMsrPmm(true);
        assertEquals(gainedMarked, gainedAt(pmu, PR), "PMM=1");
    }

    @Test
    void theMsrPmmOptionMarksTheProfiledCode() {
        Ppc970Pmu marked = fixture.allCounting(Map.of("msr.pmm", "1"), FCM1);
        assertEquals(true, marked.msrPmm());
        assertEquals(0, gainedAt(marked, SUP));
        Ppc970Pmu unmarked = fixture.allCounting(Map.of("msr.pmm", "0"), FCM0);
        assertEquals(0, gainedAt(unmarked, SUP));
    }

    @Test
    void selector0x08CountsNothingOnThatPmcOnly() {
        Ppc970Pmu pmu = fixture.pmu();
        pmu.write(MMCR1, Ppc970Fixture.mmcr1Selectors(CYC, CYC, CYC, CYC, CYC, CYC));
        pmu.write(MMCR0, Ppc970Fixture.mmcr0Selectors(NOTHING, CYC));
        pmu.advance(10, onePerCycle(), PR);
        assertEquals(0, pmu.read(pmc(0)), "PMC1SEL = 0x08: nothing");
        assertEquals(10, pmu.read(pmc(1)));
    }

    @Test
    void triggerHoldsPmc2To8UntilPmc1TurnsNegativeThenClears() {
        Ppc970Pmu pmu = fixture.allCounting(TRIGGER);
        pmu.write(pmc(0), 0x7FFF_FFFCL);
        pmu.advance(10, onePerCycle(), PR);
        assertEquals(0x8000_0006L, pmu.read(pmc(0)), "PMC1 counts throughout");
        for (int i = 1; i < 8; i++) {
            assertEquals(6, pmu.read(pmc(i)), "PMC" + (i + 1) + " starts at PMC1's 4th event, the one that set bit 31");
        }
        assertEquals(0, pmu.read(MMCR0) & TRIGGER, "the hardware clears TRIGGER");
    }

    @Test
    void triggerIsAlsoReleasedByAWrittenNegativePmc1WithPmc1ce() {
        Ppc970Pmu pmu = fixture.allCounting(TRIGGER | PMC1CE);
        pmu.write(pmc(0), 0x8000_0000L);
        assertEquals(0, pmu.read(MMCR0) & TRIGGER);
        pmu.advance(10, onePerCycle(), PR);
        assertEquals(10, pmu.read(pmc(7)));
    }

    @Test
    void mmcraFreezesPmc1To4OrPmc5To8() {
        Ppc970Pmu low = fixture.allCounting(0);
        low.write(MMCRA, FREEZE_PMC1_4);
        low.advance(10, onePerCycle(), PR);
        Ppc970Pmu high = fixture.allCounting(0);
        high.write(MMCRA, FREEZE_PMC5_8);
        high.advance(10, onePerCycle(), PR);
        for (int i = 0; i < 8; i++) {
            assertEquals(i < 4 ? 0 : 10, low.read(pmc(i)), "MMCRA freeze PMC1-4, PMC" + (i + 1));
            assertEquals(i < 4 ? 10 : 0, high.read(pmc(i)), "MMCRA freeze PMC5-8, PMC" + (i + 1));
        }
    }

    @Test
    void aFrozenPmcKeepsItsFractionalProgress() {
        Ppc970Pmu pmu = fixture.allCounting(0);
        pmu.advance(1, rates(Signal.CYCLES, 600), PR);
        assertEquals(0, pmu.read(pmc(0)), "0.6 of an event");
        pmu.write(MMCR0, pmu.read(MMCR0) | FC);
        pmu.advance(100, rates(Signal.CYCLES, 600), PR);
        pmu.write(MMCR0, pmu.read(MMCR0) & ~FC);
        pmu.advance(1, rates(Signal.CYCLES, 600), PR);
        assertEquals(1, pmu.read(pmc(0)), "0.6 + 0.6: the frozen stretch neither added nor dropped progress");
    }

    @Test
    void theHypervisorCycleEventOfGroup30CountsInHypervisorStateOnly() {
        Ppc970Pmu pmu = fixture.pmu();
        pmu.write(MMCR1, 0x800B_00C0_226E_F1DCL);
        pmu.write(MMCR0, 0x0000_060CL);
        pmu.advance(10, onePerCycle(), SUP);
        pmu.advance(10, onePerCycle(), PR);
        assertEquals(0, pmu.read(pmc(2)), "PM_HV_CYC_GRP30 on PMC3");
        pmu.advance(10, onePerCycle(), HV);
        assertEquals(10, pmu.read(pmc(2)));
    }

    @Test
    void aSelectorNoTableEventDescribesNeverCounts() {
        Ppc970Pmu pmu = fixture.pmu();
        pmu.write(MMCR1, 0x1234_5678_0000_0000L);
        pmu.write(MMCR0, Ppc970Fixture.mmcr0Selectors(0x1E, 0x1E));
        long[] every = new long[Signal.COUNT];
        Arrays.fill(every, 1000);
        SignalRates all = SignalRates.of(every);
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(all, PR));
        pmu.advance(10, all, PR);
        for (int i = 0; i < 8; i++) {
            assertEquals(0, pmu.read(pmc(i)), "PMC" + (i + 1));
        }
    }
}
