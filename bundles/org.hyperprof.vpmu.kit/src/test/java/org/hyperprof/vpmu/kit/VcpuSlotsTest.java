package org.hyperprof.vpmu.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VcpuSlotsTest {

    @Test
    void eachGuestVcpuGetsTheNextSlotOnFirstSightAndKeepsIt() {
        VcpuSlots slots = new VcpuSlots(2);
        assertEquals(-1, slots.find(3, 1));
        assertEquals(0, slots.findOrAdd(3, 1));
        assertEquals(1, slots.findOrAdd(0, 0));
        assertEquals(0, slots.findOrAdd(3, 1), "a vCPU seen before keeps its slot");
        assertEquals(2, slots.size());
        assertEquals(3, slots.domid(0));
        assertEquals(1, slots.vcpu(0));
    }

    @Test
    void theTablesGrowWithoutLosingASlot() {
        VcpuSlots slots = new VcpuSlots(4);
        for (int d = 0; d < 300; d++) {
            assertEquals(d, slots.findOrAdd(d, d % 7));
        }
        assertTrue(slots.slotCapacity() >= 300);
        for (int d = 0; d < 300; d++) {
            assertEquals(d, slots.find(d, d % 7));
            assertEquals(d, slots.domid(d));
        }
    }

    @Test
    void theIdleVcpuAndReservedDomainIdsAreNoGuestVcpus() {
        VcpuSlots slots = new VcpuSlots(4);
        assertThrows(IllegalArgumentException.class, () -> slots.findOrAdd(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> VcpuSlots.checkGuest(0x7FF0, 0), "DOMID_FIRST_RESERVED");
        assertThrows(IllegalArgumentException.class, () -> VcpuSlots.checkGuest(1, 0x10000));
        VcpuSlots.checkGuest(VcpuSlots.MAX_DOMID, VcpuSlots.MAX_VCPU);
    }
}
