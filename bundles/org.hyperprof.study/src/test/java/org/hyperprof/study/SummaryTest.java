package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The summary over seeds, on made-up results where the right answer is known. */
class SummaryTest {
    private static final Variant SYSTEMWIDE = Variant.standard("systemwide");
    private static final Variant LAZY = Variant.standard("lazy");
    private static final Variant OFFSET = Variant.standard("offset");

    /** Five seeds: lazy is 2 points worse than systemwide on every seed (give or take 0.1), offset is noise. */
    private static List<Results.Study> studies() {
        return studies(0);
    }

    /** Five seeds: lazy 2 points worse than systemwide each time; offset as systemwide plus noise and {@code shift}. */
    private static List<Results.Study> studies(double shift) {
        double[] base = {8.0, 9.5, 7.2, 10.1, 8.8};
        double[] wobble = {0.1, -0.1, 0.05, 0, -0.05};
        double[] noise = {1.5, -2.0, 0.7, -0.9, 0.6};
        List<Results.Study> out = new ArrayList<>();
        for (int s = 0; s < base.length; s++) {
            out.add(new Results.Study("consolidation", 42L, 5, List.of(run(SYSTEMWIDE, base[s], 1000 + s),
                    run(LAZY, base[s] + 2 + wobble[s], 900), run(OFFSET, base[s] + noise[s] + shift, 950))));
        }
        return out;
    }

    private static Results.Run run(Variant v, double errorA, long samples) {
        Overhead o = new Overhead(1_000_000, 0L, 350_000, 20_000L, 100L, 400L);
        Results.Guest web = new Results.Guest(1, "web1", "own", samples, "CPU_CLK_UNHALTED",
                new ProfileError(errorA, errorA / 2, "k:f"), new ProfileError(errorA + 1, errorA / 2, "k:f"));
        return new Results.Run(v, null, o, 3, List.of(web), List.of());
    }

    @Test
    void aConsistentDifferenceIsMarkedAndNoiseIsNot() {
        StudySummary s = new StudySummary(studies());
        assertEquals(4, s.comparisons.size(), "lazy and offset, err A and err B, one guest");
        assertTrue(s.comparison("lazy", "web1", "A").significant());
        assertTrue(s.comparison("lazy", "web1", "B").significant());
        assertFalse(s.comparison("offset", "web1", "A").significant());
        assertEquals("offset", s.closest().variant());
        StudySummary.Figure hyp = s.rows.get(0).hyp();
        assertEquals(35.0, hyp.mean(), 1e-9);
        assertEquals(0.0, hyp.halfWidth(), 1e-9, "the same on every seed");
        // lazy's err A: systemwide's mean 8.72 + 2 + mean wobble 0 = 10.72.
        assertEquals(10.72, s.rows.get(1).guests().get(0).errA().mean(), 1e-9);
    }

    @Test
    void theTableShowsIntervalsMarksAndWhatTheErrorsRestOn() {
        String text = SummaryText.render(new StudySummary(studies()), null);
        assertTrue(text.contains("10.72 ± "), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("lazy") && l.contains(" *")), text);
        assertFalse(text.lines().anyMatch(l -> l.startsWith("offset") && l.contains(" *")), text);
        assertTrue(text.contains("note: web1's errors rest on 900-1002 samples per seed (by variant), 4500-5010"
                + " over the 5 seeds"), text);
        assertTrue(text.contains("note: closest call: offset vs systemwide, web1 err "), text);
        // offset's mean difference, -0.02 points against an sd of 1.4: about 38,000 seeds, too many to be worth it
        assertTrue(text.contains("more than 10000 seeds would be needed to settle it: the two agree as far as"
                + " repeating the study can tell"), text);
    }

    @Test
    void aDifferenceWithinReachSaysHowManySeedsWouldSettleIt() {
        // offset 0.7 points worse on average, sd 1.4: (1.96 + 0.84)^2 / 0.5^2, about 32 seeds
        String text = SummaryText.render(new StudySummary(studies(0.72)), null);
        assertTrue(text.contains("seeds would settle it (normal approximation, two-sided 95 %, 80 % power)"), text);
        assertFalse(text.contains("more than 10000 seeds"), text);
    }

    @Test
    void theCsvCarriesMeansHalfWidthsSeedsAndVersions() {
        String csv = SummaryCsv.render(new StudySummary(studies()), "2.4.0", Map.of("lazy", "1.1.0"));
        String[] lines = csv.split("\r\n");
        assertEquals(4, lines.length, csv);
        List<String> header = List.of(lines[0].split(","));
        String[] lazy = lines[2].split(",");
        assertEquals(header.size(), lazy.length);
        assertEquals("0-4", lazy[header.indexOf("seed_offsets")]);
        assertEquals("2.4.0", lazy[header.indexOf("hyperprof_version")]);
        assertEquals("1.1.0", lazy[header.indexOf("policy_version")]);
        assertEquals("10.720", lazy[header.indexOf("error_guest_only_pct_mean")]);
        assertEquals("yes", lazy[header.indexOf("error_guest_only_differs")]);
        assertEquals("n/a", lines[1].split(",")[header.indexOf("error_guest_only_vs_systemwide_p_holm")]);
    }
}
