package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.HV;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.PR;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.SUP;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FC;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCECE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCM1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCP;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCS;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMAO;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC1CE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMCJCE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMXE;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.UnitMask;
import org.junit.jupiter.api.Test;

/** OProfile's PPC64 driver sequence (pmu-facts 6.6) on the 970 register file. */
class Ppc970DriverSequenceTest {
    private static final long SETUP_BITS = FC | FCM1 | PMXE | FCECE | PMC1CE | PMCJCE;

    private final Ppc970Fixture fixture = Ppc970Fixture.create();
    private final Ppc970Pmu pmu = fixture.pmu();
    private final List<Integer> overflowed = new ArrayList<>();

    /** setup + start of the default event at {@code count}. */
    private void startCycles(long count) throws EventSpecException {
        pmu.setup(fixture.configs("CYCLES:" + count));
        pmu.start();
    }

    @Test
    void setupProgramsTheDefaultGroupPlusTheKernelsBitsWithCountersFrozen() throws EventSpecException {
        pmu.setup(fixture.configs("CYCLES:100000"));
        assertEquals(0x0400_C51EL | SETUP_BITS, pmu.read(MMCR0));
        assertEquals(0x0A46_F18CL, pmu.read(MMCR1));
        assertEquals(0x2001L, pmu.read(MMCRA), "mark one IOP + SAMPLE_ENABLE");
        for (int i = 0; i < 8; i++) {
            assertEquals(0, pmu.read(pmc(i)), "the PMCs are written at start, not at setup");
        }
        pmu.advance(1000, onePerCycle(), PR);
        assertEquals(0, pmu.read(pmc(1)), "FC keeps everything frozen until start");
    }

    @Test
    void setupOfAGroupAddsPmxeAndTheConditionEnablesTheGroupLeavesOut() throws EventSpecException {
        pmu.setup(fixture.configs("PM_INST_CMPL_GRP3:10000", "PM_LD_MISS_L1_GRP3:1000"));
        assertEquals(0x0000_091EL | SETUP_BITS, pmu.read(MMCR0));
        assertEquals(0x4003_0010_05F0_9000L, pmu.read(MMCR1));
    }

    @Test
    void setupSetsFcsWithoutKernelAndFcpWithoutUser() throws EventSpecException {
        pmu.setup(fixture.configs("CYCLES:100000:0:0:1"));
        assertTrue((pmu.read(MMCR0) & FCS) != 0, "kernel=0: FCS");
        assertEquals(0, pmu.read(MMCR0) & FCP);
        pmu.setup(fixture.configs("CYCLES:100000:0:1:0"));
        assertEquals(0, pmu.read(MMCR0) & FCS);
        assertTrue((pmu.read(MMCR0) & FCP) != 0, "user=0: FCP");
    }

