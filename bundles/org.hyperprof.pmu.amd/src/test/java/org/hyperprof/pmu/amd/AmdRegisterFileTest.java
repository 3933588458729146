package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.ALL_48;
import static org.hyperprof.pmu.amd.AmdFixture.ATHLON;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY10;
import static org.hyperprof.pmu.amd.AmdFixture.FAMILY15H;
import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.hyperprof.pmu.amd.AmdFixture.ctr;
import static org.hyperprof.pmu.amd.AmdFixture.pmu;
import static org.hyperprof.pmu.amd.AmdFixture.sel;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_EILVT;
import static org.hyperprof.pmu.amd.AmdRegisters.IBS_FETCH_CTL;
import static org.hyperprof.pmu.amd.AmdRegisters.LVTPC;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Register numbers, widths and write semantics of the AMD register files. */
class AmdRegisterFileTest {

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void powerOnStateHasZeroCountersAndSelectsAndMaskedLvtpc(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        for (int i = 0; i < model.counterCount(); i++) {
            assertEquals(0, pmu.read(ctr(model, i)));
            assertEquals(0, pmu.read(sel(model, i)));
        }
        assertEquals(0x1_0000, pmu.read(LVTPC), "LVT entries come out of reset masked");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void counterWriteKeepsAll48BitsWithoutSignExtension(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(ctr(model, 0), 0x8000_0000L);
        assertEquals(0x8000_0000L, pmu.read(ctr(model, 0)), "bit 31 is not copied into bits 47:32");
        pmu.write(ctr(model, 1), 0x1234_5678_9ABCL);
        assertEquals(0x1234_5678_9ABCL, pmu.read(ctr(model, 1)), "bits 47:32 are written, not just EAX");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void counterWriteDropsReservedBits63To48(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(ctr(model, 0), -1L);
        assertEquals(ALL_48, pmu.read(ctr(model, 0)));
        pmu.write(ctr(model, 0), -100_000L);
        assertEquals(0xFFFF_FFFE_7960L, pmu.read(ctr(model, 0)), "-count is 0xFFFF_xxxx_xxxx in 48 bits");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void modelsReport48BitCountersAndTheirCounterCount(AmdPmuModel model) {
        assertEquals(48, model.counterWidth());
        assertEquals(model == FAMILY15H ? 6 : 4, model.counterCount());
        assertEquals(model.counterCount(), pmu(model).counterRegisters().length);
        assertEquals(model.counterCount(), pmu(model).controlRegisters().length);
    }

    @Test
    void k7AndK8CountersAndSelectsSitAtTheLegacyMsrs() {
        for (AmdPmuModel model : new AmdPmuModel[] {ATHLON, HAMMER, FAMILY10}) {
            AmdPmu pmu = pmu(model);
            assertArrayEquals(new int[] {0xC001_0004, 0xC001_0005, 0xC001_0006, 0xC001_0007}, pmu.counterRegisters());
            assertArrayEquals(new int[] {0xC001_0000, 0xC001_0001, 0xC001_0002, 0xC001_0003}, pmu.controlRegisters());
        }
    }

    @Test
    void family15hCountersSitAt0xC0010201Plus2iAndControlsAt0xC0010200Plus2i() {
        AmdPmu pmu = pmu(FAMILY15H);
        assertArrayEquals(new int[] {0xC001_0201, 0xC001_0203, 0xC001_0205, 0xC001_0207, 0xC001_0209, 0xC001_020B},
                pmu.counterRegisters());
        assertArrayEquals(new int[] {0xC001_0200, 0xC001_0202, 0xC001_0204, 0xC001_0206, 0xC001_0208, 0xC001_020A},
                pmu.controlRegisters());
        for (int i = 0; i < 6; i++) {
            pmu.write(0xC001_0201 + 2 * i, 0x100 + i);
            pmu.write(0xC001_0200 + 2 * i, 0x76 + i);
        }
        for (int i = 0; i < 6; i++) {
            assertEquals(0x100 + i, pmu.read(0xC001_0201 + 2 * i));
            assertEquals(0x76 + i, pmu.read(0xC001_0200 + 2 * i));
        }
    }

    @Test
    void family15hLegacyMsrsAliasCounters0To3() {
        AmdPmu pmu = pmu(FAMILY15H);
        for (int i = 0; i < 4; i++) {
            pmu.write(0xC001_0004 + i, 0xABC0 + i);
            pmu.write(0xC001_0000 + i, 0xC0 + i);
            assertEquals(0xABC0 + i, pmu.read(0xC001_0201 + 2 * i), "PerfCtr" + i + " is PERF_CTR" + i);
            assertEquals(0xC0 + i, pmu.read(0xC001_0200 + 2 * i), "PerfEvtSel" + i + " is PERF_CTL" + i);
        }
    }

    @Test
    void family15hMsrsDoNotExistOnEarlierFamilies() {
        for (AmdPmuModel model : new AmdPmuModel[] {ATHLON, HAMMER, FAMILY10}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu(model).read(0xC001_0201));
            assertTrue(e.getMessage().contains("0xC0010201"), e.getMessage());
            assertTrue(e.getMessage().contains("PerfCtr0-3 (MSR 0xC0010004-7)"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> pmu(FAMILY15H).read(0xC001_020C), "no PERF_CTL6");
    }

    @Test
    void k7AndK8SelectsStoreOnlyBits31To0() {
        for (AmdPmuModel model : new AmdPmuModel[] {ATHLON, HAMMER}) {
            AmdPmu pmu = pmu(model);
            pmu.write(sel(model, 0), -1L);
            assertEquals(0xFFFF_FFFFL, pmu.read(sel(model, 0)), model.cpuType() + ": bits 63:32 are reserved");
        }
    }

    @Test
    void family10hSelectsAlsoStoreEventSelect11To8AndHostGuestOnly() {
        for (AmdPmuModel model : new AmdPmuModel[] {FAMILY10, FAMILY15H}) {
            AmdPmu pmu = pmu(model);
            pmu.write(sel(model, 0), -1L);
            assertEquals(0x0000_030F_FFFF_FFFFL, pmu.read(sel(model, 0)),
                    model.cpuType() + ": bits 35:32 and 41:40 are stored, 39:36 and 63:42 are reserved");
        }
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void lvtpcStoresVectorDeliveryModeAndMaskOnly(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        pmu.write(LVTPC, 0xFFFF_FFFFL);
        assertEquals(0x1_07FF, pmu.read(LVTPC), "delivery status (bit 12) is read-only");
    }

    @Test
    void onlyFamily10HasTheIbsRegistersAndItsExtendedLvtEntry() {
        for (AmdPmuModel model : new AmdPmuModel[] {ATHLON, HAMMER, FAMILY15H}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pmu(model).write(IBS_FETCH_CTL, 0));
            assertTrue(e.getMessage().contains("0xC0011030"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pmu(model).read(IBS_EILVT));
        }
        AmdPmu pmu = pmu(FAMILY10);
        for (int msr = 0xC001_1030; msr <= 0xC001_1039; msr++) {
            pmu.read(msr);
        }
        assertEquals(0x400, pmu.read(IBS_EILVT), "Xen's boot-time IBS setup routed the entry to NMI");
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void anUnknownRegisterIsRefusedWithTheRegistersThePartHas(AmdPmuModel model) {
        AmdPmu pmu = pmu(model);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pmu.read(0xC1));
        assertTrue(e.getMessage().contains("0xC1 is not a " + model.displayName()), e.getMessage());
        assertTrue(e.getMessage().contains("LVTPC (0x340)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pmu.write(0x186, 0));
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void thePmuBelongsToItsModelAndCpu(AmdPmuModel model) {
        AmdPmu pmu = (AmdPmu) model.createPmu(3, java.util.Map.of());
        assertEquals(3, pmu.cpu());
        assertEquals(model, pmu.model());
        assertTrue(pmu.toString().startsWith(model.displayName() + " PMU cpu 3"), pmu.toString());
    }
}
