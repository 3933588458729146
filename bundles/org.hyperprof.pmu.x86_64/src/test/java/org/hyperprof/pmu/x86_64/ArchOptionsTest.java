package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PMC0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.testing.pmu.PmuFixtures;
import org.junit.jupiter.api.Test;

/** createPmu options: CPUID overrides and the two behaviour switches. */
class ArchOptionsTest {

    @Test
    void withoutOptionsTheRegisterFileBelongsToTheServiceModel() {
        ArchPerfmonPmu pmu = ArchFixture.arch();
        assertSame(ArchFixture.ARCH, pmu.model());
        assertEquals(3, pmu.cpuid().version());
    }

    @Test
    void cpuidGpChangesTheCounterCountOfTheCpuAndOfItsModel() {
        ArchPerfmonPmu pmu = ArchFixture.arch(Map.of("cpuid.gp", "2"));
        assertArrayEquals(new int[] {0xC1, 0xC2}, pmu.counterRegisters());
        assertArrayEquals(new int[] {0x186, 0x187}, pmu.controlRegisters());
        PmuModel model = pmu.model();
        assertEquals(2, model.counterCount());
        assertEquals("i386/arch_perfmon", model.cpuType());
        assertSame(ArchFixture.ARCH.events(), model.events(), "a derived model shares the event table");
        assertThrows(IllegalArgumentException.class, () -> pmu.read(PMC0 + 2));
        assertEquals(0b11, pmu.read(GLOBAL_CTRL), "reset value: one enable bit per general-purpose counter");
    }

    @Test
    void cpuidWidthChangesTheGeneralPurposeCounterWidth() {
        ArchPerfmonPmu pmu = ArchFixture.arch(Map.of("cpuid.width", "40"));
        assertEquals(40, pmu.model().counterWidth());
        pmu.write(PMC0, 0x8000_0000L);
        assertEquals(0xFF_8000_0000L, pmu.read(PMC0));
    }

    @Test
    void cpuidFixedChangesTheNumberOfFixedCounters() {
        ArchPerfmonPmu pmu = ArchFixture.arch(Map.of("cpuid.fixed", "1"));
        pmu.read(FIXED_CTR0);
        assertThrows(IllegalArgumentException.class, () -> pmu.read(FIXED_CTR0 + 1));
    }

    @Test
    void cpuidVersion1DropsTheFixedCountersAndGlobalRegisters() {
        ArchPerfmonPmu pmu = ArchFixture.arch(Map.of("cpuid.version", "1"));
        assertEquals(1, pmu.cpuid().version());
        assertEquals(0, pmu.cpuid().fixedCounters());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.read(GLOBAL_CTRL));
        assertTrue(e.getMessage().contains("version 1: no fixed counters and no global registers"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pmu.read(FIXED_CTR0));
    }

    @Test
    void cpuidVersion1WithFixedCountersIsAContradiction() {
        Map<String, String> o = Map.of("cpuid.version", "1", "cpuid.fixed", "2");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArchFixture.arch(o));
        assertTrue(e.getMessage().contains("version 1 has no fixed counters"), e.getMessage());
    }

    @Test
    void cpuidEbxChangesWhichEventsTheCpusModelAllows() {
        PmuModel model = ArchFixture.arch(Map.of("cpuid.ebx", "0x10")).model();
        assertEquals(0x10, ((IntelArchPmuModel) model).cpuid().ebx());
    }

    @Test
    void cpuidVersion0IsTheCore2BiosQuirkOnly() {
        ArchPerfmonPmu core2 = ArchFixture.core2(Map.of("cpuid.version", "0"));
        assertEquals(0, core2.cpuid().reportedVersion());
        assertEquals(2, core2.cpuid().version());
        assertEquals(2, core2.model().counterCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArchFixture.arch(Map.of("cpuid.version", "0")));
        assertTrue(e.getMessage().contains("1..3"), e.getMessage());
    }

    @Test
    void cpuidVersion0CannotBeCombinedWithOtherCpuidFields() {
        Map<String, String> o = Map.of("cpuid.version", "0", "cpuid.gp", "4");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArchFixture.core2(o));
        assertTrue(e.getMessage().contains("empty CPUID leaf"), e.getMessage());
    }

    @Test
    void outOfRangeValuesNameTheAllowedRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArchFixture.arch(Map.of("cpuid.gp", "9")));
        assertTrue(e.getMessage().contains("cpuid.gp=9") && e.getMessage().contains("1..8"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ArchFixture.arch(Map.of("cpuid.width", "lots")));
        assertTrue(e.getMessage().contains("not a number"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ArchFixture.arch(Map.of("handler.clearstatus", "yes")));
        assertTrue(e.getMessage().contains("true, false"), e.getMessage());
    }

    @Test
    void unknownOptionsAreRefusedListingTheAllowedOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArchFixture.arch(Map.of("variant", "nehalem")));
        assertTrue(e.getMessage().contains("unknown i386/arch_perfmon PMU option 'variant'"), e.getMessage());
        assertTrue(e.getMessage().contains("cpuid.version (1..3)"), e.getMessage());
    }

    @Test
    void lvtpcAutomaskIsOnByDefaultAndFalseIsAWhatIfOverride() {
        assertTrue(ArchFixture.arch().autoMasksLvtpc());
        ArchPerfmonPmu noMask = ArchFixture.arch(Map.of("lvtpc.automask", "false"));
        noMask.write(ArchRegisters.LVTPC, 0x400);
        noMask.write(PMC0, -1L);
        noMask.write(ArchRegisters.PERFEVTSEL0, (1L << 22) | (1L << 20) | (1L << 16) | 0x3C);
        noMask.advance(1, PmuFixtures.onePerCycle(), 3);
        noMask.acknowledgeInterrupt();
        assertEquals(0x400, noMask.read(ArchRegisters.LVTPC), "delivery left LVTPC unmasked");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArchFixture.arch(Map.of("lvtpc.automask", "sometimes")));
        assertTrue(e.getMessage().contains("true, false"), e.getMessage());
    }

    @Test
    void nullOptionsMeanNone() {
        assertSame(ArchFixture.ARCH, ArchFixture.ARCH.createPmu(3, null).model());
        assertEquals(3, ArchFixture.ARCH.createPmu(3, new HashMap<>()).cpu());
    }

    @Test
    void aNegativeCpuNumberIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ArchFixture.ARCH.createPmu(-1, Map.of()));
        assertTrue(e.getMessage().contains("negative"), e.getMessage());
    }
}
