package org.hyperprof.study;

import java.util.ArrayList;
import java.util.List;

/**
 * The study as CSV (RFC 4180): a header line, then one line per variant and guest, the variant's
 * host-wide columns repeated on each of its lines. A variant that failed has one line with its
 * {@code status} (the reason) and empty figures. Percentages have three decimals; an unknown
 * figure is {@code n/a}. Lines end with CRLF, as RFC 4180 says.
 */
final class StudyCsv {
    static final String HEADER = String.join(",", "scenario", "seed", "simulated_ms", "variant", "policy", "options",
            "status", "all_cycles", "halted_cycles_excluded", "hypervisor_cycles", "hypervisor_pct", "policy_cycles",
            "policy_pct", "vpmu_switches", "vpmu_switch_accesses", "accesses_per_switch", "samples_lost", "domid",
            "guest", "profile_source", "profile_samples", "event", "error_guest_only_pct",
            "max_symbol_error_guest_only_pct", "max_symbol_guest_only", "error_with_hypervisor_pct",
            "max_symbol_error_with_hypervisor_pct", "max_symbol_with_hypervisor");

    static final String EOL = "\r\n";

    private StudyCsv() {
    }

    static String render(Results.Study study) {
        StringBuilder b = new StringBuilder(HEADER).append(EOL);
        for (String line : lines(study)) {
            b.append(line).append(EOL);
        }
        return b.toString();
    }

    static List<String> lines(Results.Study study) {
        List<String> lines = new ArrayList<>();
        for (Results.Run run : study.runs()) {
            List<String> host = new ArrayList<>(List.of(study.scenario(), Numbers.integer(study.seed()),
                    Long.toString(study.ms()), run.variant().label(), run.variant().policy(),
                    run.variant().optionsText(), run.ok() ? "ok" : run.failure()));
            if (!run.ok()) {
                for (int i = host.size(); i < columns(); i++) {
                    host.add("");
                }
                lines.add(line(host));
                continue;
            }
            Overhead o = run.overhead();
            host.addAll(List.of(Long.toString(o.allCycles()), Numbers.integer(o.haltedCycles()),
                    Long.toString(o.hypervisorCycles()), Numbers.fixed(o.hypervisorPercent(), 3),
                    Numbers.integer(o.policyCycles()), Numbers.fixed(o.policyPercent(), 3),
                    Numbers.integer(o.switches()), Numbers.integer(o.switchAccesses()),
                    Numbers.fixed(o.accessesPerSwitch(), 3), Long.toString(run.lost())));
            for (Results.Guest g : run.guests()) {
                List<String> cells = new ArrayList<>(host);
                cells.addAll(List.of(Integer.toString(g.domid()), g.name(), g.source(), Long.toString(g.samples()),
                        g.event()));
                cells.addAll(error(g.guestOnly()));
                cells.addAll(error(g.withHypervisor()));
                lines.add(line(cells));
            }
        }
        return lines;
    }

    private static int columns() {
        return HEADER.split(",").length;
    }

    private static List<String> error(ProfileError e) {
        return e == null ? List.of(Numbers.NA, Numbers.NA, "")
                : List.of(Numbers.fixed(e.totalPoints(), 3), Numbers.fixed(e.maxSymbolPoints(), 3), e.maxSymbol());
    }

    private static String line(List<String> cells) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(quoted(cells.get(i)));
        }
        return b.toString();
    }

    /** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
    static String quoted(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0 && field.indexOf('\r') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }
}
