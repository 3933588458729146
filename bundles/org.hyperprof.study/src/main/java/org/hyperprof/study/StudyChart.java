package org.hyperprof.study;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.hyperprof.command.kit.Escaper;

/**
 * The study as a self-contained SVG of horizontal bars, one row per variant (per guest and variant
 * in the error panel), so that no label ever shares a row with another: the hypervisor's share, the
 * share the policy caused (its own axis: it is tens of times smaller), PMU accesses per vCPU switch,
 * samples lost, and each guest's profile error under truth A (solid) and truth B (pale). Every bar
 * has its value beside it and, over several seeds, an error bar of its 95 % interval. Unknown
 * figures read {@code n/a}; a failed variant says so. No scripts, no external references; every
 * text is XML-escaped.
 */
final class StudyChart {
    private static final String HYPERVISOR_COLOR = "#4c4c8c";
    private static final String POLICY_COLOR = "#e0a030";
    private static final String ACCESS_COLOR = "#2ca02c";
    private static final String LOST_COLOR = "#d62728";
    private static final String ERROR_A_COLOR = "#1f77b4";
    private static final String ERROR_B_COLOR = "#9ecae1";

    private static final int MARGIN = 12;
    private static final int PLOT = 420;
    /** Room right of the plot for the values beside the longest bars. */
    private static final int VALUES = 240;
    private static final int ROW = 20;
    private static final int PANEL_HEAD = 44;
    private static final int AXIS = 30;
    /** A generous estimate of one character's width at 11 px, so label columns are never too narrow. */
    private static final double CHAR = 7.0;

    private final StringBuilder b = new StringBuilder();
    private final int left;
    private int y;

    private StudyChart(int left) {
        this.left = left;
    }

    /** One run per variant: the chart without error bars. */
    static String render(Results.Study study) {
        return render(new StudySummary(List.of(study)));
    }

