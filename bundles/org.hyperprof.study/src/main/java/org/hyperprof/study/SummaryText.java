package org.hyperprof.study;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A study over several seeds as a console table: each figure as mean ± 95 % half-width, an error
 * marked {@code *} when it differs from {@code systemwide}'s (paired over the seeds, Holm-corrected),
 * then what the columns mean, what the errors rest on and how many seeds the closest call needs.
 */
final class SummaryText {
    private static final String[] HEADINGS = {"variant", "hyp %", "policy %", "acc/switch", "lost", "guest",
        "profile", "samples", "err A", "max A", "err B", "max B"};
    private static final boolean[] RIGHT = {false, true, true, true, true, false, false, true, true, true, true,
        true};

    /** Beyond this many seeds a difference is too small to be worth settling (study runs are seconds each). */
    static final long MANY_SEEDS = 10_000;

    private SummaryText() {
    }

    static String render(StudySummary s, long[] wallNanos) {
        List<String[]> rows = new ArrayList<>();
        for (StudySummary.VariantRow v : s.rows) {
            boolean first = true;
            for (StudySummary.GuestRow g : v.guests()) {
                String[] r = new String[HEADINGS.length];
                r[0] = first ? v.variant().label() : "";
                r[1] = first ? v.hyp().text(2) : "";
                r[2] = first ? v.policy().text(2) : "";
                r[3] = first ? v.accesses().text(2) : "";
                r[4] = first ? v.lost().text(1) : "";
                r[5] = g.name();
                r[6] = g.sources();
                r[7] = g.samples().text(0);
                r[8] = g.errA().text(2) + mark(s, v, g, "A");
                r[9] = g.maxA().text(2);
                r[10] = g.errB().text(2) + mark(s, v, g, "B");
                r[11] = g.maxB().text(2);
                rows.add(r);
                first = false;
            }
            if (first) {
                rows.add(new String[] {v.variant().label(), v.ok() == 0 ? "failed" : v.hyp().text(2),
                    v.policy().text(2), v.accesses().text(2), v.lost().text(1), "", "", "", "", "", "", ""});
            }
        }
        String nl = System.lineSeparator();
        StringBuilder b = new StringBuilder();
        b.append("study of ").append(s.scenario).append(", seeds ").append(Numbers.integer(s.seed)).append(" + 0..")
                .append(s.seeds - 1).append(" (").append(s.seeds).append(" seeds), ").append(s.ms)
                .append(" ms simulated per run, the model's default event").append(nl);
        b.append(TextTable.render(HEADINGS, RIGHT, rows));
        b.append("every figure: mean ± half-width of the Student-t 95 % interval over the ").append(s.seeds)
                .append(" seeds' values").append(nl);
        b.append("*: differs from systemwide: the 95 % interval of the per-seed paired difference excludes 0,"
                + " Holm-corrected over the ").append(s.comparisons.size()).append(" comparisons (err A and err B,"
                + " each policy and guest)").append(nl);
        b.append("hyp %: hypervisor-mode cycles / unhalted cycles; policy %: cycles the counter-virtualization"
                + " policy caused; acc/switch: physical PMU accesses per vCPU switch; lost: samples lost").append(nl);
        b.append("err: total-variation distance from the truth in points; max: the worst symbol; truth A: the"
                + " guest's own code; truth B: plus the hypervisor's work on its behalf").append(nl);
        for (Map.Entry<String, long[]> e : samplesByGuest(s).entrySet()) {
            long[] r = e.getValue();
            b.append("note: ").append(e.getKey()).append("'s errors rest on ").append(r[0]).append('-').append(r[1])
                    .append(" samples per seed (by variant), ").append(r[2]).append('-').append(r[3])
                    .append(" over the ").append(s.seeds).append(" seeds").append(nl);
        }
        StudySummary.Comparison c = s.closest();
        if (c != null) {
            double mean = Stats.mean(c.differences());
            double sd = Stats.sd(c.differences());
            long needed = Stats.seedsToSettle(c.standardized());
            b.append("note: closest call: ").append(c.variant()).append(" vs systemwide, ").append(c.guest())
                    .append(" err ").append(c.error()).append(": mean difference ").append(Numbers.fixed(mean, 2))
                    .append(" points, sd ").append(Numbers.fixed(sd, 2)).append(" over the seeds; ")
                    .append(needed == 0 ? "no number of seeds settles a zero difference"
                            : needed > MANY_SEEDS ? "more than " + MANY_SEEDS + " seeds would be needed to settle it:"
                                    + " the two agree as far as repeating the study can tell"
                            : "about " + needed + " seeds would settle it (normal approximation, two-sided 95 %,"
                                    + " 80 % power)")
                    .append(nl);
        }
        for (StudySummary.VariantRow v : s.rows) {
            for (String f : v.failures()) {
                b.append("failed: ").append(v.variant().label()).append(": ").append(f).append(nl);
            }
        }
        if (wallNanos != null) {
            List<String> times = new ArrayList<>();
            for (int i = 0; i < s.rows.size() && i < wallNanos.length; i++) {
                times.add(s.rows.get(i).variant().label() + " " + Numbers.fixed(wallNanos[i] / 1e9, 2) + " s");
            }
            b.append("wall time over the seeds: ").append(String.join(", ", times)).append(nl);
        }
        return b.toString();
    }

    private static String mark(StudySummary s, StudySummary.VariantRow v, StudySummary.GuestRow g, String error) {
        StudySummary.Comparison c = s.comparison(v.variant().label(), g.name(), error);
        return c != null && c.significant() ? " *" : "  ";
    }

    /** Per guest: the fewest and most samples per seed, and over all seeds, among the variants. */
    private static Map<String, long[]> samplesByGuest(StudySummary s) {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (StudySummary.VariantRow v : s.rows) {
            for (StudySummary.GuestRow g : v.guests()) {
                if (g.samples().n() == 0 || g.errA().n() == 0 && g.errB().n() == 0) {
                    continue;
                }
                long perSeed = Math.round(g.samples().mean());
                long[] r = out.computeIfAbsent(g.name(), k -> new long[] {Long.MAX_VALUE, 0, Long.MAX_VALUE, 0});
                r[0] = Math.min(r[0], perSeed);
                r[1] = Math.max(r[1], perSeed);
                r[2] = Math.min(r[2], g.totalSamples());
                r[3] = Math.max(r[3], g.totalSamples());
            }
        }
        return out;
    }
}
