package org.hyperprof.pmu.ppc970;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The createPmu options for the points the sources leave open. */
class Ppc970OptionsTest {
    private final Ppc970PmuModel model = new Ppc970PmuModel();

    private String rejection(Map<String, String> options) {
        return assertThrows(IllegalArgumentException.class, () -> model.createPmu(0, options)).getMessage();
    }

    @Test
    void defaultsFollowTheFactsBestReading() {
        assertEquals(Ppc970Options.DEFAULTS, Ppc970Options.parse(Map.of()));
        assertEquals(Ppc970Options.DEFAULTS, Ppc970Options.parse(null));
        assertEquals(MmcraSampledBits.LINUX, Ppc970Options.DEFAULTS.mmcraRead());
        assertEquals(MmcraSampledBits.LINUX, Ppc970Options.DEFAULTS.mmcraHardware());
        assertEquals(Ppc970Options.FcsStates.PRIVILEGED, Ppc970Options.DEFAULTS.fcsStates());
        assertEquals(Ppc970Options.PmxeClear.ALERT, Ppc970Options.DEFAULTS.pmxeClear());
        assertFalse(Ppc970Options.DEFAULTS.msrPmm());
    }

    @Test
    void everyOptionIsRead() {
        Ppc970Options o = Ppc970Options.parse(Map.of("mmcra.hvpr", "xnu", "mmcra.hvpr.hardware", "xnu",
                "fcs.states", "supervisor", "pmxe.clear", "interrupt", "msr.pmm", " 1 "));
        assertEquals(new Ppc970Options(MmcraSampledBits.XNU, MmcraSampledBits.XNU, Ppc970Options.FcsStates.SUPERVISOR,
                Ppc970Options.PmxeClear.INTERRUPT, true), o);
    }

    @Test
    void anUnknownOptionListsTheAllowedOnes() {
        String m = rejection(Map.of("lvtpc.automask", "true"));
        assertTrue(m.contains("unknown PowerPC 970 PMU option 'lvtpc.automask'"), m);
        assertTrue(m.contains("mmcra.hvpr (linux or xnu), mmcra.hvpr.hardware (linux or xnu), fcs.states"
                + " (privileged or supervisor), pmxe.clear (alert or interrupt), msr.pmm (0 or 1)"), m);
        Map<String, String> nullKey = new HashMap<>();
        nullKey.put(null, "x");
        assertTrue(rejection(nullKey).contains("has no name"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({"mmcra.hvpr, aix, 'linux (bit 35 = HV, bit 36 = PR'", "mmcra.hvpr.hardware, LINUX, xnu (bit 35 = PR",
            "fcs.states, hypervisor, 'privileged (FCS freezes MSR[PR]=0'", "pmxe.clear, never, 'alert (PMXE clears'",
            "msr.pmm, true, '0 (profiled code unmarked)'"})
    void aBadValueNamesTheAllowedValues(String key, String value, String expected) {
        String m = rejection(Map.of(key, value));
        assertTrue(m.contains(key + "=" + value), m);
        assertTrue(m.contains(expected), m);
    }
}
