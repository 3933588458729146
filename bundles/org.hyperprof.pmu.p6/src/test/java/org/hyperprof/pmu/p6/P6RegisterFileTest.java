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
import static org.hyperprof.testing.pmu.PmuFixtures.afterWrite;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The P6 register file: what each register keeps of a write and what a read returns. */
class P6RegisterFileTest {
    private final P6Fixture fixture = P6Fixture.create();
    private final P6Pmu pmu = fixture.pmu();

    /** Per case: the rule, the register written, the value written and what a read returns after it. */
    static Stream<Arguments> writesAndWhatIsKept() {
        long edgePinInvertMask = EVTSEL_E | EVTSEL_PC | EVTSEL_INV | EVTSEL_CMASK | (0x0FL << 8) | 0x2E;
        return Stream.of(
                arguments("a write sign-extends bit 31 into bits 39:32", PERFCTR0, 0x8000_0000L, 0xFF_8000_0000L),
                arguments("a write sign-extends bit 31 into bits 39:32 (all ones)", PERFCTR1, 0xFFFF_FFFFL,
                        0xFF_FFFF_FFFFL),
                arguments("a write with bit 31 clear leaves bits 39:32 zero", PERFCTR0, 0x7FFF_FFFFL, 0x7FFF_FFFFL),
                arguments("a write ignores bits above 31 of the value, as WRMSR ignores EDX", PERFCTR0,
                        0xAB_1234_5678L, 0x1234_5678L),
                arguments("a write ignores bits above 31 of the value, as WRMSR ignores EDX (bit 31 set)", PERFCTR1,
                        0x12_8000_0001L, 0xFF_8000_0001L),
                arguments("a write of minus the count preloads the 40-bit two's complement (0xFF_FFFE_7960)", PERFCTR0,
                        -100_000L, (1L << 40) - 100_000L),
                arguments("an event select keeps only bits 31:0: the upper half is reserved", PERFEVTSEL0,
                        0xFFFF_FFFF_FFFF_FFFFL, 0xFFFF_FFFFL),
                arguments("an event select keeps only bits 31:0: the upper half is reserved (PerfEvtSel1)",
                        PERFEVTSEL1, 0x5_0041_00C0L, 0x0041_00C0L),
                arguments("an event select stores edge, pin control, invert and counter mask", PERFEVTSEL1,
                        edgePinInvertMask, edgePinInvertMask),
                arguments("EN written into PerfEvtSel1 is accepted without fault", PERFEVTSEL1,
                        EVTSEL_EN | EVTSEL_USR | CLK, EVTSEL_EN | EVTSEL_USR | CLK),
                arguments("the LVTPC keeps bits 7:0 vector, 10:8 delivery mode and 16 mask only", LVTPC, 0xFFFF_FFFFL,
                        0x1_07FFL),
                arguments("the LVTPC keeps bits 7:0 vector, 10:8 delivery mode and 16 mask only (delivery mode)", LVTPC,
                        0x400L, 0x400L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writesAndWhatIsKept")
    void eachRegisterKeepsWhatTheP6KeepsOfAWrite(String rule, int register, long written, long read) {
        assertEquals(read, afterWrite(pmu, register, written));
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
    void lvtpcComesOutOfResetMasked() {
        assertEquals(0x1_0000L, pmu.read(LVTPC));
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
