package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.p6.P6Fixture.CLK;
import static org.hyperprof.pmu.p6.P6Registers.LVTPC;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR0;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL0;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;
import static org.hyperprof.testing.pmu.PmuFixtures.onePerCycle;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.junit.jupiter.api.Test;

/** Per-CPU options of the P6 model: LVTPC auto-mask and the exact P6 part. */
class P6OptionsTest {
    private final P6Fixture fixture = P6Fixture.create();

    /** The message a P6 PMU made with {@code options} is refused with. */
    private String refusal(Map<String, String> options) {
        return assertThrows(IllegalArgumentException.class, () -> fixture.pmu(options)).getMessage();
    }

    @Test
    void withoutOptionsThePmuBelongsToTheServiceModelAndDoesNotAutoMask() {
        PhysicalPmu pmu = fixture.model.createPmu(3, Map.of());
        assertSame(fixture.model, pmu.model());
        assertEquals(3, pmu.cpu());
        assertFalse(((P6Pmu) pmu).autoMasksLvtpc());
        assertFalse(((P6Pmu) fixture.model.createPmu(0, null)).autoMasksLvtpc(), "null options mean none");
    }

    @Test
    void autoMaskOptionTakesTrueOrFalse() {
        assertTrue(fixture.pmu(Map.of("lvtpc.automask", "true")).autoMasksLvtpc());
        assertFalse(fixture.pmu(Map.of("lvtpc.automask", "FALSE")).autoMasksLvtpc());
        String refused = refusal(Map.of("lvtpc.automask", "yes"));
        assertTrue(refused.contains("allowed values: true, false"), refused);
    }

    @Test
    void anUnknownOptionIsRejectedListingTheAllowedOnes() {
        String refused = refusal(Map.of("lvtpc.mask", "true"));
        assertTrue(refused.contains("unknown P6 PMU option 'lvtpc.mask'"), refused);
        assertTrue(refused.contains("lvtpc.automask (true or false)"), refused);
        assertTrue(refused.contains("variant (ppro, pii, piii, p6_mobile)"), refused);
    }

    @Test
    void variantNamesThePartAsOprofilePrintsIt() {
        assertEquals("Pentium Pro", fixture.pmu(Map.of("variant", "ppro")).model().displayName());
        assertEquals("PII", fixture.pmu(Map.of("variant", "pii")).model().displayName());
        assertEquals("PIII", fixture.pmu(Map.of("variant", "piii")).model().displayName());
        PhysicalPmu mobile = fixture.pmu(Map.of("variant", "p6_mobile"));
        assertEquals("Pentium M (P6 core)", mobile.model().displayName());
        assertEquals("i386/p6", mobile.model().cpuType());
        assertSame(fixture.model.events(), mobile.model().events(), "all parts share one table");
        assertSame(mobile.model(), fixture.pmu(Map.of("variant", "p6_mobile")).model());
    }

    @Test
    void pentiumMVariantAutoMasksLvtpcOnDelivery() {
        P6Pmu pmu = fixture.pmu(Map.of("variant", "p6_mobile"));
        assertTrue(pmu.autoMasksLvtpc());
        pmu.write(LVTPC, 0x400);
        pmu.write(PERFCTR0, -1);
        pmu.write(PERFEVTSEL0, EVTSEL_EN | EVTSEL_INT | EVTSEL_USR | CLK);
        pmu.advance(1, onePerCycle(), 3);
        pmu.acknowledgeInterrupt();
        assertEquals(0x1_0400, pmu.read(LVTPC));
    }

    @Test
    void olderPartsNeverAutoMask() {
        assertFalse(fixture.pmu(Map.of("variant", "ppro")).autoMasksLvtpc());
        assertFalse(fixture.pmu(Map.of("variant", "pii")).autoMasksLvtpc());
        assertFalse(fixture.pmu(Map.of("variant", "piii")).autoMasksLvtpc());
    }

    @Test
    void anUnknownVariantIsRejectedListingTheParts() {
        String refused = refusal(Map.of("variant", "p4"));
        assertTrue(refused.contains("allowed values: ppro, pii, piii, p6_mobile"), refused);
    }

    @Test
    void autoMaskContradictingTheVariantIsRejected() {
        String pm = refusal(Map.of("variant", "p6_mobile", "lvtpc.automask", "false"));
        assertTrue(pm.contains("always auto-masks"), pm);
        String ppro = refusal(Map.of("variant", "ppro", "lvtpc.automask", "true"));
        assertTrue(ppro.contains("never auto-masks"), ppro);
    }

    @Test
    void aNegativeCpuNumberIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> fixture.model.createPmu(-1, Map.of()));
    }
}
