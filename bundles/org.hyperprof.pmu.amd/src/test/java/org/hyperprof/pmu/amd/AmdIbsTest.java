package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.ATHLON;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY15H;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.hyperprof.pmu.amd.AmdFixture.pmu;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_DC_LINAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_DC_PHYSAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_EILVT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_LINAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_PHYSAD;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_DATA1;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_DATA2;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_DATA3;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_OP_RIP;
import static org.hyperprof.pmu.amd.AmdRegisters.LVTPC;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.rates;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.junit.jupiter.api.Test;

/** Family 10h Instruction-Based Sampling: capabilities, arming, counting, the pseudo-PC blocks, re-arm. */
class AmdIbsTest {
    private static final long FETCH_EN = 1L << 48;
    private static final long FETCH_VAL = 1L << 49;
    private static final long FETCH_PHY_VALID = 1L << 52;
    private static final long FETCH_RAND_EN = 1L << 57;
    private static final long OP_EN = 1L << 17;
    private static final long OP_VAL = 1L << 18;
    private static final long OP_CNT_CTL = 1L << 19;
    /** A period of 0x10000 keeps 0x1000 in the 16-bit max-count fields. */
    private static final long PERIOD = 0x10000;
    private static final long PC = 0xFFFF_8000_1234_5678L;

    private final long[] entries = new long[22];

    /** A family 10h CPU with IBS configured and the session started (no core counters in use). */
    private static AmdPmu started(Map<String, String> options, IbsConfig config) {
        AmdPmu pmu = pmu(FAMILY10, options);
        pmu.reserve();
        pmu.setup(new CounterConfig[0]);
        pmu.setupIbs(config);
        pmu.start();
        return pmu;
    }

    private static AmdPmu started(IbsConfig config) {
        return started(Map.of(), config);
    }

    private static IbsConfig fetchOnly(long period, boolean randomize) {
        return new IbsConfig(false, true, period, 0, randomize, false);
    }

    private static IbsConfig opOnly(long period, boolean dispatchedOps) {
        return new IbsConfig(true, false, 0, period, false, dispatchedOps);
    }

    // ------------------------------------------------------------------------------ capabilities

    @Test
    void family10ReportsValidFetchAndOpSamplingCapabilities() {
        assertEquals(0x7, FAMILY10.ibsCapabilities(), "CPUID 0x8000001B: bit 0 valid, 1 fetch, 2 op sampling");
        assertEquals(0x7, pmu(FAMILY10).ibsCapabilities());
        assertEquals(0x1F, pmu(FAMILY10, Map.of("ibs.caps", "0x1f")).ibsCapabilities());
    }

