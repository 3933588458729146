package org.hyperprof.pmu.ppc970;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** SPR numbers and every bit position, IBM numbering converted and checked against the facts' masks. */
class Ppc970RegistersTest {

    @Test
    void sprNumbersAreThoseOf64BitBookIII() {
        assertEquals(786, Ppc970Registers.MMCRA);
        assertEquals(787, Ppc970Registers.PMC1);
        assertEquals(794, Ppc970Registers.PMC8);
        assertEquals(795, Ppc970Registers.MMCR0);
        assertEquals(796, Ppc970Registers.SIAR);
        assertEquals(797, Ppc970Registers.SDAR);
        assertEquals(798, Ppc970Registers.MMCR1);
        for (int i = 0; i < 8; i++) {
            assertEquals(787 + i, Ppc970Registers.pmcRegister(i), "PMC" + (i + 1));
        }
    }

    @Test
    void ibmBitZeroIsTheMostSignificantBit() {
        assertEquals(Long.MIN_VALUE, Ppc970Registers.ibmBit(0));
        assertEquals(1L, Ppc970Registers.ibmBit(63));
        assertEquals(0x8000_0000L, Ppc970Registers.ibmBit(32));
        assertThrows(IllegalArgumentException.class, () -> Ppc970Registers.ibmBit(64));
    }

    static Stream<Arguments> mmcr0Bits() {
        return Stream.of(
                Arguments.of("FC", 32, Ppc970Registers.FC, 0x8000_0000L),
                Arguments.of("FCS", 33, Ppc970Registers.FCS, 0x4000_0000L),
                Arguments.of("FCP", 34, Ppc970Registers.FCP, 0x2000_0000L),
                Arguments.of("FCM1", 35, Ppc970Registers.FCM1, 0x1000_0000L),
                Arguments.of("FCM0", 36, Ppc970Registers.FCM0, 0x0800_0000L),
                Arguments.of("PMXE", 37, Ppc970Registers.PMXE, 0x0400_0000L),
                Arguments.of("FCECE", 38, Ppc970Registers.FCECE, 0x0200_0000L),
                Arguments.of("TBEE", 41, Ppc970Registers.TBEE, 0x0040_0000L),
                Arguments.of("PMC1CE", 48, Ppc970Registers.PMC1CE, 0x0000_8000L),
                Arguments.of("PMCjCE", 49, Ppc970Registers.PMCJCE, 0x0000_4000L),
                Arguments.of("TRIGGER", 50, Ppc970Registers.TRIGGER, 0x0000_2000L),
                Arguments.of("PMAO", 56, Ppc970Registers.PMAO, 0x0000_0080L),
                Arguments.of("reserved 57", 57, Ppc970Registers.MMCR0_RESERVED_57, 0x0000_0040L),
                Arguments.of("FCH", 63, Ppc970Registers.FCH, 0x0000_0001L));
    }

    @ParameterizedTest(name = "MMCR0 {0} is IBM bit {1} = {3}")
    @MethodSource("mmcr0Bits")
    void mmcr0BitSitsAtItsIbmPositionWithTheFactsMask(String name, int ibmBit, long constant, long factsMask) {
        assertEquals(factsMask, constant, name);
        assertEquals(Ppc970Registers.ibmBit(ibmBit), constant, name);
    }

    @Test
    void mmcr0FieldsHaveTheFactsMasks() {
        assertEquals(0x0180_0000L, Ppc970Registers.TBSEL, "TBSEL, IBM 39-40");
        assertEquals(0x003F_0000L, Ppc970Registers.THRESHOLD, "THRESHOLD, IBM 42-47");
        assertEquals(0x0000_1F00L, Ppc970Registers.PMC1SEL, "PMC1SEL, IBM 51-55");
        assertEquals(8, Ppc970Registers.PMC1SEL_SHIFT);
        assertEquals(0x0000_003EL, Ppc970Registers.PMC2SEL, "PMC2SEL, IBM 58-62");
        assertEquals(1, Ppc970Registers.PMC2SEL_SHIFT);
        assertEquals(0xFFFF_FFBFL, Ppc970Registers.MMCR0_WRITABLE, "the low word without reserved bit 57");
    }

