package org.hyperprof.report.flamegraph;

import java.util.List;
import java.util.Locale;

/**
 * A differential flame graph as {@code flamegraph.pl} draws {@code difffolded.pl}'s output: frames
 * as wide as the compared session's (B) samples, coloured by the change of the samples that ended in
 * them (B's minus the baseline's), red where they grew, blue where they shrank, white where they
 * did not, deeper as the change nears the largest change of any stack.
 *
 * @param title    the title line
 * @param subtitle the first line under it
 * @param total    B's samples: the width of the whole graph
 * @param maxDelta the largest change of any one stack (at least 1, as flamegraph.pl starts it)
 */
record DiffLook(String title, String subtitle, long total, long maxDelta) implements SvgFlameGraph.Look {

    DiffLook {
        maxDelta = Math.max(1, maxDelta);
    }

    @Override
    public String population(int framesLeftOut) {
        return subtitle + KindLook.leftOut(framesLeftOut);
    }

    @Override
    public String accounting() {
        return "colour: the change of the samples that ended in the frame, red grew, blue shrank, as flamegraph.pl";
    }

    @Override
    public String fill(FlameTree.Node node) {
        return scale(node.self - node.baseline, maxDelta);
    }

    /** flamegraph.pl's color_scale: white at no change, full red or blue at the largest change. */
    static String scale(long delta, long max) {
        int r = 255;
        int g = 255;
        int b = 255;
        if (delta > 0) {
            g = (int) (210 * (max - delta) / max);
            b = g;
        } else if (delta < 0) {
            r = (int) (210 * (max + delta) / max);
            g = r;
        }
        return "rgb(" + r + "," + g + "," + b + ")";
    }

    @Override
    public String details(FlameTree.Node node) {
        StringBuilder b = new StringBuilder(96).append(node.name).append(" (").append(node.kind.words);
        if (node.hasImages()) {
            b.append(", ").append(node.imagesInWords());
        }
        b.append("): ").append(node.total).append(node.total == 1 ? " sample" : " samples").append(" in B, ")
                .append(String.format(Locale.ROOT, "%.2f", 100.0 * node.total / total)).append('%');
        if (node.self > 0 || node.baseline > 0) {
            b.append("; in the function itself ").append(node.self).append(" in B, ").append(node.baseline)
                    .append(" in A (").append(String.format(Locale.ROOT, "%+d", node.self - node.baseline))
                    .append(')');
        }
        return b.toString();
    }

    @Override
    public List<SvgFlameGraph.Swatch> legend() {
        return List.of(new SvgFlameGraph.Swatch("grew", scale(maxDelta, maxDelta), "grew (B > A)"),
                new SvgFlameGraph.Swatch("same", scale(0, maxDelta), "unchanged"),
                new SvgFlameGraph.Swatch("shrank", scale(-maxDelta, maxDelta), "shrank (B < A)"));
    }
}