    @Test
    void partsWithoutIbsReportNoCapabilitiesRefuseSetupAndLogNothing() {
        for (AmdPmuModel model : new AmdPmuModel[] {ATHLON, HAMMER, FAMILY15H}) {
            assertEquals(0, model.ibsCapabilities(), model.cpuType());
            AmdPmu pmu = pmu(model);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> pmu.setupIbs(fetchOnly(PERIOD, false)));
            assertEquals(model.cpuType() + " has no Instruction-Based Sampling (IBS)", e.getMessage());
            assertEquals(0, pmu.checkIbs(new long[22]));
        }
    }

    // ------------------------------------------------------------------------------ arming

    @Test
    void startArmsFetchSamplingWithMaxCountPeriodShiftedBy4AndEnable() {
        AmdPmu pmu = started(fetchOnly(PERIOD, false));
        assertEquals(FETCH_EN | 0x1000, pmu.read(IBS_FETCH_CTL));
        assertEquals(0, pmu.read(IBS_OP_CTL), "op sampling not requested");
        assertEquals(PERIOD, pmu.cyclesUntilOverflow(rates(Signal.INSTRUCTIONS, 1000), 3));
    }

    @Test
    void startSetsRandomEnableForFetchWhenAsked() {
        AmdPmu pmu = started(fetchOnly(PERIOD, true));
        assertEquals(FETCH_RAND_EN | FETCH_EN | 0x1000, pmu.read(IBS_FETCH_CTL) & ~0xFFFF_0000L);
    }

    @Test
    void opMaxCountIsRandomisedOnArmBySignedBits11To4OfTheLfsrSeededF00D() {
        AmdPmu pmu = started(opOnly(PERIOD, false));
        // LFSR 0xF00D -> 0xF806; bits 11:4 = 0x80 = -128 as a signed byte: 0x1000 - 128 = 0xF80.
        assertEquals(OP_EN | 0x0F80, pmu.read(IBS_OP_CTL));
        assertEquals(0x0F80L << 4, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3), "op sampling counts cycles");
    }

    @Test
    void everyReArmDrawsTheNextLfsrValue() {
        AmdPmu pmu = started(opOnly(PERIOD, false));
        long[] maxCounts = new long[3];
        for (int i = 0; i < 3; i++) {
            maxCounts[i] = pmu.read(IBS_OP_CTL) & 0xFFFF;
            pmu.advance(pmu.cyclesUntilOverflow(onePerCycle(), 3), onePerCycle(), 3);
            pmu.acknowledgeInterrupt();
            assertEquals(14, pmu.checkIbs(entries));
        }
        // 0xF806 -> -128, 0xFC03 -> 0xC0 = -64, 0xFE01 -> 0xE0 = -32.
        assertArrayEquals(new long[] {0x1000 - 128, 0x1000 - 64, 0x1000 - 32}, maxCounts);
    }

    @Test
    void theDriverLfsrIsAMaximalLength16BitRegisterStartingFromF00D() {
        Lfsr16 lfsr = new Lfsr16(0xF00D);
        assertEquals(0xF806, lfsr.next());
        assertEquals(0xFC03, lfsr.next());
        assertEquals(0xFE01, lfsr.next());
        Set<Integer> seen = new HashSet<>();
        Lfsr16 full = new Lfsr16(0xF00D);
        for (int i = 0; i < 65535; i++) {
            seen.add(full.next());
        }
        assertEquals(65535, seen.size(), "every non-zero 16-bit state once");
        assertEquals(0xF00D, full.value(), "back at the seed after 2^16 - 1 steps");
        assertThrows(IllegalArgumentException.class, () -> new Lfsr16(0));
    }

    @Test
    void randomisationIsDeterministicAcrossCpus() {
        AmdPmu a = started(new IbsConfig(true, true, PERIOD, PERIOD, true, false));
        AmdPmu b = started(new IbsConfig(true, true, PERIOD, PERIOD, true, false));
        for (int i = 0; i < 20; i++) {
            long t = a.cyclesUntilOverflow(onePerCycle(), 3);
            assertEquals(t, b.cyclesUntilOverflow(onePerCycle(), 3));
            a.advance(t, onePerCycle(), 3);
            b.advance(t, onePerCycle(), 3);
            a.acknowledgeInterrupt();
            b.acknowledgeInterrupt();
            assertEquals(a.checkIbs(entries), b.checkIbs(new long[22]));
            assertEquals(a.read(IBS_OP_CTL), b.read(IBS_OP_CTL));
            assertEquals(a.read(IBS_FETCH_CTL), b.read(IBS_FETCH_CTL));
        }
    }

    @Test
    void withoutRdWrOpCntTheOpMaxCountIsClampedTo0x81Through0xFF80() {
        assertEquals(OP_EN | (0x81 - 128), started(opOnly(16, false)).read(IBS_OP_CTL), "raised to 0x81");
        assertEquals(OP_EN | (0xFF80 - 128), started(opOnly(0xFF_FFFFL, false)).read(IBS_OP_CTL), "lowered to 0xFF80");
    }

    @Test
    void withRdWrOpCntTheCurrentCountStartsAtTwelveRandomBitsAndTheMaxIsRaisedBy0x80() {
        AmdPmu pmu = started(Map.of("ibs.caps", "0xf"), opOnly(PERIOD, false));
        // 0xF806 & 0xFFF = 0x806 into IbsOpCurCnt (bits 51:32); max count 0x1000 + 0x80.
        assertEquals((0x806L << 32) | OP_EN | 0x1080, pmu.read(IBS_OP_CTL));
        assertEquals((0x1080L << 4) - 0x806, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3));
    }

    @Test
    void withRdWrOpCntTheCurrentCountIsReadableAndWritable() {
        AmdPmu pmu = pmu(FAMILY10, Map.of("ibs.caps", "0x0f"));
        pmu.write(IBS_OP_CTL, (0x123L << 32) | OP_EN | 0x100);
        assertEquals((0x123L << 32) | OP_EN | 0x100, pmu.read(IBS_OP_CTL));
        assertEquals(0x1000 - 0x123, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3));
        AmdPmu plain = pmu(FAMILY10);
        plain.write(IBS_OP_CTL, (0x123L << 32) | OP_EN | 0x100);
        assertEquals(OP_EN | 0x100, plain.read(IBS_OP_CTL), "without RdWrOpCnt the count is internal");
        assertEquals(0x1000, plain.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3));
    }

    @Test
    void dispatchedOpsAreCountedOnlyWhenRequestedAndSupported() {
        AmdPmu unsupported = started(opOnly(PERIOD, true));
        assertEquals(0, unsupported.read(IBS_OP_CTL) & OP_CNT_CTL, "caps 0x7 lack OpCnt");
        AmdPmu notAsked = started(Map.of("ibs.caps", "0x17"), opOnly(PERIOD, false));
        assertEquals(0, notAsked.read(IBS_OP_CTL) & OP_CNT_CTL);
        AmdPmu ops = started(Map.of("ibs.caps", "0x17"), opOnly(PERIOD, true));
        assertEquals(OP_CNT_CTL, ops.read(IBS_OP_CTL) & OP_CNT_CTL);
        assertEquals(Long.MAX_VALUE, ops.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3), "no longer cycles");
        assertEquals(0x0F80L << 4, ops.cyclesUntilOverflow(rates(Signal.UOPS, 1000), 3), "ops (as micro-ops)");
    }

    @Test
    void setupIbsRefusesPeriodsTheFieldsCannotHold() {
        AmdPmu pmu = pmu(FAMILY10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.setupIbs(fetchOnly(15, false)));
        assertTrue(e.getMessage().contains("16..1048575"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pmu.setupIbs(fetchOnly(0x10_0000, false)));
        assertThrows(IllegalArgumentException.class, () -> pmu.setupIbs(opOnly(-1, false)));
        assertThrows(IllegalArgumentException.class,
                () -> pmu(FAMILY10, Map.of("ibs.caps", "0xf")).setupIbs(opOnly(15, false)));
        assertThrows(IllegalArgumentException.class, () -> pmu.setupIbs(null));
        pmu.setupIbs(opOnly(1, false)); // without RdWrOpCnt any period is clamped instead
    }

    @Test
    void stopWritesZeroToBothIbsControls() {
        AmdPmu pmu = started(new IbsConfig(true, true, PERIOD, PERIOD, true, false));
        pmu.stop();
        assertEquals(0, pmu.read(IBS_FETCH_CTL));
        assertEquals(0, pmu.read(IBS_OP_CTL));
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }

    // ------------------------------------------------------------------------------ counting

    @Test
    void fetchSamplingCountsInstructionsAndOpSamplingCountsCyclesAtEveryCpl() {
        AmdPmu fetch = started(fetchOnly(PERIOD, false));
        assertEquals(Long.MAX_VALUE, fetch.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 0));
        assertEquals(2 * PERIOD, fetch.cyclesUntilOverflow(rates(Signal.INSTRUCTIONS, 500), 0));
        fetch.advance(1000, rates(Signal.INSTRUCTIONS, 1000), 0);
        fetch.advance(1000, rates(Signal.INSTRUCTIONS, 1000), 3);
        assertEquals(2000 >> 4, (fetch.read(IBS_FETCH_CTL) >>> 16) & 0xFFFF, "IbsFetchCnt shows count bits 19:4");
        AmdPmu op = started(opOnly(PERIOD, false));
        op.advance(100, rates(Signal.CYCLES, 1000), 0);
        op.advance(100, rates(Signal.CYCLES, 1000), 1);
        assertEquals((0x0F80L << 4) - 200, op.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3));
    }

    @Test
    void aSampleBecomesValidAtTheMaxCountAndRaisesTheIbsNmi() {
        AmdPmu pmu = started(fetchOnly(PERIOD, false));
        pmu.advance(PERIOD - 1, onePerCycle(), 3);
        assertEquals(0, pmu.read(IBS_FETCH_CTL) & FETCH_VAL);
        assertFalse(pmu.interruptPending());
        pmu.advance(1, onePerCycle(), 3);
        assertEquals(FETCH_VAL, pmu.read(IBS_FETCH_CTL) & FETCH_VAL);
        assertTrue(pmu.interruptPending(), "through the IBS extended LVT entry, routed to NMI at boot");
        pmu.acknowledgeInterrupt();
        assertFalse(pmu.interruptPending());
    }

    @Test
    void aValidSampleStopsItsCounterUntilReArmed() {
        AmdPmu pmu = started(fetchOnly(PERIOD, false));
        pmu.advance(PERIOD + 500, onePerCycle(), 3);
        long ctl = pmu.read(IBS_FETCH_CTL);
        assertEquals(0x1000, (ctl >>> 16) & 0xFFFF, "the count stopped at the max count");
        assertEquals(Long.MAX_VALUE, pmu.cyclesUntilOverflow(onePerCycle(), 3));
        pmu.advance(10_000, onePerCycle(), 3);
        assertEquals(ctl, pmu.read(IBS_FETCH_CTL));
    }

    @Test
    void theIbsInterruptFollowsItsOwnLvtEntryNotLvtpc() {
        AmdPmu pmu = started(fetchOnly(PERIOD, false));
        pmu.write(IBS_EILVT, 0x1_0400);
        pmu.advance(PERIOD, onePerCycle(), 3);
        assertFalse(pmu.interruptPending(), "the IBS entry is masked, whatever LVTPC says");
        assertEquals(0x400, pmu.read(LVTPC));
        pmu.write(IBS_EILVT, 0x400);
        assertTrue(pmu.interruptPending());
    }

    @Test
    void fetchRandomEnableRandomisesTheLowFourBitsOfEachPeriod() {
        AmdPmu pmu = started(fetchOnly(PERIOD, true));
        Set<Long> periods = new HashSet<>();
        for (int i = 0; i < 16; i++) {
            long t = pmu.cyclesUntilOverflow(rates(Signal.INSTRUCTIONS, 1000), 3);
            assertTrue(t > PERIOD - 16 && t <= PERIOD, "period " + t + " loses at most 15 fetches");
            periods.add(t);
            pmu.advance(t, rates(Signal.INSTRUCTIONS, 1000), 3);
            pmu.acknowledgeInterrupt();
            assertEquals(8, pmu.checkIbs(entries));
        }
        assertTrue(periods.size() > 4, "the low bits vary: " + periods);
        AmdPmu fixed = started(fetchOnly(PERIOD, false));
        assertEquals(PERIOD, fixed.cyclesUntilOverflow(rates(Signal.INSTRUCTIONS, 1000), 3));
    }

    // ------------------------------------------------------------------------------ the blocks

    @Test
    void aFetchSampleIsLoggedAsEightEntriesMarker13AddressThenRegistersAsHalvesLowFirst() {
        AmdPmu pmu = started(fetchOnly(PERIOD, false));
        pmu.setProgramCounter(PC);
        pmu.advance(PERIOD, onePerCycle(), 3);
        long ctl = pmu.read(IBS_FETCH_CTL);
        assertEquals(FETCH_VAL | FETCH_EN | (0x1000L << 16) | 0x1000, ctl);
        pmu.write(IBS_FETCH_PHYSAD, 0x0000_00AB_CDEF_0123L); // what the handler reads is what it logs
        Arrays.fill(entries, -7);
        assertEquals(8, pmu.checkIbs(entries));
        assertArrayEquals(new long[] {13, PC, 0x1234_5678L, 0xFFFF_8000L, ctl & 0xFFFF_FFFFL, ctl >>> 32,
            0xCDEF_0123L, 0xABL}, Arrays.copyOf(entries, 8));
        assertEquals(-7, entries[8], "nothing written past the block");
    }

    @Test
    void aFetchSampleLatchesTheProgramCounterAndNoPhysicalAddress() {
        AmdPmu pmu = started(fetchOnly(PERIOD, false));
        pmu.write(IBS_FETCH_PHYSAD, 0x55);
        pmu.write(IBS_FETCH_CTL, pmu.read(IBS_FETCH_CTL) | FETCH_PHY_VALID);
        pmu.setProgramCounter(0x4000_1000L);
        pmu.advance(PERIOD, onePerCycle(), 3);
        assertEquals(0x4000_1000L, pmu.read(IBS_FETCH_LINAD));
        assertEquals(0, pmu.read(IBS_FETCH_PHYSAD));
        assertEquals(0, pmu.read(IBS_FETCH_CTL) & FETCH_PHY_VALID, "the simulation knows no physical address");
    }

    @Test
    void withoutAProgramCounterTheSampledAddressIsZero() {
        AmdPmu pmu = started(opOnly(PERIOD, false));
        pmu.advance(pmu.cyclesUntilOverflow(onePerCycle(), 3), onePerCycle(), 3);
        assertEquals(14, pmu.checkIbs(entries));
        assertEquals(0, entries[1]);
    }

    @Test
    void anOpSampleIsLoggedAsFourteenEntriesMarker14RipThenSixRegistersAsHalvesLowFirst() {
        AmdPmu pmu = started(opOnly(PERIOD, false));
        pmu.setProgramCounter(PC);
        pmu.write(IBS_OP_DATA1, 0x7777);
        pmu.advance(pmu.cyclesUntilOverflow(onePerCycle(), 3), onePerCycle(), 3);
        assertEquals(OP_VAL, pmu.read(IBS_OP_CTL) & OP_VAL);
        assertEquals(PC, pmu.read(IBS_OP_RIP));
        assertEquals(0, pmu.read(IBS_OP_DATA1), "the sample rewrote the data registers");
        pmu.write(IBS_OP_DATA1, 0x1111_0001_2222_0002L);
        pmu.write(IBS_OP_DATA2, 0x3333_0003L);
        pmu.write(IBS_OP_DATA3, 0x4444_0004_5555_0005L);
        pmu.write(IBS_DC_LINAD, 0x6666_0006_7777_0007L);
        pmu.write(IBS_DC_PHYSAD, 0x8888_0008_9999_0009L);
        assertEquals(14, pmu.checkIbs(entries));
        assertArrayEquals(new long[] {14, PC, 0x1234_5678L, 0xFFFF_8000L, 0x2222_0002L, 0x1111_0001L, 0x3333_0003L, 0,
            0x5555_0005L, 0x4444_0004L, 0x7777_0007L, 0x6666_0006L, 0x9999_0009L, 0x8888_0008L},
                Arrays.copyOf(entries, 14));
    }

    @Test
    void bothSamplesValidGiveTwentyTwoEntriesFetchFirst() {
        AmdPmu pmu = started(new IbsConfig(true, true, PERIOD, PERIOD, false, false));
        pmu.setProgramCounter(PC);
        pmu.advance(PERIOD, onePerCycle(), 3); // op (0xF800 cycles) and fetch (0x10000 fetches) both valid
        assertEquals(22, pmu.checkIbs(entries));
        assertEquals(13, entries[0]);
        assertEquals(14, entries[8]);
        assertEquals(PC, entries[9]);
    }

    @Test
    void checkIbsReArmsFetchByClearingValidAndCountAndOpWithAFreshRandomisation() {
        AmdPmu pmu = started(new IbsConfig(true, true, PERIOD, PERIOD, false, false));
        pmu.advance(PERIOD, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        pmu.checkIbs(entries);
        assertEquals(FETCH_EN | 0x1000, pmu.read(IBS_FETCH_CTL), "valid and count cleared, enable kept");
        assertEquals(OP_EN | (0x1000 - 64), pmu.read(IBS_OP_CTL), "valid cleared, next LFSR value applied");
        assertEquals(0x1000L << 4, pmu.cyclesUntilOverflow(rates(Signal.INSTRUCTIONS, 1000), 3));
        assertEquals((0x1000L - 64) << 4, pmu.cyclesUntilOverflow(rates(Signal.CYCLES, 1000), 3));
        assertEquals(0, pmu.checkIbs(entries), "nothing valid any more");
    }

    @Test
    void checkIbsWithNothingValidWritesNothingAndDoesNotReArm() {
        AmdPmu pmu = started(opOnly(PERIOD, false));
        long ctl = pmu.read(IBS_OP_CTL);
        Arrays.fill(entries, -7);
        assertEquals(0, pmu.checkIbs(entries));
        assertEquals(-7, entries[0]);
        assertEquals(ctl, pmu.read(IBS_OP_CTL), "the LFSR was not advanced");
    }

    @Test
    void aTooShortEntryArrayIsRefusedBeforeAnythingIsWrittenOrReArmed() {
        AmdPmu pmu = started(new IbsConfig(true, true, PERIOD, PERIOD, false, false));
        pmu.advance(PERIOD, onePerCycle(), 3);
        long[] small = new long[21];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.checkIbs(small));
        assertTrue(e.getMessage().contains("needs 22 entries"), e.getMessage());
        assertEquals(0, small[0]);
        assertEquals(FETCH_VAL, pmu.read(IBS_FETCH_CTL) & FETCH_VAL, "still valid: the handler may retry");
        assertEquals(22, pmu.checkIbs(entries));
    }

    @Test
    void coreCounterOverflowsAndIbsSamplesShareOneNmi() throws EventSpecException {
        AmdPmu pmu = pmu(FAMILY10);
        pmu.reserve();
        pmu.setup(configs(FAMILY10, "CPU_CLK_UNHALTED:65536"));
        pmu.setupIbs(fetchOnly(PERIOD, false));
        pmu.start();
        assertEquals(PERIOD, pmu.cyclesUntilOverflow(onePerCycle(), 3));
        pmu.advance(PERIOD, onePerCycle(), 3);
        assertTrue(pmu.interruptPending());
        pmu.acknowledgeInterrupt();
        assertFalse(pmu.interruptPending(), "one NMI serves both sources");
        assertEquals(1, pmu.checkCounters(c -> { }));
        assertEquals(8, pmu.checkIbs(entries));
    }

    @Test
    void theModelsIbsCapabilityOptionIsCheckedAndOnlyFamily10HasIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FAMILY10.createPmu(0, Map.of("ibs.caps", "0x3")));
        assertTrue(e.getMessage().contains("bits 0 (valid), 1 (fetch sampling) and 2 (op sampling) must be set"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FAMILY10.createPmu(0, Map.of("ibs.caps", "0x27")));
        assertThrows(IllegalArgumentException.class, () -> FAMILY10.createPmu(0, Map.of("ibs.caps", "lots")));
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> HAMMER.createPmu(0, Map.of("ibs.caps", "0x7")));
        assertTrue(none.getMessage().contains("unknown x86-64/hammer PMU option 'ibs.caps'"), none.getMessage());
        PmuModel asService = FAMILY10;
        assertNotEquals(0, asService.ibsCapabilities());
    }
}
