package org.hyperprof.study;

import java.util.ArrayList;
import java.util.List;

/**
 * The study as a fixed-width console table: one line per variant and guest, the variant's
 * host-wide figures on its first line only, then what each column means and the notes.
 */
final class StudyText {
    private static final String[] HEADINGS = {"variant", "hyp %", "policy %", "acc/switch", "lost", "guest",
        "profile", "samples", "err A", "max A", "err B", "max B"};
    /** Columns aligned right (numbers). */
    private static final boolean[] RIGHT = {false, true, true, true, true, false, false, true, true, true, true,
        true};

    private StudyText() {
    }

    static String render(Results.Study study) {
        List<String[]> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Results.Run run : study.runs()) {
            if (!run.ok()) {
                failures.add(run.variant().label() + ": " + run.failure());
                rows.add(new String[] {run.variant().label(), "failed", "", "", "", "", "", "", "", "", "", ""});
                continue;
            }
            Overhead o = run.overhead();
            boolean first = true;
            for (Results.Guest g : run.guests()) {
                String[] r = new String[HEADINGS.length];
                r[0] = first ? run.variant().label() : "";
                r[1] = first ? Numbers.fixed(o.hypervisorPercent(), 2) : "";
                r[2] = first ? Numbers.fixed(o.policyPercent(), 2) : "";
                r[3] = first ? Numbers.fixed(o.accessesPerSwitch(), 2) : "";
                r[4] = first ? Long.toString(run.lost()) : "";
                r[5] = g.name();
                r[6] = g.source();
                r[7] = Long.toString(g.samples());
                r[8] = g.guestOnly() == null ? Numbers.NA : Numbers.fixed(g.guestOnly().totalPoints(), 2);
                r[9] = g.guestOnly() == null ? Numbers.NA : Numbers.fixed(g.guestOnly().maxSymbolPoints(), 2);
                r[10] = g.withHypervisor() == null ? Numbers.NA : Numbers.fixed(g.withHypervisor().totalPoints(), 2);
                r[11] = g.withHypervisor() == null ? Numbers.NA
                        : Numbers.fixed(g.withHypervisor().maxSymbolPoints(), 2);
                rows.add(r);
                first = false;
            }
            if (first) {
                rows.add(new String[] {run.variant().label(), Numbers.fixed(o.hypervisorPercent(), 2),
                    Numbers.fixed(o.policyPercent(), 2), Numbers.fixed(o.accessesPerSwitch(), 2),
                    Long.toString(run.lost()), "(no domains)", "", "", "", "", "", ""});
            }
        }
        String nl = System.lineSeparator();
        StringBuilder b = new StringBuilder();
        b.append("study of ").append(study.scenario()).append(", seed ").append(Numbers.integer(study.seed()))
                .append(", ").append(study.ms()).append(" ms simulated per variant, the model's default event")
                .append(nl);
        b.append(TextTable.render(HEADINGS, RIGHT, rows));
        b.append("hyp %: hypervisor-mode cycles / all cycles; all cycles = the unhalted cycles of every domain,"
                + " the idle domain included (halted cycles excluded)").append(nl);
        b.append("policy %: cycles the counter-virtualization policy caused (its charges, guest PMU traps,"
                + " virtual interrupts) / all cycles").append(nl);
        b.append("acc/switch: physical PMU accesses per vCPU switch; lost: samples lost to full buffers"
                + " (guest rings included)").append(nl);
        b.append("err: total-variation distance of the guest's profile from the truth, in points (50 x sum of"
                + " |sampled - true| shares per symbol); max: the worst single symbol").append(nl);
        b.append("truth A: the guest's own code only; truth B: plus the hypervisor's work on its behalf;"
                + " profile: own = its own profiler, xenoprof = the system-wide session").append(nl);
        for (Results.Run run : study.runs()) {
            if (run.ok()) {
                Long halted = run.overhead().haltedCycles();
                b.append("note: ").append(run.variant().label()).append(": ").append(run.overhead().allCycles())
                        .append(" cycles, ").append(Numbers.integer(halted)).append(" halted cycles excluded")
                        .append(nl);
            }
            for (String n : run.notes()) {
                b.append("note: ").append(run.variant().label()).append(": ").append(n).append(nl);
            }
        }
        for (String f : failures) {
            b.append("failed: ").append(f).append(nl);
        }
        return b.toString();
    }
}
