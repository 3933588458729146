package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.p6.P6Fixture.CLK;
import static org.hyperprof.pmu.p6.P6Registers.LVTPC;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR0;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR1;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL0;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL1;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_CMASK;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_E;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INV;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_PC;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The P6 register file: what each register keeps of a write and what a read returns. */
class P6RegisterFileTest {
    private final P6Fixture fixture = P6Fixture.create();
    private final P6Pmu pmu = fixture.pmu();

    @Test
    void writeSignExtendsBit31IntoBits39To32() {
        pmu.write(PERFCTR0, 0x8000_0000L);
        assertEquals(0xFF_8000_0000L, pmu.read(PERFCTR0));
        pmu.write(PERFCTR1, 0xFFFF_FFFFL);
        assertEquals(0xFF_FFFF_FFFFL, pmu.read(PERFCTR1));
    }

    @Test
    void writeWithBit31ClearLeavesBits39To32Zero() {
        pmu.write(PERFCTR0, 0x7FFF_FFFFL);
        assertEquals(0x7FFF_FFFFL, pmu.read(PERFCTR0));
    }

    @Test
    void writeIgnoresBitsAbove31OfTheValueLikeWrmsrIgnoresEdx() {
        pmu.write(PERFCTR0, 0xAB_1234_5678L);
        assertEquals(0x1234_5678L, pmu.read(PERFCTR0));
        pmu.write(PERFCTR1, 0x12_8000_0001L);
        assertEquals(0xFF_8000_0001L, pmu.read(PERFCTR1));
    }

    @Test
    void writeOfMinusCountPreloadsTheFortyBitTwosComplement() {
        pmu.write(PERFCTR0, -100_000L);
        assertEquals((1L << 40) - 100_000L, pmu.read(PERFCTR0));
        assertEquals(0xFF_FFFE_7960L, pmu.read(PERFCTR0));
    }

    @Test
    void readReturnsAllFortyBitsOfACounterThatCountedPast32Bits() {
        pmu.write(PERFCTR0, 0);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_USR | CLK);
        pmu.advance((1L << 32) + 5, onePerCycle(), 3);
        assertEquals(0x1_0000_0005L, pmu.read(PERFCTR0));
    }

    @Test
    void readNeverReturnsMoreThanFortyBits() {
        pmu.write(PERFCTR0, -1);
        assertEquals(0, pmu.read(PERFCTR0) >>> 40);
    }

    @Test
    void eventSelectKeepsOnlyBits31To0BecauseTheUpperHalfIsReserved() {
        pmu.write(PERFEVTSEL0, 0xFFFF_FFFF_FFFF_FFFFL);
        assertEquals(0xFFFF_FFFFL, pmu.read(PERFEVTSEL0));
        pmu.write(PERFEVTSEL1, 0x5_0041_00C0L);
        assertEquals(0x0041_00C0L, pmu.read(PERFEVTSEL1));
    }

    @Test
    void eventSelectStoresEdgePinControlInvertAndCounterMask() {
        long word = EVTSEL_E | EVTSEL_PC | EVTSEL_INV | EVTSEL_CMASK | (0x0FL << 8) | 0x2E;
        pmu.write(PERFEVTSEL1, word);
        assertEquals(word, pmu.read(PERFEVTSEL1));
    }

    @Test
    void enWrittenIntoPerfEvtSel1IsAcceptedWithoutFault() {
        pmu.write(PERFEVTSEL1, EVTSEL_EN | EVTSEL_USR | CLK);
        assertEquals(EVTSEL_EN | EVTSEL_USR | CLK, pmu.read(PERFEVTSEL1));
    }

    @Test
    void lvtpcComesOutOfResetMasked() {
        assertEquals(0x1_0000L, pmu.read(LVTPC));
    }

    @Test
    void lvtpcKeepsVectorDeliveryModeAndMaskOnly() {
        pmu.write(LVTPC, 0xFFFF_FFFFL);
        assertEquals(0x1_07FFL, pmu.read(LVTPC), "bits 7:0 vector, 10:8 delivery mode, 16 mask");
        pmu.write(LVTPC, 0x400);
        assertEquals(0x400L, pmu.read(LVTPC));
    }

    @Test
    void countersAndSelectsAreZeroAtPowerOn() {
        assertEquals(0, pmu.read(PERFCTR0));
        assertEquals(0, pmu.read(PERFCTR1));
        assertEquals(0, pmu.read(PERFEVTSEL0));
        assertEquals(0, pmu.read(PERFEVTSEL1));
    }

    @Test
    void registerNumbersAreTheArchitecturalMsrs() {
        assertArrayEquals(new int[] {0xC1, 0xC2}, pmu.counterRegisters());
        assertArrayEquals(new int[] {0x186, 0x187}, pmu.controlRegisters());
    }

    @Test
    void aRegisterTheP6LacksIsRejectedNamingTheOnesItHas() {
        IllegalArgumentException read = assertThrows(IllegalArgumentException.class, () -> pmu.read(0x38F));
        assertTrue(read.getMessage().contains("0x38F"), read.getMessage());
        assertTrue(read.getMessage().contains("0xC1/0xC2"), read.getMessage());
        IllegalArgumentException write = assertThrows(IllegalArgumentException.class, () -> pmu.write(0xC3, 1));
        assertTrue(write.getMessage().contains("0x186/0x187"), write.getMessage());
    }
}
