package org.hyperprof.study;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The study as a self-contained SVG: two panels of grouped bars, one group per variant. The upper
 * panel shows the hypervisor's share of all cycles and the part the policy caused; the lower one
 * each guest's profile error under truth A (solid) and truth B (pale, outlined). Unknown figures
 * are marked {@code n/a}; a failed variant says so in its group. No scripts, no external
 * references; every text is XML-escaped.
 */
final class StudyChart {
    private static final String[] PALETTE = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final String HYPERVISOR_COLOR = "#4c4c8c";
    private static final String POLICY_COLOR = "#e0a030";

    private static final int LEFT = 80;
    private static final int RIGHT = 260;
    private static final int TOP = 60;
    private static final int PANEL_HEIGHT = 220;
    private static final int PANEL_GAP = 90;
    private static final int BOTTOM = 60;
    private static final int BAR = 12;
    private static final int GROUP_PAD = 24;

    private StudyChart() {
    }

    static String render(Results.Study study) {
        List<Results.Run> runs = study.runs();
        Map<Integer, String> guests = guests(runs);
        int bars = Math.max(2, 2 * guests.size());
        int group = bars * BAR + GROUP_PAD;
        int plotWidth = Math.max(1, runs.size()) * group;
        int width = LEFT + plotWidth + RIGHT;
        int height = TOP + 2 * PANEL_HEIGHT + PANEL_GAP + BOTTOM;
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", width, height, width, height));
        b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        String title = "Counter-virtualization policies on " + study.scenario() + " (seed "
                + Numbers.integer(study.seed()) + ", " + study.ms() + " ms simulated per variant)";
        text(b, width / 2.0, 24, "middle", 15, "bold", title);

        // Upper panel: overhead.
        int top1 = TOP;
        double max1 = niceCeiling(maxOverhead(runs), 1);
        axes(b, top1, plotWidth, max1, "% of all unhalted cycles", "Hypervisor overhead");
        groups(b, runs, group, top1, (run, x0) -> {
            double w = (group - GROUP_PAD) / 2.0;
            bar(b, x0, w, top1, max1, run.overhead().hypervisorPercent(), HYPERVISOR_COLOR, false,
                    run.variant().label() + ": hypervisor " + Numbers.fixed(run.overhead().hypervisorPercent(), 2)
                            + " %");
            bar(b, x0 + w, w, top1, max1, run.overhead().policyPercent(), POLICY_COLOR, false,
                    run.variant().label() + ": caused by the policy " + Numbers.fixed(run.overhead().policyPercent(), 2)
                            + " %");
        });
        int legendX = LEFT + plotWidth + 20;
        legend(b, legendX, top1 + 10, HYPERVISOR_COLOR, false, "hypervisor, % of all cycles");
        legend(b, legendX, top1 + 28, POLICY_COLOR, false, "caused by the policy");
        text(b, legendX, top1 + 52, "start", 10, "normal", "halted cycles excluded");

        // Lower panel: errors.
        int top2 = TOP + PANEL_HEIGHT + PANEL_GAP;
        double max2 = niceCeiling(maxError(runs), 5);
        axes(b, top2, plotWidth, max2, "error, percentage points", "Profile error against the ground truth");
        List<Integer> ids = new ArrayList<>(guests.keySet());
        groups(b, runs, group, top2, (run, x0) -> {
            for (Results.Guest g : run.guests()) {
                int slot = ids.indexOf(g.domid());
                String color = PALETTE[slot % PALETTE.length];
                double x = x0 + 2 * slot * BAR;
                Double a = g.guestOnly() == null ? null : g.guestOnly().totalPoints();
                Double bb = g.withHypervisor() == null ? null : g.withHypervisor().totalPoints();
                bar(b, x, BAR, top2, max2, a, color, false,
                        run.variant().label() + ", " + g.name() + ", truth A: " + Numbers.fixed(a, 2) + " points");
                bar(b, x + BAR, BAR, top2, max2, bb, color, true,
                        run.variant().label() + ", " + g.name() + ", truth B: " + Numbers.fixed(bb, 2) + " points");
            }
        });
        int y = top2 + 10;
        for (int slot = 0; slot < ids.size(); slot++) {
            legend(b, legendX, y, PALETTE[slot % PALETTE.length], false, guests.get(ids.get(slot)));
            y += 18;
        }
        legend(b, legendX, y + 8, "#808080", false, "solid: truth A, the guest's own code");
        legend(b, legendX, y + 26, "#808080", true, "pale: truth B, + hypervisor work for it");
        text(b, legendX, y + 50, "start", 10, "normal", "TV distance: 50 x sum |sampled - true| share");
        b.append("</svg>\n");
        return b.toString();
    }

    /** Every guest of every run, by domain id, in first-seen order. */
    private static Map<Integer, String> guests(List<Results.Run> runs) {
        Map<Integer, String> out = new LinkedHashMap<>();
        for (Results.Run r : runs) {
            for (Results.Guest g : r.guests()) {
                out.putIfAbsent(g.domid(), g.name());
            }
        }
        return out;
    }

