package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.amd.AmdFixture.HAMMER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Options of createPmu: what a host description may say about an AMD CPU. */
class AmdOptionsTest {

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void noOptionsOrNullOptionsGiveThePowerOnRegisterFile(AmdPmuModel model) {
        assertEquals(0x1_0000, model.createPmu(0, null).read(0x340));
        assertEquals(0x1_0000, model.createPmu(1, Map.of()).read(0x340));
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void lvtpcAutomaskFalseIsAcceptedAndTrueIsRefusedWithTheReason(AmdPmuModel model) {
        model.createPmu(0, Map.of("lvtpc.automask", "false"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> model.createPmu(0, Map.of("lvtpc.automask", "true")));
        assertTrue(e.getMessage().contains("never masks LVTPC"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> model.createPmu(0, Map.of("lvtpc.automask", "maybe")));
    }

    @ParameterizedTest
    @MethodSource("org.hyperprof.pmu.amd.AmdFixture#models")
    void anUnknownOptionIsRefusedListingTheAllowedOnes(AmdPmuModel model) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> model.createPmu(0, Map.of("variant", "k8")));
        assertTrue(e.getMessage().contains("unknown " + model.cpuType() + " PMU option 'variant'"), e.getMessage());
        assertTrue(e.getMessage().contains("lvtpc.automask (false only)"), e.getMessage());
        assertEquals(model.family().ibs(), e.getMessage().contains("ibs.caps"), e.getMessage());
    }

    @Test
    void aNegativeCpuNumberIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> HAMMER.createPmu(-1, Map.of()));
    }

    @Test
    void aNullOptionValueIsTreatedAsEmpty() {
        Map<String, String> options = new HashMap<>();
        options.put("lvtpc.automask", null);
        assertThrows(IllegalArgumentException.class, () -> HAMMER.createPmu(0, options));
    }

    @Test
    void eachCallCreatesAnIndependentRegisterFile() {
        PhysicalPmu a = HAMMER.createPmu(0, Map.of());
        PhysicalPmu b = HAMMER.createPmu(1, Map.of());
        assertNotSame(a, b);
        a.write(0xC001_0004, 42);
        assertEquals(0, b.read(0xC001_0004));
    }
}