    @Test
    void mmcr1SelectorShiftsAreTheFactsLsbShifts() {
        assertEquals(27, Ppc970Registers.MMCR1_SEL_SHIFT[0], "PMC3SEL, IBM 32-36");
        assertEquals(22, Ppc970Registers.MMCR1_SEL_SHIFT[1], "PMC4SEL, IBM 37-41");
        assertEquals(17, Ppc970Registers.MMCR1_SEL_SHIFT[2], "PMC5SEL, IBM 42-46");
        assertEquals(12, Ppc970Registers.MMCR1_SEL_SHIFT[3], "PMC6SEL, IBM 47-51");
        assertEquals(7, Ppc970Registers.MMCR1_SEL_SHIFT[4], "PMC7SEL, IBM 52-56");
        assertEquals(2, Ppc970Registers.MMCR1_SEL_SHIFT[5], "PMC8SEL, IBM 57-61");
        assertEquals(0x3L, Ppc970Registers.SPCSEL, "SPCSEL, IBM 62-63");
    }

    @Test
    void mmcraBitsHaveTheFactsMasks() {
        assertEquals(0x8000_0000L, Ppc970Registers.SDSYNC, "IBM 32");
        assertEquals(0x4000_0000L, Ppc970Registers.FREEZE_PMC1_4, "IBM 33");
        assertEquals(0x2000_0000L, Ppc970Registers.FREEZE_PMC5_8, "IBM 34");
        assertEquals(0x1000_0000L, Ppc970Registers.MMCRA_BIT35, "IBM 35");
        assertEquals(0x0800_0000L, Ppc970Registers.MMCRA_BIT36, "IBM 36");
        assertEquals(0x0000_2000L, Ppc970Registers.MARK_ONE_IOP, "IBM 50");
        assertEquals(0x2L, Ppc970Registers.FREEZE_IN_WAIT, "IBM 62");
        assertEquals(0x1L, Ppc970Registers.SAMPLE_ENABLE, "IBM 63");
    }

    @Test
    void defaultGroupMmcr0DecodesAsTheFactsSay() {
        long mmcr0 = 0x0400_C51EL;
        assertTrue((mmcr0 & Ppc970Registers.PMXE) != 0);
        assertTrue((mmcr0 & Ppc970Registers.PMC1CE) != 0);
        assertTrue((mmcr0 & Ppc970Registers.PMCJCE) != 0);
        assertEquals(0x05, Ppc970Registers.selector(0, mmcr0, 0));
        assertEquals(0x0F, Ppc970Registers.selector(1, mmcr0, 0), "PMC2 counts cycles");
        assertEquals(0, mmcr0 & (Ppc970Registers.FC | Ppc970Registers.TRIGGER | Ppc970Registers.PMAO));
    }

    @ParameterizedTest(name = "PMC{0}SEL of MMCR1 0x0A46F18C is 0x{1}")
    @CsvSource({"3, 01", "4, 09", "5, 03", "6, 0F", "7, 03", "8, 03"})
    void defaultGroupMmcr1DecodesAsTheFactsSay(int pmc, String sel) {
        assertEquals(Integer.parseInt(sel, 16), Ppc970Registers.selector(pmc - 1, 0, 0x0A46_F18CL));
    }

    @Test
    void aPmcIsNegativeExactlyWhenBit31IsSet() {
        assertFalse(Ppc970Registers.negative(0x7FFF_FFFFL));
        assertTrue(Ppc970Registers.negative(0x8000_0000L));
        assertTrue(Ppc970Registers.negative(0xFFFF_FFFFL));
        assertFalse(Ppc970Registers.negative(0));
    }

    @ParameterizedTest(name = "from 0x{0}: {1} events until negative")
    @CsvSource({"0, 2147483648", "7FFFFFFF, 1", "7FFE7960, 100000", "80000000, 4294967296",
            "FFFFFFFF, 2147483649"})
    void eventsUntilNegativeCountsThroughTheWrapWhenAlreadyNegative(String value, long events) {
        long v = Long.parseLong(value, 16);
        assertEquals(events, Ppc970Registers.eventsUntilNegative(v));
        assertFalse(Ppc970Registers.becomesNegative(v, events - 1));
        assertTrue(Ppc970Registers.becomesNegative(v, events));
    }
}
