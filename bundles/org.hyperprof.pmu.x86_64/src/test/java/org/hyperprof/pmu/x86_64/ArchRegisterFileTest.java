package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86_64.ArchRegisters.A_PMC0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.DEBUGCTL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_OVF_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_STATUS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.LVTPC;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERFEVTSEL0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERF_CAPABILITIES;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PMC0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** Register rules: power-on values, widths, writable bits, sign extension, read-only and write-1-to-clear registers. */
class ArchRegisterFileTest {
    private final ArchPerfmonPmu nehalem = ArchFixture.arch();
    private final ArchPerfmonPmu core2 = ArchFixture.core2();

    @Test
    void powerOnGlobalCtrlHasEveryGeneralPurposeEnableBitSetAndNoFixedOne() {
        assertEquals(0xFL, nehalem.read(GLOBAL_CTRL), "4 GP counters enabled, fixed bits 32-34 clear");
        assertEquals(0x3L, core2.read(GLOBAL_CTRL));
    }

    @Test
    void powerOnCountersSelectsStatusAndFixedControlAreZeroAndLvtpcIsMasked() {
        for (int i = 0; i < 4; i++) {
            assertEquals(0, nehalem.read(PMC0 + i));
            assertEquals(0, nehalem.read(PERFEVTSEL0 + i));
        }
        for (int j = 0; j < 3; j++) {
            assertEquals(0, nehalem.read(FIXED_CTR0 + j));
        }
        assertEquals(0, nehalem.read(FIXED_CTR_CTRL));
        assertEquals(0, nehalem.read(GLOBAL_STATUS));
        assertEquals(0, nehalem.read(DEBUGCTL));
        assertEquals(0x10000L, nehalem.read(LVTPC));
    }

    @Test
    void counterAndControlRegistersAreThePmcsAndSelectsCpuidReports() {
        assertArrayEquals(new int[] {0xC1, 0xC2, 0xC3, 0xC4}, nehalem.counterRegisters());
        assertArrayEquals(new int[] {0x186, 0x187, 0x188, 0x189}, nehalem.controlRegisters());
        assertArrayEquals(new int[] {0xC1, 0xC2}, core2.counterRegisters());
        assertArrayEquals(new int[] {0x186, 0x187}, core2.controlRegisters());
    }

    @Test
    void pmcWriteSignExtendsBit31UpToThe48BitWidth() {
        nehalem.write(PMC0, 0x8000_0001L);
        assertEquals(0xFFFF_8000_0001L, nehalem.read(PMC0));
    }

    @Test
    void pmcWriteSignExtendsBit31UpToThe40BitWidthOnCore2() {
        core2.write(PMC0 + 1, 0xFFFF_FFFFL);
        assertEquals(0xFF_FFFF_FFFFL, core2.read(PMC0 + 1));
    }

    @Test
    void pmcWriteWithBit31ClearLeavesTheUpperBitsZero() {
        nehalem.write(PMC0, 0x7FFF_FFFFL);
        assertEquals(0x7FFF_FFFFL, nehalem.read(PMC0));
    }

    @Test
    void pmcWriteIgnoresEdxTheUpper32BitsOfTheValue() {
        nehalem.write(PMC0 + 2, 0x1234_0000_0010L);
        assertEquals(0x10L, nehalem.read(PMC0 + 2));
    }

    @Test
    void minusCountWrittenThroughPmcReadsAsTheWidthLimitedTwosComplement() {
        nehalem.write(PMC0, -100_000L);
        assertEquals((1L << 48) - 100_000L, nehalem.read(PMC0));
        core2.write(PMC0, -100_000L);
        assertEquals((1L << 40) - 100_000L, core2.read(PMC0));
    }

    @Test
    void fullWidthAliasesExistOnlyWithMsrFullwidthAndWriteAllBitsUpToTheWidth() {
        assertThrows(IllegalArgumentException.class, () -> nehalem.write(A_PMC0, 1));
        assertThrows(IllegalArgumentException.class, () -> nehalem.read(PERF_CAPABILITIES));
        ArchPerfmonPmu fw = ArchFixture.arch(Map.of("msr.fullwidth", "true"));
        fw.write(A_PMC0 + 1, 0x1234_0000_0010L);
        assertEquals(0x1234_0000_0010L, fw.read(PMC0 + 1), "no sign extension, EDX taken");
        fw.write(A_PMC0, -1L);
        assertEquals((1L << 48) - 1, fw.read(A_PMC0), "bits above the width dropped");
        fw.write(PMC0, 0x1234_8000_0000L);
        assertEquals(0xFFFF_8000_0000L, fw.read(PMC0), "the legacy address still sign-extends");
    }

