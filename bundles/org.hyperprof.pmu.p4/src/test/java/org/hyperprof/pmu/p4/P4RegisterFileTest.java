package org.hyperprof.pmu.p4;

import static org.hyperprof.pmu.p4.P4Fixture.FSB_ESCR0;
import static org.hyperprof.pmu.p4.P4Fixture.IQ_ESCR0;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** Register rules: power-on values, 40-bit counters written whole, writable CCCR and ESCR bits, MISC_ENABLE. */
class P4RegisterFileTest {
    private final P4Pmu pmu = P4Fixture.p4();

    @Test
    void powerOnCountersCccrsAndEscrsAreZeroAndLvtpcIsMasked() {
        for (int h = 0; h < 18; h++) {
            assertEquals(0, pmu.read(0x300 + h));
            assertEquals(0, pmu.read(0x360 + h));
        }
        assertEquals(0, pmu.read(FSB_ESCR0));
        assertEquals(0x10000, pmu.read(0x340));
    }

    @Test
    void miscEnableReportsPerformanceMonitoringAvailableAndIsReadOnly() {
        assertEquals(1L << 7, pmu.read(0x1A0) & (1L << 7));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.write(0x1A0, 0));
        assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    }

    @Test
    void counterWritesTakeAll40BitsWithoutSignExtension() {
        pmu.write(0x300, 0x8000_0000L);
        assertEquals(0x8000_0000L, pmu.read(0x300), "bit 31 is not copied into bits 39:32");
        pmu.write(0x304, 0x12_3456_789AL);
        assertEquals(0x12_3456_789AL, pmu.read(0x304), "bits 39:32 are written from EDX");
    }

    @Test
    void counterWritesDropBitsAbove39() {
        pmu.write(0x311, 0xFFFF_FF00_0000_0001L);
        assertEquals(1, pmu.read(0x311));
    }

    @Test
    void minusCountWrittenWithAllOnesInTheHighHalfPreloadsTheTwosComplementIn40Bits() {
        pmu.write(0x310, -100_000L);
        assertEquals((1L << 40) - 100_000, pmu.read(0x310));
    }

    @Test
    void cccrReservedBitsReadAsZero() {
        pmu.write(0x360, 0xFFFF_FFFF_FFFF_FFFFL);
        assertEquals(0xCFFF_F000L, pmu.read(0x360), "bits 11:0, 29:28 and 63:32 are reserved");
    }

    @Test
    void escrBit31IsReserved() {
        pmu.write(FSB_ESCR0, 0xFFFF_FFFFL);
        assertEquals(0x7FFF_FFFFL, pmu.read(FSB_ESCR0));
    }

    @Test
    void lvtpcKeepsVectorDeliveryModeAndMask() {
        pmu.write(0x340, 0xFFFF_FFFFL);
        assertEquals(0x107FF, pmu.read(0x340));
    }

    @Test
    void iqEscrsExistOnlyOnModels1And2() {
        P4Pmu model2 = P4Fixture.p4();
        model2.write(IQ_ESCR0, 5);
        assertEquals(5, model2.read(IQ_ESCR0));
        P4Pmu model3 = (P4Pmu) P4Fixture.P4.createPmu(0, Map.of("cpu.model", "3"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> model3.read(IQ_ESCR0));
        assertTrue(e.getMessage().contains("IQ_ESCR0 (MSR 0x3BA) does not exist on family 0Fh model 3"), e.getMessage());
    }

    @Test
    void otherRegistersAreRefusedListingTheOnesThatExist() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.read(0x312));
        assertTrue(e.getMessage().contains("0x312 is not a Pentium 4 performance-monitoring register"), e.getMessage());
        assertTrue(e.getMessage().contains("MSR 0x300-0x311"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pmu.write(0x3C6, 0));
        assertThrows(IllegalArgumentException.class, () -> pmu.read(0xC1));
    }

    @Test
    void p4CounterAndControlRegistersAreOprofilesEightCountersTheirCccrsAndEveryEscr() {
        assertArrayEquals(new int[] {0x300, 0x304, 0x308, 0x310, 0x302, 0x306, 0x30A, 0x311}, pmu.counterRegisters());
        int[] controls = pmu.controlRegisters();
        assertEquals(8 + 45, controls.length);
        assertArrayEquals(new int[] {0x360, 0x364, 0x368, 0x370, 0x362, 0x366, 0x36A, 0x371},
                java.util.Arrays.copyOf(controls, 8));
    }

    @Test
    void htThread0OwnsTheEvenHalfAndThread1TheOddHalf() {
        P4Pmu t0 = P4Fixture.ht(0);
        P4Pmu t1 = P4Fixture.ht(1);
        assertArrayEquals(new int[] {0x300, 0x304, 0x308, 0x310}, t0.counterRegisters());
        assertArrayEquals(new int[] {0x302, 0x306, 0x30A, 0x311}, t1.counterRegisters());
        assertArrayEquals(new int[] {0x360, 0x364, 0x368, 0x370},
                java.util.Arrays.copyOf(t0.controlRegisters(), 4));
        for (int i = 4; i < t0.controlRegisters().length; i++) {
            assertEquals(0, t0.controlRegisters()[i] & 1, "thread 0 owns even ESCRs");
        }
        for (int i = 4; i < t1.controlRegisters().length; i++) {
            assertEquals(1, t1.controlRegisters()[i] & 1, "thread 1 owns odd ESCRs");
        }
        assertEquals(4 + 23, t0.controlRegisters().length, "22 even ESCRs with IQ_ESCR0, plus SSU_ESCR0");
        assertEquals(4 + 22, t1.controlRegisters().length);
    }
}
