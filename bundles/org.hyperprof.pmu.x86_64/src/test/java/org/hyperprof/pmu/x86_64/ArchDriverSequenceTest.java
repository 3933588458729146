package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86_64.ArchFixture.ARCH;
import static org.hyperprof.pmu.x86_64.ArchFixture.CORE2;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_STATUS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.LVTPC;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERFEVTSEL0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PMC0;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.hyperprof.testing.pmu.PmuFixtures.onCounter;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.hyperprof.testing.pmu.PmuFixtures.withCount;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;

/** Xen's op_model_ppro steps on architectural perfmon: reserve, setup, start, the NMI handler, stop, release. */
class ArchDriverSequenceTest {
    private final ArchPerfmonPmu pmu = ArchFixture.arch();
    private final List<Integer> overflows = new ArrayList<>();

    @Test
    void setupClearsSelectsKeepingBit21AndWritesMinusOneIntoUnusedCounters() throws Exception {
        pmu.write(PERFEVTSEL0 + 1, 0xFFFF_FFFFL);
        pmu.write(PMC0 + 1, 5);
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:100000:0:1:1"));
        assertEquals(1L << 21, pmu.read(PERFEVTSEL0 + 1), "only the reserved AnyThread bit survives");
        assertEquals((1L << 48) - 1, pmu.read(PMC0 + 1), "-1, sign-extended to 48 bits");
    }

    @Test
    void setupPreloadsMinusCountAndBuildsTheSelectWithoutEn() throws Exception {
        pmu.setup(configs(ARCH, "LLC_MISSES:6000:0x41:0:1"));
        assertEquals((1L << 48) - 6000, pmu.read(PMC0));
        // INT | USR | umask 0x41 | event 0x2E; no OS (kernel=0), no EN yet.
        assertEquals((1L << 20) | (1L << 16) | 0x4100 | 0x2E, pmu.read(PERFEVTSEL0));
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals((1L << 48) - 6000, pmu.read(PMC0), "setup does not start counting");
    }

    @Test
    void startRoutesLvtpcToNmiSetsEnAndWritesTheGlobalEnableMask() throws Exception {
        pmu.write(GLOBAL_CTRL, 0x7_0000_0000L);
        pmu.setup(new CounterConfig[] {onCounter(configs(ARCH, "INST_RETIRED:6000")[0], 2)});
        pmu.start();
        assertEquals(0x400, pmu.read(LVTPC));
        assertEquals(EVTSEL_EN, pmu.read(PERFEVTSEL0 + 2) & EVTSEL_EN);
        assertEquals(0, pmu.read(PERFEVTSEL0) & EVTSEL_EN, "unused counters stay off");
        assertEquals(0xF, pmu.read(GLOBAL_CTRL), "(1 << num_counters) - 1: GP bits on, fixed bits off");
    }

    @Test
    void stopClearsEnZeroesGlobalCtrlAndRestoresLvtpc() throws Exception {
        pmu.write(LVTPC, 0x10000 | 0xEF);
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:100000"));
        pmu.start();
        pmu.stop();
        assertEquals(0, pmu.read(PERFEVTSEL0) & EVTSEL_EN);
        assertEquals(0, pmu.read(GLOBAL_CTRL));
        assertEquals(0x100EF, pmu.read(LVTPC));
    }

    @Test
    void version1StartAndStopTouchNoGlobalRegister() throws Exception {
        ArchPerfmonPmu v1 = ArchFixture.arch(Map.of("cpuid.version", "1"));
        v1.setup(configs(v1.model(), "CPU_CLK_UNHALTED:6000"));
        v1.start();
        v1.advance(6000, onePerCycle(), 0);
        assertEquals(1, v1.checkCounters(overflows::add));
        v1.stop();
        assertThrows(IllegalArgumentException.class, () -> v1.read(GLOBAL_CTRL));
    }

    @Test
    void handlerFindsOverflowByTheClearedTopBitReloadsAndReportsTheCounter() throws Exception {
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000"));
        pmu.start();
        pmu.advance(6000, SignalRates.of(cyclesAndHalfAsManyInstructions()), 3);
        assertTrue(pmu.interruptPending());
        pmu.acknowledgeInterrupt();
        assertEquals(1, pmu.checkCounters(overflows::add));
        assertEquals(List.of(0), overflows, "counter 0 wrapped; counter 1 is halfway");
        assertEquals((1L << 48) - 6000, pmu.read(PMC0), "re-armed with -count");
        assertEquals((1L << 48) - 3000, pmu.read(PMC0 + 1), "untouched");
    }