    private static double maxOverhead(List<Results.Run> runs) {
        double m = 0;
        for (Results.Run r : runs) {
            if (r.ok()) {
                m = Math.max(m, value(r.overhead().hypervisorPercent()));
                m = Math.max(m, value(r.overhead().policyPercent()));
            }
        }
        return m;
    }

    private static double maxError(List<Results.Run> runs) {
        double m = 0;
        for (Results.Run r : runs) {
            for (Results.Guest g : r.guests()) {
                m = Math.max(m, g.guestOnly() == null ? 0 : g.guestOnly().totalPoints());
                m = Math.max(m, g.withHypervisor() == null ? 0 : g.withHypervisor().totalPoints());
            }
        }
        return m;
    }

    private static double value(Double d) {
        return d == null || d.isNaN() ? 0 : d;
    }

    /** The smallest of 1, 2, 2.5, 5 x 10^k at or above {@code v}, and at least {@code floor}. */
    static double niceCeiling(double v, double floor) {
        double target = Math.max(v, floor);
        double p = Math.pow(10, Math.floor(Math.log10(target)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= target - 1e-9) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static void axes(StringBuilder b, int top, int plotWidth, double max, String yLabel, String title) {
        int bottom = top + PANEL_HEIGHT;
        text(b, LEFT, top - 12, "start", 13, "bold", title);
        for (int t = 0; t <= 5; t++) {
            double v = max * t / 5;
            double y = bottom - PANEL_HEIGHT * t / 5.0;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                    LEFT, y, LEFT + plotWidth, y, t == 0 ? "black" : "#dddddd"));
            text(b, LEFT - 6, y + 4, "end", 10, "normal", trim(v));
        }
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
                LEFT, top, LEFT, bottom));
        double cy = top + PANEL_HEIGHT / 2.0;
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\""
                + " transform=\"rotate(-90 %d %.1f)\">%s</text>\n", LEFT - 48, cy, LEFT - 48, cy, escape(yLabel)));
        text(b, LEFT + plotWidth / 2.0, bottom + 36, "middle", 11, "normal", "policy variant");
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.2f", v);
        return s.replaceAll("\\.?0+$", "");
    }

    private static void bar(StringBuilder b, double x, double w, int top, double max, Double value, String color,
            boolean pale, String tooltip) {
        int bottom = top + PANEL_HEIGHT;
        if (value == null || value.isNaN()) {
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"8\""
                    + " fill=\"#555555\">n/a<title>%s</title></text>\n", x + w / 2, bottom - 3, escape(tooltip)));
            return;
        }
        double h = Math.max(0, Math.min(1, value / max)) * PANEL_HEIGHT;
        b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>"
                + "<title>%s</title></rect>\n", x, bottom - h, Math.max(1, w - 1), h, color,
                pale ? " fill-opacity=\"0.35\" stroke=\"" + color + "\"" : "", escape(tooltip)));
    }

    /** How one panel draws the bars of a run that finished, in its group starting at {@code x0}. */
    @FunctionalInterface
    private interface GroupBars {
        void draw(Results.Run run, double x0);
    }

    /** A panel's groups, one per run in order: each labelled, a failed run marked, the others drawn by {@code bars}. */
    private static void groups(StringBuilder b, List<Results.Run> runs, int group, int top, GroupBars bars) {
        for (int i = 0; i < runs.size(); i++) {
            Results.Run run = runs.get(i);
            double x0 = LEFT + i * group + GROUP_PAD / 2.0;
            double cx = x0 + (group - GROUP_PAD) / 2.0;
            groupLabel(b, cx, top + PANEL_HEIGHT, run.variant().label());
            if (run.ok()) {
                bars.draw(run, x0);
            } else {
                failed(b, cx, top + PANEL_HEIGHT);
            }
        }
    }

    private static void groupLabel(StringBuilder b, double cx, int bottom, String label) {
        text(b, cx, bottom + 16, "middle", 11, "normal", label);
    }

    private static void failed(StringBuilder b, double cx, int bottom) {
        text(b, cx, bottom - 8, "middle", 10, "normal", "failed");
    }

    private static void legend(StringBuilder b, int x, int y, String color, boolean pale, String label) {
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"%s/>\n",
                x, y, color, pale ? " fill-opacity=\"0.35\" stroke=\"" + color + "\"" : ""));
        text(b, x + 18, y + 10, "start", 11, "normal", label);
    }

    private static void text(StringBuilder b, double x, double y, String anchor, int size, String weight,
            String content) {
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s>%s</text>\n",
                x, y, anchor, size, "bold".equals(weight) ? " font-weight=\"bold\"" : "", escape(content)));
    }

    /** XML text and attribute escaping; characters XML 1.0 forbids become U+FFFD. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    boolean allowed = c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c != 0xFFFE && c != 0xFFFF);
                    out.append(allowed ? c : '\uFFFD');
                }
            }
        }
        return out.toString();
    }
}