    static String render(StudySummary s) {
        int labelChars = "policy variant".length();
        for (StudySummary.VariantRow v : s.rows) {
            labelChars = Math.max(labelChars, v.variant().label().length() + 2);
            for (StudySummary.GuestRow g : v.guests()) {
                labelChars = Math.max(labelChars, g.name().length());
            }
        }
        int left = MARGIN + (int) Math.ceil(labelChars * CHAR) + 12;
        String title = "Counter-virtualization policies on " + s.scenario + " (seed " + Numbers.integer(s.seed)
                + (s.seeds > 1 ? " + 0.." + (s.seeds - 1) : "") + ", " + s.ms + " ms simulated per run)";
        String subtitle = s.seeds > 1 ? "bars: means over " + s.seeds + " seeds; whiskers: 95 % intervals;"
                + " * differs from systemwide (paired, Holm)" : "one run per variant";
        int width = Math.max(left + PLOT + VALUES, (int) Math.ceil(Math.max(title.length() * 9.0,
                subtitle.length() * CHAR)) + 2 * MARGIN);
        StudyChart c = new StudyChart(left);
        c.y = 60;
        c.simplePanel(s, "Hypervisor share, % of all unhalted cycles", "hyp", HYPERVISOR_COLOR,
                StudySummary.VariantRow::hyp, 2);
        c.simplePanel(s, "Share caused by the policy, % of all unhalted cycles (its own axis)", "policy",
                POLICY_COLOR, StudySummary.VariantRow::policy, 2);
        c.simplePanel(s, "Physical PMU accesses per vCPU switch", "acc", ACCESS_COLOR,
                StudySummary.VariantRow::accesses, 2);
        c.simplePanel(s, "Samples lost (buffers full)", "lost", LOST_COLOR, StudySummary.VariantRow::lost, 1);
        c.errorPanel(s);
        int height = c.y + MARGIN;
        StringBuilder out = new StringBuilder();
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", width, height, width,
                height));
        out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        text(out, MARGIN, 24, "start", 15, "bold", title);
        text(out, MARGIN, 44, "start", 11, "normal", subtitle);
        out.append(c.b);
        out.append("</svg>\n");
        return out.toString();
    }

    /** A panel with one bar per variant. */
    private void simplePanel(StudySummary s, String heading, String series, String color,
            Function<StudySummary.VariantRow, StudySummary.Figure> figure, int places) {
        double max = 0;
        for (StudySummary.VariantRow v : s.rows) {
            max = Math.max(max, top(figure.apply(v)));
        }
        max = niceCeiling(max);
        head(heading);
        text(b, MARGIN, y - 6, "start", 10, "normal", "policy variant");
        int top = y;
        for (StudySummary.VariantRow v : s.rows) {
            text(b, MARGIN, y + 14, "start", 11, "normal", v.variant().label());
            if (v.ok() == 0) {
                text(b, left + 4, y + 14, "start", 11, "normal", "failed");
            } else {
                bar(figure.apply(v), y + 3, 14, max, color, series, v.variant().label(), places, "");
            }
            y += ROW;
        }
        axis(top, max);
    }

    /** Each guest's errors: a heading row per guest, then a row per variant with its truth A and B bars. */
    private void errorPanel(StudySummary s) {
        double max = 0;
        List<String> guests = new ArrayList<>();
        for (StudySummary.VariantRow v : s.rows) {
            for (StudySummary.GuestRow g : v.guests()) {
                max = Math.max(max, Math.max(top(g.errA()), top(g.errB())));
                if (!guests.contains(g.name())) {
                    guests.add(g.name());
                }
            }
        }
        max = niceCeiling(max);
        head("Profile error against the ground truth, error, percentage points");
        // The legend: two swatches on their own row, far enough apart for their texts.
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>\n",
                left, y - 16, ERROR_A_COLOR));
        text(b, left + 16, y - 7, "start", 10, "normal", "truth A: the guest's own code");
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\""
                + " stroke=\"%s\"/>\n", left + 230, y - 16, ERROR_B_COLOR, ERROR_A_COLOR));
        text(b, left + 246, y - 7, "start", 10, "normal", "truth B: plus hypervisor work on its behalf");
        y += 6;
        int top = y;
        for (String guest : guests) {
            text(b, MARGIN, y + 14, "start", 11, "bold", guest);
            y += ROW;
            for (StudySummary.VariantRow v : s.rows) {
                StudySummary.GuestRow g = v.guests().stream().filter(x -> x.name().equals(guest)).findFirst()
                        .orElse(null);
                if (g == null) {
                    continue;
                }
                text(b, MARGIN + 14, y + 16, "start", 11, "normal", v.variant().label());
                String markA = mark(s, v, g, "A");
                String markB = mark(s, v, g, "B");
                double end = Math.max(bar(g.errA(), y + 3, 9, max, ERROR_A_COLOR, "errA", v.variant().label() + " "
                        + guest, 2, markA), bar(g.errB(), y + 12, 9, max, ERROR_B_COLOR, "errB",
                                v.variant().label() + " " + guest, 2, markB));
                text(b, end, y + 16, "start", 10, "normal", "A " + g.errA().text(2) + markA + "  B "
                        + g.errB().text(2) + markB);
                y += ROW + 4;
            }
        }
        if (guests.isEmpty()) {
            text(b, left + 4, y + 14, "start", 11, "normal", "n/a");
            y += ROW;
        }
        axis(top, max);
    }

    private static String mark(StudySummary s, StudySummary.VariantRow v, StudySummary.GuestRow g, String error) {
        StudySummary.Comparison c = s.comparison(v.variant().label(), g.name(), error);
        return c != null && c.significant() ? " *" : "";
    }

    private void head(String heading) {
        y += 10;
        text(b, MARGIN, y + 14, "start", 13, "bold", heading);
        y += PANEL_HEAD;
    }

    /** The value axis under a panel: its line and three ticks. */
    private void axis(int top, double max) {
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left,
                top, left, y));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left,
                y, left + PLOT, y));
        for (int i = 0; i <= 2; i++) {
            double v = max * i / 2;
            double x = left + PLOT * i / 2.0;
            b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n",
                    x, y, x, y + 4));
            text(b, x, y + 16, "middle", 10, "normal", tick(v));
        }
        y += AXIS;
    }

    /**
     * A bar with its whisker; its value beside it unless {@code mark} is null (the caller writes it).
     *
     * @return where text after the bar may start
     */
    private double bar(StudySummary.Figure f, int top, int height, double max, String color, String series,
            String what, int places, String mark) {
        if (f.n() == 0) {
            if (series.startsWith("err")) {
                return left + 4;
            }
            text(b, left + 4, top + 11, "start", 11, "normal", Numbers.NA);
            return left + 40;
        }
        double w = Math.max(0, f.mean()) / max * PLOT;
        b.append(String.format(Locale.ROOT, "<rect class=\"bar\" data-series=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\""
                + " height=\"%d\" fill=\"%s\"%s><title>%s</title></rect>\n", series, left, top, w, height, color,
                color.equals(ERROR_B_COLOR) ? " stroke=\"" + ERROR_A_COLOR + "\"" : "",
                escape(what + ": " + f.text(places) + mark)));
        double end = left + w;
        if (!Double.isNaN(f.halfWidth()) && f.halfWidth() > 0) {
            double lo = left + Math.max(0, f.mean() - f.halfWidth()) / max * PLOT;
            double hi = left + (f.mean() + f.halfWidth()) / max * PLOT;
            double mid = top + height / 2.0;
            b.append(String.format(Locale.ROOT, "<path class=\"whisker\" data-series=\"%s\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1f"
                    + "M%.1f %.1fV%.1f\" stroke=\"black\"/>\n", series, lo, mid, hi, lo, mid - 3, mid + 3, hi, mid - 3,
                    mid + 3));
            end = Math.max(end, hi);
        }
        if (!series.startsWith("err")) {
            text(b, end + 6, top + 11, "start", 10, "normal", f.text(places));
        }
        return end + 6;
    }

    /** The top of a bar with its whisker: what the axis must reach. */
    private static double top(StudySummary.Figure f) {
        if (f.n() == 0) {
            return 0;
        }
        return f.mean() + (Double.isNaN(f.halfWidth()) ? 0 : f.halfWidth());
    }

    /** A round axis end at or above {@code v}: 1, 2 or 5 times a power of ten. */
    static double niceCeiling(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String tick(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v)
                .replaceAll("0+$", "");
    }

    private static void text(StringBuilder b, double x, double y, String anchor, int size, String weight, String s) {
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\""
                + " font-weight=\"%s\">%s</text>\n", x, y, anchor, size, weight, escape(s)));
    }

    /** XML's escapes; lone surrogates pass as they are. */
    private static final Escaper XML = Escaper.of(Escaper.xmlTable());

    static String escape(String s) {
        return XML.escape(s);
    }
}