    @Test
    void handlerUnmasksLvtpcWhichThePmiMasked() throws Exception {
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.advance(6000, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        assertEquals(0x10400, pmu.read(LVTPC));
        pmu.checkCounters(overflows::add);
        assertEquals(0x400, pmu.read(LVTPC));
    }

    @Test
    void handlerLeavesGlobalStatusSetLikeXen() throws Exception {
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.advance(6000, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        pmu.checkCounters(overflows::add);
        assertEquals(1, pmu.read(GLOBAL_STATUS), "Xen's arch-perfmon handler never writes GLOBAL_OVF_CTRL");
        pmu.advance(6000, onePerCycle(), 3);
        assertTrue(pmu.interruptPending(), "a set status bit does not block the next PMI");
    }

    @Test
    void handlerWithClearStatusClearsTheOverflowedCountersBitsThroughGlobalOvfCtrl() throws Exception {
        ArchPerfmonPmu full = ArchFixture.arch(Map.of("handler.clearstatus", "true"));
        full.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000"));
        full.start();
        full.write(GLOBAL_CTRL, 0x1_0000_000FL);
        full.write(FIXED_CTR_CTRL, 0x3);
        full.write(0x309, (1L << 48) - 1);
        full.advance(6000, SignalRates.of(cyclesAndHalfAsManyInstructions()), 3);
        assertEquals(0x1_0000_0001L, full.read(GLOBAL_STATUS));
        full.acknowledgeInterrupt();
        full.checkCounters(overflows::add);
        assertEquals(0x1_0000_0000L, full.read(GLOBAL_STATUS), "only the handled counter's bit is cleared");
    }

    @Test
    void anExtraNmiWithNothingOverflowedIsHarmless() throws Exception {
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.advance(10, onePerCycle(), 3);
        assertEquals(0, pmu.checkCounters(overflows::add));
        assertTrue(overflows.isEmpty());
        assertEquals((1L << 48) - 5990, pmu.read(PMC0));
    }

    @Test
    void handlerSkipsCountersTheSessionDidNotSetUp() throws Exception {
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000"));
        pmu.write(PMC0 + 1, 0); // bit 47 clear, but counter 1 is not in the session
        assertEquals(0, pmu.checkCounters(overflows::add));
    }

    @Test
    void core2HandlerTestsBit39() throws Exception {
        ArchPerfmonPmu c2 = ArchFixture.core2();
        c2.setup(configs(CORE2, "CPU_CLK_UNHALTED:6000"));
        c2.write(PMC0, 0x8000_0000L); // sign-extended: bits 39:31 set
        assertEquals(0, c2.checkCounters(overflows::add), "bit 39 set: not overflowed");
        c2.write(PMC0, 0x7FFF_FFFFL); // bit 31 clear, so bits 39:32 are clear too
        assertEquals(1, c2.checkCounters(overflows::add));
    }

    @Test
    void core2WithAnEmptyBiosLeafTestsBit31() throws Exception {
        ArchPerfmonPmu quirk = ArchFixture.core2(Map.of("cpuid.version", "0", "msr.fullwidth", "true"));
        ArchPerfmonPmu normal = ArchFixture.core2(Map.of("msr.fullwidth", "true"));
        for (ArchPerfmonPmu p : List.of(quirk, normal)) {
            p.setup(configs(CORE2, "CPU_CLK_UNHALTED:6000"));
            p.write(0x4C1, 0xFF_0000_0000L); // bit 39 set, bit 31 clear
        }
        assertEquals(1, quirk.checkCounters(overflows::add), "Xen tests bit 31 when the BIOS reports version 0");
        assertEquals(0, normal.checkCounters(overflows::add), "and bit 39 with the CPUID width of 40");
    }

    @Test
    void samplingLoopOverflowsOncePerCountEvents() throws Exception {
        pmu.setup(configs(ARCH, "INST_RETIRED:6000"));
        pmu.start();
        SignalRates r = PmuFixtures.rates(Signal.INSTRUCTIONS, 850);
        long cycles = 0;
        int samples = 0;
        while (samples < 20) {
            long step = pmu.cyclesUntilOverflow(r, 3);
            pmu.advance(step, r, 3);
            cycles += step;
            assertTrue(pmu.interruptPending());
            pmu.acknowledgeInterrupt();
            samples += pmu.checkCounters(overflows::add);
        }
        long events = cycles * 850 / 1000;
        assertEquals(20 * 6000, events, "exactly one sample per 6000 instructions");
    }

    @Test
    void configurationsForCountersTheCpuLacksAreNotProgrammedAndNoted() throws Exception {
        ArchPerfmonPmu two = ArchFixture.arch(Map.of("cpuid.gp", "2"));
        CounterConfig[] c = configs(ARCH, "CPU_CLK_UNHALTED:6000", "INST_RETIRED:6000", "BR_INST_RETIRED:500");
        two.setup(c);
        assertEquals((1L << 48) - 6000, two.read(PMC0));
        assertEquals(1, two.setupNotes().size());
        assertTrue(two.setupNotes().get(0).contains("counter 2 (BR_INST_RETIRED) not programmed"),
                two.setupNotes().get(0));
    }

    @Test
    void aBadConfigurationLeavesTheRegistersUntouched() throws Exception {
        pmu.write(PERFEVTSEL0, 0x12345);
        pmu.write(PMC0, 77);
        CounterConfig good = configs(ARCH, "CPU_CLK_UNHALTED:6000")[0];
        for (CounterConfig[] bad : List.of(
                new CounterConfig[] {good, good},
                new CounterConfig[] {onCounter(good, 8)},
                new CounterConfig[] {withCount(good, 0x8000_0000L)},
                new CounterConfig[] {new CounterConfig(0, good.event(), 6000, 0x100, true, true)},
                new CounterConfig[] {new CounterConfig(0, good.event(), 6000, 0, false, false)})) {
            assertThrows(IllegalArgumentException.class, () -> pmu.setup(bad));
        }
        assertThrows(IllegalArgumentException.class, () -> pmu.setup(null));
        assertEquals(0x12345, pmu.read(PERFEVTSEL0));
        assertEquals(77, pmu.read(PMC0));
    }

    @Test
    void reserveAndReleaseRestoreSelectsCountersAndLvtpc() throws Exception {
        pmu.write(PERFEVTSEL0 + 3, 0x4300C0);
        pmu.write(PMC0 + 3, 0x1234);
        pmu.reserve();
        pmu.setup(configs(ARCH, "CPU_CLK_UNHALTED:6000"));
        pmu.start();
        pmu.stop();
        pmu.release();
        assertEquals(0x4300C0, pmu.read(PERFEVTSEL0 + 3));
        assertEquals(0x1234, pmu.read(PMC0 + 3));
        assertEquals(0x10000, pmu.read(LVTPC));
        assertEquals(0, pmu.read(GLOBAL_CTRL), "Xen does not save GLOBAL_CTRL: release leaves what stop wrote");
    }

    @Test
    void releaseRestoresACounterThroughTheSignExtendingPmcAddress() {
        ArchPerfmonPmu fw = ArchFixture.arch(Map.of("msr.fullwidth", "true"));
        fw.write(0x4C1, 0x12_0000_0001L);
        fw.reserve();
        fw.release();
        assertEquals(1, fw.read(PMC0), "a plain WRMSR keeps bits 31:0 only, as Xen's restore does");
    }

    @Test
    void driverStepsOutOfOrderAreRefused() {
        assertThrows(IllegalStateException.class, pmu::stop);
        assertThrows(IllegalStateException.class, pmu::release);
        pmu.reserve();
        IllegalStateException e = assertThrows(IllegalStateException.class, pmu::reserve);
        assertTrue(e.getMessage().contains("already reserved"), e.getMessage());
        pmu.start();
        assertThrows(IllegalStateException.class, pmu::start);
    }

    private static long[] cyclesAndHalfAsManyInstructions() {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = 1000;
        r[Signal.INSTRUCTIONS.ordinal()] = 500;
        return r;
    }
}
