package org.hyperprof.pmu.x86_64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** CPUID leaf 0x0A decoding (pmu-facts 5.1) and the two parts the models describe. */
class CpuidLeaf0ATest {

    @Test
    void archPerfmonDescribesANehalemClassVersion3Part() {
        CpuidLeaf0A leaf = ArchFixture.ARCH.cpuid();
        assertEquals(3, leaf.version());
        assertEquals(4, leaf.gpCounters());
        assertEquals(48, leaf.gpWidth());
        assertEquals(3, leaf.fixedCounters());
        assertEquals(48, leaf.fixedWidth());
        assertEquals(7, leaf.eventVectorLength());
        assertEquals(0x07300403L, leaf.eax());
        assertEquals(0x603L, leaf.edx());
    }

    @Test
    void core2DescribesAVersion2PartWithTwo40BitCounters() {
        CpuidLeaf0A leaf = ArchFixture.CORE2.cpuid();
        assertEquals(2, leaf.version());
        assertEquals(2, leaf.gpCounters());
        assertEquals(40, leaf.gpWidth());
        assertEquals(3, leaf.fixedCounters());
        assertEquals(40, leaf.fixedWidth());
        assertEquals(0x07280202L, leaf.eax());
        assertEquals(0x503L, leaf.edx());
    }

    @Test
    void decodeSplitsEaxIntoVersionCountWidthAndVectorLength() {
        CpuidLeaf0A leaf = CpuidLeaf0A.decode(0x05280302L, 0x4L, 0x0L);
        assertEquals(2, leaf.version());
        assertEquals(3, leaf.gpCounters());
        assertEquals(40, leaf.gpWidth());
        assertEquals(5, leaf.eventVectorLength());
    }

    @Test
    void decodeSplitsEdxIntoFixedCountAndWidth() {
        CpuidLeaf0A leaf = CpuidLeaf0A.decode(0x07300403L, 0, (40L << 5) | 2);
        assertEquals(2, leaf.fixedCounters());
        assertEquals(40, leaf.fixedWidth());
    }

    @Test
    void version1IgnoresEdxBecauseItHasNoFixedCounters() {
        CpuidLeaf0A leaf = CpuidLeaf0A.decode(0x07280201L, 0, 0x503L);
        assertEquals(1, leaf.version());
        assertEquals(0, leaf.fixedCounters());
        assertFalse(leaf.hasGlobalRegisters());
    }

    @Test
    void globalRegistersFromVersion2AndAnyThreadFromVersion3() {
        assertFalse(CpuidLeaf0A.of(1, 2, 40, 7, 0, 0, 0).hasGlobalRegisters());
        assertTrue(CpuidLeaf0A.of(2, 2, 40, 7, 0, 3, 40).hasGlobalRegisters());
        assertFalse(CpuidLeaf0A.of(2, 2, 40, 7, 0, 3, 40).hasAnyThread());
        assertTrue(CpuidLeaf0A.of(3, 2, 40, 7, 0, 3, 40).hasAnyThread());
    }

    @Test
    void anEbxBitSetMeansTheArchitecturalEventIsNotAvailable() {
        CpuidLeaf0A leaf = CpuidLeaf0A.of(3, 4, 48, 7, 0b0010100, 3, 48);
        assertTrue(leaf.eventAvailable(0));
        assertTrue(leaf.eventAvailable(1));
        assertFalse(leaf.eventAvailable(2), "EBX bit 2: reference cycles missing");
        assertTrue(leaf.eventAvailable(3));
        assertFalse(leaf.eventAvailable(4), "EBX bit 4: LLC misses missing");
        assertTrue(leaf.eventAvailable(6));
    }

    @Test
    void eventsBeyondTheEbxVectorLengthAreNotAvailable() {
        CpuidLeaf0A leaf = CpuidLeaf0A.of(2, 2, 40, 5, 0, 3, 40);
        assertTrue(leaf.eventAvailable(4));
        assertFalse(leaf.eventAvailable(5), "bit 5 lies beyond the vector length 5");
        assertFalse(leaf.eventAvailable(6));
    }

    @Test
    void xensOverflowTestUsesTheCpuidWidth() {
        assertEquals(48, ArchFixture.ARCH.cpuid().overflowTestWidth());
        assertEquals(40, ArchFixture.CORE2.cpuid().overflowTestWidth());
    }

    @Test
    void anEmptyCore2BiosLeafIsTreatedAsVersion2TwoCounters40BitsWithTheTestAtBit31() {
        CpuidLeaf0A quirk = CpuidLeaf0A.biosVersionZero(ArchFixture.CORE2.cpuid());
        assertEquals(0, quirk.reportedVersion());
        assertEquals(0, quirk.eax(), "the BIOS reports nothing");
        assertEquals(2, quirk.version());
        assertEquals(2, quirk.gpCounters());
        assertEquals(40, quirk.gpWidth());
        assertEquals(32, quirk.overflowTestWidth());
    }

    @Test
    void impossibleLeavesAreRefusedNamingTheField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CpuidLeaf0A.decode(0x07300404L, 0, 0));
        assertTrue(e.getMessage().contains("version 4"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuidLeaf0A.of(2, 9, 40, 7, 0, 0, 0));
        assertTrue(e.getMessage().contains("general-purpose counters") && e.getMessage().contains("1..8"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuidLeaf0A.of(2, 2, 64, 7, 0, 0, 0));
        assertTrue(e.getMessage().contains("width") && e.getMessage().contains("32..48"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CpuidLeaf0A.of(1, 2, 40, 7, 0, 3, 40));
        assertTrue(e.getMessage().contains("version 1 has no fixed counters"), e.getMessage());
    }
}