    @Test
    void setupForAnEventGroupTheTableLacksProgramsEveryPmcToCountNothing() {
        EventDescriptor unknown = new EventDescriptor("event 0x3f2", 0x3F2, 1L << 2, 0,
                new UnitMask("zero", UnitMask.Kind.MANDATORY, 0, List.of(new UnitMask.Value(0, ""))), null, "");
        pmu.setup(new CounterConfig[] {new CounterConfig(2, unknown, 1000, 0, true, true)});
        pmu.start();
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), PR));
        for (int i = 0; i < 8; i++) {
            assertEquals(Ppc970Registers.SEL_NOTHING, Ppc970Registers.selector(i, pmu.read(MMCR0), pmu.read(MMCR1)));
        }
    }

    @Test
    void startPreloads0x80000000MinusCountAndZeroesTheOtherPmcs() throws EventSpecException {
        for (int i = 0; i < 8; i++) {
            pmu.write(pmc(i), 0x1234);
        }
        startCycles(100_000);
        for (int i = 0; i < 8; i++) {
            assertEquals(i == 1 ? 0x8000_0000L - 100_000 : 0, pmu.read(pmc(i)), "PMC" + (i + 1));
        }
        assertEquals(0, pmu.read(MMCR0) & (FC | PMAO), "start clears FC and PMAO");
        assertFalse(pmu.msrPmm(), "the rfid gave the profiled code its PMM=0 back");
    }

    @Test
    void theDefaultSessionRaisesTheAlertAfterExactlyCountCycles() throws EventSpecException {
        startCycles(100_000);
        assertEquals(100_000, pmu.cyclesUntilOverflow(onePerCycle(), SUP));
        pmu.advance(99_999, onePerCycle(), SUP);
        assertFalse(pmu.interruptPending());
        pmu.advance(1, onePerCycle(), SUP);
        assertTrue(pmu.interruptPending());
        assertEquals(0x8000_0000L, pmu.read(pmc(1)));
        assertTrue((pmu.read(MMCR0) & FC) != 0, "FCECE froze the PMCs");
    }

    @Test
    void theHandlerRecordsReloadsClearsPmaoSetsPmxeAndUnfreezes() throws EventSpecException {
        startCycles(100_000);
        pmu.advance(100_000, onePerCycle(), SUP);
        pmu.acknowledgeInterrupt();
        assertEquals(1, pmu.checkCounters(overflowed::add));
        assertEquals(List.of(1), overflowed, "counter 1 = PMC2");
        assertEquals(0x8000_0000L - 100_000, pmu.read(pmc(1)), "reloaded");
        long mmcr0 = pmu.read(MMCR0);
        assertEquals(0, mmcr0 & (PMAO | FC));
        assertTrue((mmcr0 & PMXE) != 0, "PMXE re-enabled");
        assertFalse(pmu.msrPmm());
        assertEquals(100_000, pmu.cyclesUntilOverflow(onePerCycle(), SUP), "re-armed for the next period");
    }

    @Test
    void theSessionSamplesEveryCountEventsOverManyPeriods() throws EventSpecException {
        startCycles(10_000);
        long cycles = 0;
        for (int sample = 0; sample < 50; sample++) {
            long t = pmu.cyclesUntilOverflow(onePerCycle(), PR);
            pmu.advance(t, onePerCycle(), PR);
            cycles += t;
            assertTrue(pmu.interruptPending());
            pmu.acknowledgeInterrupt();
            pmu.checkCounters(overflowed::add);
        }
        assertEquals(50 * 10_000L, cycles);
        assertEquals(50, overflowed.size());
    }

    @Test
    void theHandlerZeroesNegativePmcsOutsideTheSessionWithoutRecordingThem() throws EventSpecException {
        startCycles(100_000);
        pmu.write(pmc(5), 0x8000_0010L); // PMC6 (cycles in the default group) went negative
        assertTrue(pmu.interruptPending());
        pmu.acknowledgeInterrupt();
        assertEquals(0, pmu.checkCounters(overflowed::add));
        assertEquals(0, pmu.read(pmc(5)));
        assertEquals(List.of(), overflowed);
    }

    @Test
    void anUnusedPmcThatCountsIntoBit31InterruptsAndIsZeroed() throws EventSpecException {
        startCycles(0x8000_0000L);
        // PMC2 (session) and PMC6 (cycles, outside it) both start at 0 and turn negative together.
        pmu.advance(0x8000_0000L, onePerCycle(), PR);
        pmu.acknowledgeInterrupt();
        assertEquals(1, pmu.checkCounters(overflowed::add));
        assertEquals(List.of(1), overflowed);
        assertEquals(0, pmu.read(pmc(5)), "PMC6 zeroed");
        assertEquals(0, pmu.read(pmc(1)), "PMC2 reloaded with 0x80000000 - 0x80000000");
    }

    @Test
    void aPollingHandlerCanServeAPostponedAlertWithoutTheInterrupt() throws EventSpecException {
        startCycles(100_000);
        pmu.advance(100_000, onePerCycle(), HV);
        assertTrue(pmu.alertPending(), "PMAO polled while MSR[EE]=0");
        assertEquals(HV, pmu.sampledCpl());
        assertEquals(1, pmu.checkCounters(overflowed::add));
        assertFalse(pmu.interruptPending(), "clearing PMAO withdrew the exception");
        assertFalse(pmu.alertPending());
    }

    @Test
    void stopSetsFcAndTheHandlerStillUnfreezesAsTheDriverDoes() throws EventSpecException {
        startCycles(100_000);
        pmu.advance(100_000, onePerCycle(), PR);
        pmu.stop();
        assertTrue((pmu.read(MMCR0) & FC) != 0);
        pmu.acknowledgeInterrupt();
        assertEquals(0, pmu.checkCounters(overflowed::add), "not running: nothing recorded");
        assertEquals(0, pmu.read(pmc(1)), "zeroed, not reloaded");
        assertEquals(0, pmu.read(MMCR0) & FC, "the PPC64 handler clears FC whether or not the session runs");
    }

    @Test
    void releaseRestoresWhatReserveSaved() throws EventSpecException {
        pmu.write(MMCR1, 0x1111_2222_3333_4444L);
        pmu.write(MMCRA, 0x40L);
        pmu.write(pmc(6), 0x77);
        pmu.write(MMCR0, FC | 0x1E);
        pmu.reserve();
        startCycles(100_000);
        pmu.advance(500, onePerCycle(), PR);
        pmu.stop();
        pmu.release();
        assertEquals(FC | 0x1E, pmu.read(MMCR0));
        assertEquals(0x1111_2222_3333_4444L, pmu.read(MMCR1));
        assertEquals(0x40L, pmu.read(MMCRA));
        assertEquals(0x77, pmu.read(pmc(6)));
        assertEquals(0, pmu.read(pmc(1)));
        assertFalse(pmu.interruptPending());
    }

    @Test
    void releaseRestoresNegativePmcsWithoutRaisingAnAlert() throws EventSpecException {
        pmu.write(pmc(3), 0x9000_0000L);
        pmu.reserve();
        startCycles(100_000);
        pmu.stop();
        pmu.release();
        assertEquals(0x9000_0000L, pmu.read(pmc(3)));
        assertFalse(pmu.alertPending(), "the PMCs are restored under MMCR0 = FC, with no condition enabled");
    }

    @Test
    void driverStepsOutOfOrderAreRefused() throws EventSpecException {
        assertThrows(IllegalStateException.class, pmu::release);
        assertThrows(IllegalStateException.class, pmu::stop);
        pmu.reserve();
        assertThrows(IllegalStateException.class, pmu::reserve);
        startCycles(100_000);
        assertThrows(IllegalStateException.class, pmu::start);
    }

    @Test
    void setupRefusesBadConfigurationsBeforeTouchingAnyRegister() throws EventSpecException {
        CounterConfig good = fixture.configs("CYCLES:100000")[0];
        long before = pmu.read(MMCR0);
        assertThrows(IllegalArgumentException.class, () -> pmu.setup(null));
        assertThrows(IllegalArgumentException.class,
                () -> pmu.setup(new CounterConfig[] {withCounter(good, 8)}));
        assertThrows(IllegalArgumentException.class, () -> pmu.setup(new CounterConfig[] {good, good}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> pmu.setup(new CounterConfig[] {withCount(good, 0x8000_0001L)}));
        assertTrue(e.getMessage().contains("0x80000000 - count"), e.getMessage());
        assertEquals(before, pmu.read(MMCR0));
    }

    @Test
    void kernelAndUserOfAllConfigurationsDecideFcsAndFcpTogether() throws EventSpecException {
        CounterConfig[] c = fixture.configs("PM_INST_CMPL_GRP3:10000:0:1:0", "PM_CYC_GRP3:10000:0:1:0");
        CounterConfig userOnly = new CounterConfig(2, c[1].event(), 10000, 0, false, true);
        pmu.setup(new CounterConfig[] {c[0], userOnly});
        assertEquals(0, pmu.read(MMCR0) & (FCS | FCP), "a counter asking for a mode turns it on for all");
    }

    @Test
    void setupStartAndHandlerLeaveMsrPmmAsTheProfiledCodeHadIt() throws EventSpecException {
        Ppc970Pmu marked = fixture.pmu(java.util.Map.of("msr.pmm", "1"));
        marked.setup(fixture.configs("CYCLES:10000"));
        marked.start();
        assertTrue(marked.msrPmm());
        assertEquals(Long.MAX_VALUE, marked.cyclesUntilOverflow(onePerCycle(), PR),
                "FCM1 freezes a marked context: OProfile profiles unmarked code");
        assertArrayEquals(new int[] {795, 798, 786}, marked.controlRegisters());
    }

    private static CounterConfig withCounter(CounterConfig c, int counter) {
        return new CounterConfig(counter, c.event(), c.count(), c.unitMask(), c.kernel(), c.user());
    }

    private static CounterConfig withCount(CounterConfig c, long count) {
        return new CounterConfig(c.counter(), c.event(), count, c.unitMask(), c.kernel(), c.user());
    }
}
