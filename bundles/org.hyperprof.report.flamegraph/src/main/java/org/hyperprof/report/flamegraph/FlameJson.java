package org.hyperprof.report.flamegraph;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The flame graph as compact JSON for an interactive viewer (the web view's canvas): the tree in
 * pre-order as flat numbers, each distinct frame (name and kind) once with its fill, the same colour
 * the SVG gives it. Frames narrower than 1/{@value #MIN_SHARE_INVERSE} of all samples are left out
 * (their samples stay in their parent's total), as the SVG leaves out frames too narrow to draw, so a
 * profile of millions of samples stays a few megabytes.
 *
 * <pre>
 * {"title": ..., "population": ..., "counter": ..., "total": N, "maxDepth": D, "leftOut": K,
 *  "kinds": [[cssClass, words], ...],
 *  "frames": [[name, kindIndex, fill, images], ...],
 *  "nodes": [frameIndex, total, self, childCount, ...]}       (4 numbers per node, pre-order)
 * </pre>
 */
final class FlameJson {
    /** Frames below 1/20,000 of all samples (under a tenth of a pixel at 2,000 px) are left out. */
    static final long MIN_SHARE_INVERSE = 20_000;

    private FlameJson() {
    }

    static String render(FlameTree tree, StackAggregate.Snapshot snapshot) {
        return render(tree, new KindLook(tree, snapshot), tree.info().sessionId(),
                FlameTree.counterName(tree.info(), tree.counter()));
    }

    /** The tree drawn with {@code look}'s lines and colours, for {@code session}'s {@code counter}. */
    static String render(FlameTree tree, SvgFlameGraph.Look look, long session, String counter) {
        long min = tree.total() / MIN_SHARE_INVERSE;
        Map<String, Integer> frameIndex = new HashMap<>();
        StringBuilder frames = new StringBuilder(1 << 16);
        StringBuilder nodes = new StringBuilder(1 << 20);
        int[] leftOut = new int[1];
        walk(tree.root(), min, look, frameIndex, frames, nodes, leftOut);
        return document(look, session, counter, tree.total(), tree.maxDepth(), leftOut[0], tree.folded(), frames,
                nodes);
    }

    /** The whole document around the frames and nodes already written (without their brackets). */
    static String document(SvgFlameGraph.Look look, long session, String counter, long total, int maxDepth,
            int leftOut, int folded, CharSequence frames, CharSequence nodes) {
        StringBuilder out = new StringBuilder(frames.length() + nodes.length() + 1024);
        out.append("{\"title\":");
        string(out, look.title());
        out.append(",\"population\":");
        string(out, look.population(leftOut));
        out.append(",\"session\":\"").append(session).append('"');
        out.append(",\"counter\":");
        string(out, counter);
        out.append(",\"total\":").append(total).append(",\"maxDepth\":").append(maxDepth)
                .append(",\"leftOut\":").append(leftOut).append(",\"folded\":").append(folded)
                .append(",\"kinds\":[");
        FrameKind[] kinds = FrameKind.values();
        for (int i = 0; i < kinds.length; i++) {
            out.append(i == 0 ? "[" : ",[");
            string(out, kinds[i].cssClass);
            out.append(',');
            string(out, kinds[i].words);
            out.append(']');
        }
        out.append("],\"legend\":[");
        List<SvgFlameGraph.Swatch> legend = look.legend();
        for (int i = 0; i < legend.size(); i++) {
            SvgFlameGraph.Swatch s = legend.get(i);
            out.append(i == 0 ? "[" : ",[");
            string(out, s.cssClass());
            out.append(',');
            string(out, s.fill());
            out.append(',');
            string(out, s.text());
            out.append(']');
        }
        out.append("],\"frames\":[").append(frames).append("],\"nodes\":[").append(nodes).append("]}");
        return out.toString();
    }

    /** One entry of "frames": name, kind, fill, images. */
    static void frame(StringBuilder frames, String name, FrameKind kind, String fill, String images) {
        if (frames.length() > 0) {
            frames.append(',');
        }
        frames.append('[');
        string(frames, name);
        frames.append(',').append(kind.ordinal()).append(',');
        string(frames, fill);
        frames.append(',');
        string(frames, images);
        frames.append(']');
    }

    private static void walk(FlameTree.Node node, long min, SvgFlameGraph.Look look, Map<String, Integer> frameIndex,
            StringBuilder frames, StringBuilder nodes, int[] leftOut) {
        String key = node.kind.ordinal() + "\u0000" + node.name;
        Integer f = frameIndex.get(key);
        if (f == null) {
            f = frameIndex.size();
            frameIndex.put(key, f);
            frame(frames, node.name, node.kind, look.fill(node), node.imagesInWords());
        }
        int kept = 0;
        for (FlameTree.Node c : node.children) {
            if (c.total >= min && c.total > 0) {
                kept++;
            } else {
                leftOut[0]++;
            }
        }
        if (nodes.length() > 0) {
            nodes.append(',');
        }
        nodes.append(f).append(',').append(node.total).append(',').append(node.self).append(',').append(kept);
        for (FlameTree.Node c : node.children) {
            if (c.total >= min && c.total > 0) {
                walk(c, min, look, frameIndex, frames, nodes, leftOut);
            }
        }
    }

    /** A JSON string; {@code <}, {@code >} and {@code &} escaped too, so no name can read as markup. */
    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
