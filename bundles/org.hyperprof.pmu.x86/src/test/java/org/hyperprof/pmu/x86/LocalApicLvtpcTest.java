package org.hyperprof.pmu.x86;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The local APIC LVTPC entry (pmu-facts 1.1): fields, delivery, auto-mask and the driver's save/restore. */
class LocalApicLvtpcTest {

    @Test
    void entryComesOutOfResetMasked() {
        LocalApicLvtpc lvtpc = new LocalApicLvtpc(false);
        assertEquals(0x10000, lvtpc.read());
        assertFalse(lvtpc.deliverable());
    }

    @Test
    void writeKeepsVectorDeliveryModeAndMaskOnly() {
        LocalApicLvtpc lvtpc = new LocalApicLvtpc(false);
        lvtpc.write(0xFFFF_FFFF_FFFF_FFFFL);
        assertEquals(0x107FF, lvtpc.read(), "bits 7:0, 10:8 and 16 survive; delivery status and the rest do not");
    }

    @Test
    void unmaskedNmiIsDeliverableWhateverTheVector() {
        assertTrue(LocalApicLvtpc.deliverable(0x400));
        assertTrue(LocalApicLvtpc.deliverable(0x405));
    }

    @Test
    void fixedDeliveryNeedsAVectorOfSixteenOrMore() {
        assertFalse(LocalApicLvtpc.deliverable(0x000 | 15), "vector 15 is illegal");
        assertTrue(LocalApicLvtpc.deliverable(0x000 | 16));
        assertTrue(LocalApicLvtpc.deliverable(0xEE));
    }

    @Test
    void maskedEntryDeliversNothing() {
        assertFalse(LocalApicLvtpc.deliverable(0x10400));
        assertFalse(LocalApicLvtpc.deliverable(0x100EE));
    }

    @Test
    void otherDeliveryModesAreNotDeliverable() {
        assertFalse(LocalApicLvtpc.deliverable(0x200), "SMI");
        assertFalse(LocalApicLvtpc.deliverable(0x700 | 0xEE), "ExtINT");
    }

    @Test
    void autoMaskingPartSetsMaskBitOnDelivery() {
        LocalApicLvtpc lvtpc = new LocalApicLvtpc(true);
        lvtpc.write(0x400);
        lvtpc.deliver();
        assertEquals(0x10400, lvtpc.read());
        assertFalse(lvtpc.deliverable(), "a second PMI waits for the handler's unmask");
    }

    @Test
    void partThatDoesNotAutoMaskLeavesEntryUnmaskedOnDelivery() {
        LocalApicLvtpc lvtpc = new LocalApicLvtpc(false);
        lvtpc.write(0x400);
        lvtpc.deliver();
        assertEquals(0x400, lvtpc.read());
        assertTrue(lvtpc.deliverable());
    }

    @Test
    void unmaskClearsOnlyTheMaskBit() {
        LocalApicLvtpc lvtpc = new LocalApicLvtpc(true);
        lvtpc.write(0x104EE);
        lvtpc.unmask();
        assertEquals(0x4EE, lvtpc.read());
    }

    @Test
    void routeToNmiWrites0x400AndRestoreBringsBackTheSavedValue() {
        LocalApicLvtpc lvtpc = new LocalApicLvtpc(false);
        lvtpc.write(0x100EE);
        lvtpc.routeToNmi();
        assertEquals(0x400, lvtpc.read());
        lvtpc.write(0x10400);
        lvtpc.restore();
        assertEquals(0x100EE, lvtpc.read());
    }

    @Test
    void autoMasksReportsTheConstructorChoice() {
        assertTrue(new LocalApicLvtpc(true).autoMasks());
        assertFalse(new LocalApicLvtpc(false).autoMasks());
    }

    @Test
    void cplZeroToThreeIsAccepted() {
        for (int cpl = 0; cpl <= 3; cpl++) {
            LocalApicLvtpc.checkCpl(7, cpl);
        }
    }

    @Test
    void cplOutsideZeroToThreeIsRejectedNamingCpuAndLegalLevels() {
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> LocalApicLvtpc.checkCpl(7, -1));
        assertTrue(low.getMessage().contains("CPU 7") && low.getMessage().contains("expected 0"), low.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LocalApicLvtpc.checkCpl(7, 4));
    }
}
