package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.ALL_48;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY15H;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.hyperprof.pmu.amd.AmdFixture.ctr;
import static org.hyperprof.pmu.amd.AmdFixture.minus;
import static org.hyperprof.pmu.amd.AmdFixture.pmu;
import static org.hyperprof.pmu.amd.AmdFixture.sel;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_GUEST_ONLY;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_HOST_ONLY;
import static org.hyperprof.pmu.amd.AmdRegisters.EVTSEL_RESERVED_21;
import static org.hyperprof.pmu.amd.AmdRegisters.LVTPC;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;
import static org.hyperprof.testing.pmu.PmuFixtures.configs;
import static org.hyperprof.testing.pmu.PmuFixtures.onCounter;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The driver steps Xenoprof runs on an AMD part (OProfile's AMD driver order) and the NMI handler's scan. */
class AmdDriverSequenceTest {
    private final List<Integer> overflows = new ArrayList<>();

    private static long[] snapshot(AmdPmu pmu, AmdPmuModel model) {
        long[] s = new long[2 * model.counterCount() + 1];
        for (int i = 0; i < model.counterCount(); i++) {
            s[2 * i] = pmu.read(ctr(model, i));
            s[2 * i + 1] = pmu.read(sel(model, i));
        }
        s[s.length - 1] = pmu.read(LVTPC);
        return s;
    }

    private static String defaultSpec(AmdPmuModel model) {
        return model.defaultEvent();
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void releaseRestoresTheCountersSelectsAndLvtpcSavedByReserve(AmdPmuModel model) throws EventSpecException {
        AmdPmu pmu = pmu(model);
        for (int i = 0; i < model.counterCount(); i++) {
            pmu.write(ctr(model, i), 0x1234_0000_0000L + i);
            pmu.write(sel(model, i), 0x0020_0040L + i);
        }
        pmu.write(LVTPC, 0x1_00EEL);
        long[] before = snapshot(pmu, model);

        pmu.reserve();
        pmu.setup(configs(model, defaultSpec(model)));
        pmu.start();
        pmu.advance(500_000, onePerCycle(), 3);
        pmu.stop();
        pmu.release();

        assertArrayEquals(before, snapshot(pmu, model), "48-bit counters come back whole");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void setupClearsEverySelectKeepingOnlyReservedBit21(AmdPmuModel model) throws EventSpecException {
        AmdPmu pmu = pmu(model);
        for (int i = 0; i < model.counterCount(); i++) {
            pmu.write(sel(model, i), -1L);
        }
        pmu.reserve();
        pmu.setup(new CounterConfig[] {onCounter(configs(model, defaultSpec(model))[0], 1)});
        for (int i = 0; i < model.counterCount(); i++) {
            if (i != 1) {
                assertEquals(EVTSEL_RESERVED_21, pmu.read(sel(model, i)), "unused select " + i + " keeps only bit 21");
            }
        }
        assertEquals(EVTSEL_RESERVED_21 | EVTSEL_INT | EVTSEL_USR | EVTSEL_OS | 0x76, pmu.read(sel(model, 1)),
                "EN waits for start; Host/Guest-only are clear");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void setupWritesMinusOneIntoEveryCounterAndMinusCountIntoConfiguredOnes(AmdPmuModel model)
            throws EventSpecException {
        AmdPmu pmu = pmu(model);
        for (int i = 0; i < model.counterCount(); i++) {
            pmu.write(ctr(model, i), 5);
        }
        pmu.reserve();
        pmu.setup(new CounterConfig[] {onCounter(configs(model, "CPU_CLK_UNHALTED:100000")[0], 1)});
        for (int i = 0; i < model.counterCount(); i++) {
            assertEquals(i == 1 ? 0xFFFF_FFFE_7960L : ALL_48, pmu.read(ctr(model, i)), "counter " + i);
        }
    }

    @Test
    void setupBuildsTheSelectFromEventUnitMaskUserAndKernel() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.reserve();
        pmu.setup(configs(HAMMER, "DATA_CACHE_REFILLS_FROM_SYSTEM:500:0x18:0:1", "DRAM_ACCESSES:500:0x2:1:0"));
        assertEquals(EVTSEL_INT | EVTSEL_USR | (0x18L << 8) | 0x43, pmu.read(sel(HAMMER, 0)));
        assertEquals(EVTSEL_INT | EVTSEL_OS | (0x02L << 8) | 0xE0, pmu.read(sel(HAMMER, 1)));
    }

    @Test
    void setupPutsEventBits11To8IntoSelectBits35To32OnFamily10() throws EventSpecException {
        AmdPmu pmu = pmu(FAMILY10);
        pmu.write(sel(FAMILY10, 0), EVTSEL_HOST_ONLY | EVTSEL_GUEST_ONLY);
        pmu.reserve();
        pmu.setup(configs(FAMILY10, "RETIRED_X87_FLOATING_POINT_OPERATIONS:500"));
        assertEquals((1L << 32) | EVTSEL_INT | EVTSEL_USR | EVTSEL_OS | (0x07L << 8) | 0xC0, pmu.read(sel(FAMILY10, 0)),
                "event 0x1C0 with its default unit mask; Host/Guest-only cleared so it counts in host and guest");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void startRoutesLvtpcToNmiAndSetsEnOnEachConfiguredCounterOnly(AmdPmuModel model) throws EventSpecException {
        AmdPmu pmu = pmu(model);
        pmu.reserve();
        CounterConfig c = configs(model, defaultSpec(model))[0];
        pmu.setup(new CounterConfig[] {onCounter(c, 0), null, onCounter(c, 2)});
        pmu.start();
        assertEquals(0x400, pmu.read(LVTPC));
        for (int i = 0; i < model.counterCount(); i++) {
            assertEquals(i == 0 || i == 2, (pmu.read(sel(model, i)) & EVTSEL_EN) != 0, "EN of counter " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void stopClearsEnOnEveryCounterAndRestoresLvtpc(AmdPmuModel model) throws EventSpecException {
        AmdPmu pmu = pmu(model);
        pmu.write(LVTPC, 0x1_00EE);
        pmu.reserve();
        pmu.setup(configs(model, defaultSpec(model)));
        pmu.start();
        int last = model.counterCount() - 1;
        // A counter the session did not configure, enabled behind the driver's back: stop clears it too.
        pmu.write(sel(model, last), pmu.read(sel(model, last)) | EVTSEL_EN);
        pmu.stop();
        for (int i = 0; i < model.counterCount(); i++) {
            assertEquals(0, pmu.read(sel(model, i)) & EVTSEL_EN, "EN of counter " + i);
        }
        assertEquals(0x1_00EE, pmu.read(LVTPC));
        long before = pmu.read(ctr(model, 0));
        pmu.advance(1000, onePerCycle(), 3);
        assertEquals(before, pmu.read(ctr(model, 0)), "stopped counters do not count");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void handlerFindsOverflowByBit31ClearAndReloadsMinusCount(AmdPmuModel model) throws EventSpecException {
        AmdPmu pmu = pmu(model);
        pmu.reserve();
        pmu.setup(configs(model, "CPU_CLK_UNHALTED:100000"));
        pmu.start();
        pmu.advance(99_999, onePerCycle(), 3);
        assertEquals(0, pmu.checkCounters(overflows::add), "bit 31 still set one event before the wrap");
        assertFalse(pmu.interruptPending());
        pmu.advance(1, onePerCycle(), 3);
        assertEquals(0, pmu.read(ctr(model, 0)));
        assertTrue(pmu.interruptPending());
        pmu.acknowledgeInterrupt();
        assertEquals(1, pmu.checkCounters(overflows::add));
        assertEquals(List.of(0), overflows);
        assertEquals(minus(100_000), pmu.read(ctr(model, 0)), "re-armed with -count in 48 bits");
        assertEquals(0x400, pmu.read(LVTPC), "the AMD handler does not touch LVTPC");
    }

    @Test
    void handlerSkipsCountersTheSessionDidNotSetUp() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.reserve();
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:100000"));
        pmu.write(ctr(HAMMER, 3), 5); // bit 31 clear, but counter 3 is not the session's
        assertEquals(0, pmu.checkCounters(overflows::add));
        assertEquals(5, pmu.read(ctr(HAMMER, 3)));
        assertTrue(overflows.isEmpty());
    }

    @Test
    void anExtraNmiWithNothingOverflowedIsHarmless() throws EventSpecException {
        AmdPmu pmu = pmu(FAMILY15H);
        pmu.reserve();
        pmu.setup(configs(FAMILY15H, "CPU_CLK_UNHALTED:100000", "RETIRED_INSTRUCTIONS:100000"));
        pmu.start();
        pmu.advance(10, onePerCycle(), 3);
        long[] before = snapshot(pmu, FAMILY15H);
        assertEquals(0, pmu.checkCounters(overflows::add));
        assertArrayEquals(before, snapshot(pmu, FAMILY15H));
    }

    @Test
    void twoCountersOverflowingTogetherAreBothReportedInCounterOrder() throws EventSpecException {
        AmdPmu pmu = pmu(FAMILY15H);
        pmu.reserve();
        pmu.setup(configs(FAMILY15H, "DISPATCHED_FPU_OPS:500", "CPU_CLK_UNHALTED:50000",
                "RETIRED_INSTRUCTIONS:50000"));
        pmu.start();
        pmu.advance(50_000, onePerCycle(), 3);
        assertEquals(2, pmu.checkCounters(overflows::add));
        assertEquals(List.of(0, 1), overflows, "CPU_CLK_UNHALTED on 0, RETIRED_INSTRUCTIONS on 1; FPU ops on 3 idle");
    }

    @Test
    void aCounterThatWrappedWithoutItsNmiBeingTakenStillReadsAsOverflowed() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.reserve();
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:3000"));
        pmu.start();
        pmu.advance(3000 + 1234, onePerCycle(), 3);
        assertEquals(1234, pmu.read(ctr(HAMMER, 0)));
        assertEquals(1, pmu.checkCounters(overflows::add), "1234 events past the wrap: bit 31 is still clear");
    }

    @Test
    void onlyBit31IsTestedSoAWrapLeftUnhandledFor2To31MoreEventsIsMissed() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.reserve();
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:3000"));
        pmu.start();
        pmu.advance(3000 + 0x8000_0000L, onePerCycle(), 3);
        assertEquals(0x8000_0000L, pmu.read(ctr(HAMMER, 0)), "wrapped, then counted into bit 31");
        assertEquals(0, pmu.checkCounters(overflows::add), "bit 31 is set again: the handler sees no overflow");
    }

    @Test
    void aCounterWithBit31ClearReadsAsOverflowedWhateverItsUpperBitsSay() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.reserve();
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:3000"));
        pmu.write(ctr(HAMMER, 0), 0xFFFF_7FFF_FFFFL); // bits 47:32 set, bit 31 clear: never wrapped
        assertEquals(1, pmu.checkCounters(overflows::add));
        assertEquals(minus(3000), pmu.read(ctr(HAMMER, 0)));
    }

    @Test
    void setupRefusesBadConfigurationsBeforeTouchingARegister() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.write(sel(HAMMER, 0), 0x76);
        CounterConfig c = configs(HAMMER, "CPU_CLK_UNHALTED:100000")[0];
        assertTrue(message(pmu, new CounterConfig[] {onCounter(c, 4)}).contains("counters 0..3"));
        assertTrue(message(pmu, new CounterConfig[] {c, c}).contains("configured twice"));
        assertTrue(message(pmu, new CounterConfig[] {new CounterConfig(0, c.event(), 0x8000_0000L, 0, true, true)})
                .contains("1..2147483647"));
        assertTrue(message(pmu, new CounterConfig[] {new CounterConfig(0, c.event(), 3000, 0x100, true, true)})
                .contains("8-bit UnitMask"));
        assertTrue(message(pmu, new CounterConfig[] {new CounterConfig(0, c.event(), 3000, 0, false, false)})
                .contains("neither kernel nor user"));
        CounterConfig wide = configs(FAMILY10, "RETIRED_X87_FLOATING_POINT_OPERATIONS:500")[0];
        assertTrue(message(pmu, new CounterConfig[] {wide}).contains("0x00..0xFF"), "a K8 select holds 8 bits");
        assertTrue(message(pmu, null).contains("got null"));
        assertEquals(0x76, pmu.read(sel(HAMMER, 0)), "nothing was written");
    }

    private static String message(AmdPmu pmu, CounterConfig[] configs) {
        return assertThrows(IllegalArgumentException.class, () -> pmu.setup(configs)).getMessage();
    }

    @Test
    void driverStepsOutOfOrderAreRefused() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        assertThrows(IllegalStateException.class, pmu::stop);
        assertThrows(IllegalStateException.class, pmu::release);
        pmu.reserve();
        assertThrows(IllegalStateException.class, pmu::reserve);
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:100000"));
        pmu.start();
        assertThrows(IllegalStateException.class, pmu::start);
    }

    @Test
    void aSecondSessionCountsFromAFreshPreload() throws EventSpecException {
        AmdPmu pmu = pmu(HAMMER);
        pmu.reserve();
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:100000"));
        pmu.start();
        pmu.advance(77_777, onePerCycle(), 3);
        pmu.stop();
        pmu.release();
        pmu.reserve();
        pmu.setup(configs(HAMMER, "CPU_CLK_UNHALTED:100000"));
        pmu.start();
        assertEquals(100_000, pmu.cyclesUntilOverflow(onePerCycle(), 3));
    }
}
