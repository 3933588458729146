package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Whether a conclusion survives a scaled cost, on made-up results. */
class SensitivityTest {

    /** Four seeds of systemwide and lazy, lazy {@code shift} points worse (give or take 0.1). */
    private static StudySummary summary(double shift) {
        double[] base = {8.0, 9.5, 7.2, 10.1};
        double[] wobble = {0.1, -0.1, 0.05, -0.05};
        List<Results.Study> studies = new ArrayList<>();
        for (int s = 0; s < base.length; s++) {
            studies.add(new Results.Study("consolidation", 1L, 5, List.of(run("systemwide", base[s]),
                    run("lazy", base[s] + shift + wobble[s]))));
        }
        return new StudySummary(studies);
    }

    private static Results.Run run(String label, double error) {
        Results.Guest g = new Results.Guest(1, "web1", "own", 1000, "CYCLES", new ProfileError(error, 1, "k:f"),
                new ProfileError(error, 1, "k:f"));
        return new Results.Run(Variant.standard(label), null, new Overhead(100, 0L, 30, 1L, 1L, 1L), 0, List.of(g),
                List.of());
    }

    @Test
    void aConclusionThatFlipsIsNamedAndOneThatHoldsIsNot() {
        Sensitivity vary = new Sensitivity("cost.vpmu", List.of(0.5, 1.5));
        String text = vary.render(summary(2), List.of(summary(0), summary(2.5)));
        assertTrue(text.contains("sensitivity: cost.vpmu x 0.5: 2 of 2 conclusions change"), text);
        assertTrue(text.contains("  lazy web1 err A: higher -> same than systemwide"), text);
        assertTrue(text.contains("sensitivity: cost.vpmu x 1.5: no conclusion changes"), text);
    }

    @Test
    void theTrapWildcardScalesBothTraps() {
        assertEquals(Map.of("cost.trap.hvm.scale", "0.5", "cost.trap.pv.scale", "0.5"),
                new Sensitivity("cost.trap.*", List.of(0.5)).hostOptions(0.5));
        Variant lazy = new Sensitivity("cost.vpmu", List.of(2.0)).scaled(List.of(Variant.standard("lazy")), 2).get(0);
        assertEquals("2.0", lazy.hostOptions().get("cost.vpmu.scale"));
        assertEquals("lazy", lazy.hostOptions().get("vpmu.policy"));
    }
}