    @Test
    void perfCapabilitiesReportsFullWidthWritesAndIsReadOnly() {
        ArchPerfmonPmu fw = ArchFixture.arch(Map.of("msr.fullwidth", "true"));
        assertEquals(1L << 13, fw.read(PERF_CAPABILITIES));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fw.write(PERF_CAPABILITIES, 0));
        assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    }

    @Test
    void fixedCounterWritesTakeTheFullWidthWithoutSignExtension() {
        nehalem.write(FIXED_CTR0 + 1, 0x0000_1234_8000_0000L);
        assertEquals(0x1234_8000_0000L, nehalem.read(FIXED_CTR0 + 1));
        core2.write(FIXED_CTR0 + 2, -1L);
        assertEquals((1L << 40) - 1, core2.read(FIXED_CTR0 + 2), "bits above the 40-bit fixed width dropped");
    }

    @Test
    void selectKeepsItsLow32BitsAndDropsTheReservedUpperHalf() {
        nehalem.write(PERFEVTSEL0, 0xFFFF_FFFF_FFFF_FFFFL);
        assertEquals(0xFFFF_FFFFL, nehalem.read(PERFEVTSEL0), "version 3: AnyThread (bit 21) is writable");
    }

    @Test
    void selectAnyThreadBitIsReservedBeforeVersion3() {
        core2.write(PERFEVTSEL0, 0xFFFF_FFFFL);
        assertEquals(0xFFDF_FFFFL, core2.read(PERFEVTSEL0), "version 2: bit 21 reads 0");
        ArchPerfmonPmu v1 = ArchFixture.arch(Map.of("cpuid.version", "1"));
        v1.write(PERFEVTSEL0 + 3, 1L << 21);
        assertEquals(0, v1.read(PERFEVTSEL0 + 3));
    }

    @Test
    void fixedCtrCtrlHasOsUsrAnyThreadAndPmiPerFixedCounterOnVersion3() {
        nehalem.write(FIXED_CTR_CTRL, -1L);
        assertEquals(0xFFFL, nehalem.read(FIXED_CTR_CTRL), "three 4-bit fields, nothing above");
    }

    @Test
    void fixedCtrCtrlAnyThreadIsReservedOnVersion2() {
        core2.write(FIXED_CTR_CTRL, -1L);
        assertEquals(0xBBBL, core2.read(FIXED_CTR_CTRL), "OS, USR and PMI per field; bit 2 reserved");
    }

    @Test
    void fixedCtrCtrlHasFieldsOnlyForTheFixedCountersCpuidReports() {
        ArchPerfmonPmu one = ArchFixture.arch(Map.of("cpuid.fixed", "1"));
        one.write(FIXED_CTR_CTRL, -1L);
        assertEquals(0xFL, one.read(FIXED_CTR_CTRL));
    }

    @Test
    void globalCtrlStoresOneBitPerGeneralPurposeAndFixedCounter() {
        nehalem.write(GLOBAL_CTRL, -1L);
        assertEquals(0x7_0000_000FL, nehalem.read(GLOBAL_CTRL));
        core2.write(GLOBAL_CTRL, 0);
        assertEquals(0, core2.read(GLOBAL_CTRL));
    }

    @Test
    void globalStatusIsReadOnly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> nehalem.write(GLOBAL_STATUS, 0));
        assertTrue(e.getMessage().contains("read-only") && e.getMessage().contains("GLOBAL_OVF_CTRL"), e.getMessage());
    }

    @Test
    void globalOvfCtrlReadsZero() {
        nehalem.write(GLOBAL_OVF_CTRL, -1L);
        assertEquals(0, nehalem.read(GLOBAL_OVF_CTRL));
    }

    @Test
    void debugCtlStoresOnlyFreezePerfmonOnPmiFromVersion2() {
        nehalem.write(DEBUGCTL, -1L);
        assertEquals(1L << 12, nehalem.read(DEBUGCTL));
        ArchPerfmonPmu v1 = ArchFixture.arch(Map.of("cpuid.version", "1"));
        v1.write(DEBUGCTL, 1L << 12);
        assertEquals(0, v1.read(DEBUGCTL), "version 1 has no freeze bit");
    }

    @Test
    void lvtpcKeepsVectorDeliveryModeAndMaskOnly() {
        nehalem.write(LVTPC, 0xFFFF_FFFFL);
        assertEquals(0x107FFL, nehalem.read(LVTPC), "delivery status (bit 12) is read-only");
    }

    @Test
    void registersBeyondWhatCpuidReportsAreRefusedListingTheExistingOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> core2.read(PMC0 + 2));
        assertTrue(e.getMessage().contains("0xC3 is not a performance-monitoring register"), e.getMessage());
        assertTrue(e.getMessage().contains("IA32_PMC0..1 (MSR 0xC1..0xC2)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> nehalem.write(0x300, 0));
        assertThrows(IllegalArgumentException.class, () -> nehalem.read(FIXED_CTR0 + 3));
    }
}
