package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Fixture.PR;
import static org.hyperprof.pmu.ppc970.Ppc970Fixture.pmc;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMCJCE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMXE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SDAR;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SIAR;
import static org.hyperprof.testing.pmu.PmuFixtures.afterWrite;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reads and writes: widths, implemented words, the register list, power-on state. */
class Ppc970RegisterFileTest {
    private final Ppc970Fixture fixture = Ppc970Fixture.create();
    private final Ppc970Pmu pmu = fixture.pmu();

    @Test
    void everyRegisterIsZeroAtPowerOn() {
        for (int spr = 786; spr <= 798; spr++) {
            assertEquals(0, pmu.read(spr), Ppc970Registers.name(spr));
        }
        assertFalse(pmu.interruptPending());
        assertFalse(pmu.alertPending());
        assertEquals(-1, pmu.sampledAddress());
        assertEquals(-1, pmu.sampledCpl());
    }

    @Test
    void counterAndControlRegistersAreListedInCounterOrder() {
        assertArrayEquals(new int[] {787, 788, 789, 790, 791, 792, 793, 794}, pmu.counterRegisters());
        assertArrayEquals(new int[] {795, 798, 786}, pmu.controlRegisters());
    }

    @ParameterizedTest(name = "PMC{0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void pmcWriteKeepsAll32BitsAndDropsTheHighWord(int n) {
        pmu.write(pmc(n - 1), 0x1234_5678_7BCD_EF01L);
        assertEquals(0x7BCD_EF01L, pmu.read(pmc(n - 1)), "32-bit counter: no sign extension, no high word");
        pmu.write(pmc(n - 1), 0xFFFF_FFFFL);
        assertEquals(0xFFFF_FFFFL, pmu.read(pmc(n - 1)), "a full 32-bit write, read back unsigned");
    }

    @Test
    void aPmcWrapsFromAllOnesToZeroSilently() {
        Ppc970Pmu p = fixture.allCounting(0);
        p.write(pmc(1), 0xFFFF_FFFEL);
        p.write(MMCR0, p.read(MMCR0) | PMXE | PMCJCE);
        p.advance(3, onePerCycle(), PR);
        assertEquals(1, p.read(pmc(1)), "0xFFFFFFFE + 3 wraps to 1");
        assertFalse(p.alertPending(), "wrapping to zero is not becoming negative");
    }

    @Test
    void aPmcKeepsCountingWhileNegative() {
        Ppc970Pmu p = fixture.allCounting(0);
        p.write(pmc(1), 0x7FFF_FFFEL);
        p.advance(10, onePerCycle(), PR);
        assertEquals(0x8000_0008L, p.read(pmc(1)));
    }

    @Test
    void mmcr0KeepsTheLowWordWithoutReservedBit57() {
        assertEquals(0xFFFF_FFBFL, afterWrite(pmu, MMCR0, -1L));
    }

    @Test
    void mmcr1Keeps64Bits() {
        assertEquals(0x8003_C01D_0676_FD6CL, afterWrite(pmu, MMCR1, 0x8003_C01D_0676_FD6CL));
    }

    @Test
    void mmcraKeepsTheLowWordOnly() {
        assertEquals(0x2001L, afterWrite(pmu, MMCRA, 0xFFFF_FFFF_0000_2001L));
    }

    @Test
    void siarAndSdarKeep64BitsAndASoftwareSiarIsNoSample() {
        pmu.write(SIAR, 0xC000_0000_0012_3456L);
        pmu.write(SDAR, 0xD000_0000_0000_0008L);
        assertEquals(0xC000_0000_0012_3456L, pmu.read(SIAR));
        assertEquals(0xD000_0000_0000_0008L, pmu.read(SDAR));
        assertEquals(-1, pmu.sampledAddress(), "SIAR written by software was not latched by an alert");
    }

    @ParameterizedTest(name = "SPR {0}")
    @ValueSource(ints = {0x340, 0xC1, 785, 799, 771})
    void anUnknownRegisterIsRefusedWithTheListOfRegisters(int spr) {
        IllegalArgumentException read = assertThrows(IllegalArgumentException.class, () -> pmu.read(spr));
        assertTrue(read.getMessage().contains("MMCRA (786), PMC1-PMC8 (787-794), MMCR0 (795)"), read.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pmu.write(spr, 0));
    }

    @Test
    void theModelReportsEightThirtyTwoBitCountersAndItsCpu() {
        Ppc970Pmu p = (Ppc970Pmu) fixture.model.createPmu(5, java.util.Map.of());
        assertEquals(5, p.cpu());
        assertEquals(fixture.model, p.model());
        assertTrue(p.toString().contains("PMC8=0x00000000"), p.toString());
        assertThrows(IllegalArgumentException.class, () -> fixture.model.createPmu(-1, java.util.Map.of()));
    }
}
