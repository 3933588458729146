package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.study.StudyReport;
import org.junit.jupiter.api.Test;

/** The last study as other readers get it: the summary's figures with their intervals, its marks, its chart. */
class LastStudyTest {
    /** Three seeds; lazy's err A is systemwide's plus 3 points (give or take 0.1), every seed. */
    private static List<Results.Study> threeSeeds() {
        double[] base = {6.0, 7.0, 8.0};
        double[] wobble = {0.1, 0, -0.1};
        List<Results.Study> out = new ArrayList<>();
        for (int s = 0; s < base.length; s++) {
            out.add(new Results.Study("consolidation", 7L, 20, List.of(run("systemwide", base[s]),
                    run("lazy", base[s] + 3 + wobble[s]))));
        }
        return out;
    }

    private static Results.Run run(String variant, double errorA) {
        Overhead o = new Overhead(1_000_000, 0L, 250_000, 10_000L, 100L, 400L);
        Results.Guest g = new Results.Guest(1, "db1", "own", 500, "CPU_CLK_UNHALTED",
                new ProfileError(errorA, 1.0, "k:f"), new ProfileError(errorA + 1, 1.0, "k:f"));
        return new Results.Run(Variant.standard(variant), null, o, 2, List.of(g), List.of());
    }

    @Test
    void nothingIsKeptBeforeAStudyEnds() {
        assertTrue(new LastStudy().last().isEmpty());
    }

    @Test
    void theReportCarriesMeansIntervalsMarksAndTheChart() {
        StudySummary summary = new StudySummary(threeSeeds());
        LastStudy last = new LastStudy();
        last.keep(LastStudy.report(summary, StudyChart.render(summary)));
        StudyReport r = last.last().orElseThrow();
        assertEquals("consolidation", r.scenario());
        assertEquals(3, r.seeds());
        assertEquals(List.of("systemwide", "lazy"), r.variants().stream().map(StudyReport.Variant::label).toList());
        StudyReport.Variant lazy = r.variants().get(1);
        assertEquals(25.0, lazy.hypervisorPercent().mean(), 1e-9);
        assertEquals(0.0, lazy.hypervisorPercent().halfWidth(), 1e-9, "the same on every seed");
        StudyReport.Guest db1 = lazy.guests().get(0);
        assertEquals(10.0, db1.errorA().mean(), 1e-9);
        assertEquals(3, db1.errorA().n());
        // 9.1, 10.0, 10.9: sd 0.9 over 3 seeds, t(0.975, 2) = 4.303 times 0.9 / sqrt 3
        assertEquals(4.303 * 0.9 / Math.sqrt(3), db1.errorA().halfWidth(), 1e-3);
        assertTrue(db1.differsA(), "3 points worse on every seed");
        assertFalse(r.variants().get(0).guests().get(0).differsA(), "the baseline is not compared with itself");
        assertTrue(r.chartSvg().startsWith("<svg") || r.chartSvg().startsWith("<?xml"), r.chartSvg());
        assertFalse(r.chartSvg().contains("<script"));
    }
}
