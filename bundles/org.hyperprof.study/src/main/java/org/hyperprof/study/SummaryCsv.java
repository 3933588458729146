package org.hyperprof.study;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A study over several seeds as CSV (RFC 4180, CRLF): one line per variant and guest with each
 * figure's mean and 95 % half-width, the comparison with {@code systemwide} (Holm-adjusted p), and
 * what a reader needs to reproduce it: the scenario, its seed and the offsets run, the simulated
 * time, Hyperprof's version and the policy bundle's version.
 */
final class SummaryCsv {
    static final String HEADER = String.join(",", "scenario", "seed", "seed_offsets", "seeds", "simulated_ms",
            "hyperprof_version", "variant", "policy", "policy_version", "options", "runs_ok", "hypervisor_pct_mean",
            "hypervisor_pct_hw95", "policy_pct_mean", "policy_pct_hw95", "accesses_per_switch_mean",
            "accesses_per_switch_hw95", "samples_lost_mean", "samples_lost_hw95", "guest", "profile_source",
            "profile_samples_mean", "profile_samples_hw95", "profile_samples_total", "error_guest_only_pct_mean",
            "error_guest_only_pct_hw95", "error_guest_only_vs_systemwide_p_holm", "error_guest_only_differs",
            "max_symbol_error_guest_only_pct_mean", "max_symbol_error_guest_only_pct_hw95",
            "error_with_hypervisor_pct_mean", "error_with_hypervisor_pct_hw95",
            "error_with_hypervisor_vs_systemwide_p_holm", "error_with_hypervisor_differs",
            "max_symbol_error_with_hypervisor_pct_mean", "max_symbol_error_with_hypervisor_pct_hw95");

    private SummaryCsv() {
    }

    static String render(StudySummary s, String hyperprofVersion, Map<String, String> policyVersions) {
        StringBuilder b = new StringBuilder(HEADER).append(StudyCsv.EOL);
        for (StudySummary.VariantRow v : s.rows) {
            List<String> host = new ArrayList<>(List.of(s.scenario, Numbers.integer(s.seed), "0-" + (s.seeds - 1),
                    Integer.toString(s.seeds), Long.toString(s.ms), hyperprofVersion, v.variant().label(),
                    v.variant().policy(), policyVersions.getOrDefault(v.variant().policy(), Numbers.NA),
                    v.variant().optionsText(), Integer.toString(v.ok())));
            add(host, v.hyp(), v.policy(), v.accesses(), v.lost());
            List<StudySummary.GuestRow> guests = v.guests().isEmpty()
                    ? List.of(new StudySummary.GuestRow("", "", StudySummary.Figure.of(List.of()), 0,
                            StudySummary.Figure.of(List.of()), StudySummary.Figure.of(List.of()),
                            StudySummary.Figure.of(List.of()), StudySummary.Figure.of(List.of())))
                    : v.guests();
            for (StudySummary.GuestRow g : guests) {
                List<String> cells = new ArrayList<>(host);
                cells.addAll(List.of(g.name(), g.sources()));
                add(cells, g.samples());
                cells.add(Long.toString(g.totalSamples()));
                add(cells, g.errA());
                comparison(cells, s.comparison(v.variant().label(), g.name(), "A"));
                add(cells, g.maxA(), g.errB());
                comparison(cells, s.comparison(v.variant().label(), g.name(), "B"));
                add(cells, g.maxB());
                b.append(String.join(",", cells.stream().map(StudyCsv::quoted).toList())).append(StudyCsv.EOL);
            }
        }
        return b.toString();
    }

    private static void add(List<String> cells, StudySummary.Figure... figures) {
        for (StudySummary.Figure f : figures) {
            cells.add(f.meanCsv());
            cells.add(f.halfWidthCsv());
        }
    }

    private static void comparison(List<String> cells, StudySummary.Comparison c) {
        cells.add(c == null ? Numbers.NA : StudySummary.fixed(c.adjusted(), 4));
        cells.add(c == null ? "" : c.significant() ? "yes" : "no");
    }
}
