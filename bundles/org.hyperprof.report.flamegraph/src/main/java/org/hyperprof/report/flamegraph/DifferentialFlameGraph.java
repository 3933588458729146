package org.hyperprof.report.flamegraph;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.store.DiffFlameGraph;
import org.hyperprof.api.store.DiffStack;
import org.osgi.service.component.annotations.Component;

/**
 * Differential flame graphs in Brendan Gregg's convention: {@code difffolded.pl}'s lines
 * ({@code stack countA countB}) and {@code flamegraph.pl}'s picture of them ({@link DiffLook}). Frames
 * are named as this bundle's folded stacks name them ({@link FlameTree}): the domain, then the
 * callers from the outermost to the sampled function with their kind's suffix; stacks that print
 * the same are one, and lines come in the folded stacks' order.
 */
@Component
public final class DifferentialFlameGraph implements DiffFlameGraph {

    /** One printed stack with its samples in each session. */
    private record Named(List<String> frames, long[] counts) {
    }

    @Override
    public Content folded(List<DiffStack> stacks) {
        StringBuilder out = new StringBuilder(4096);
        for (Named n : named(stacks)) {
            out.append(String.join(";", n.frames())).append(' ').append(n.counts()[0]).append(' ')
                    .append(n.counts()[1]).append('\n');
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        return o -> o.write(bytes);
    }

    @Override
    public Content svg(String title, String subtitle, List<DiffStack> stacks) {
        FlameTree.Node root = new FlameTree.Node("all", FrameKind.ALL, 0);
        long maxDelta = 0;
        for (DiffStack s : stacks) {
            FlameTree.Node node = root.child(FlameTree.clean(s.domain()), FrameKind.DOMAIN);
            for (DiffStack.Frame f : s.frames()) {
                node = node.child(name(f), FrameKind.of(f.kind()));
                node.addImage(FlameTree.clean(f.image()));
            }
            node.self += s.compared();
            node.baseline += s.baseline();
        }
        // The largest change is that of a printed stack, as flamegraph.pl takes it from its input lines.
        for (Named n : named(stacks)) {
            maxDelta = Math.max(maxDelta, Math.abs(n.counts()[1] - n.counts()[0]));
        }
        int maxDepth = FlameTree.settle(root);
        if (root.total == 0) {
            throw new IllegalArgumentException("the compared session (B) has no samples to draw: a differential"
                    + " flame graph is as wide as B's samples");
        }
        byte[] bytes = SvgFlameGraph.render(root, maxDepth, new DiffLook(title, subtitle, root.total, maxDelta))
                .getBytes(StandardCharsets.UTF_8);
        return o -> o.write(bytes);
    }

    /** The stacks as printed frames, equal ones added up, in the folded stacks' order. */
    private static List<Named> named(List<DiffStack> stacks) {
        Map<List<String>, long[]> counts = new LinkedHashMap<>();
        for (DiffStack s : stacks) {
            List<String> frames = new ArrayList<>(s.frames().size() + 1);
            frames.add(FlameTree.clean(s.domain()) + FrameKind.DOMAIN.suffix);
            for (DiffStack.Frame f : s.frames()) {
                frames.add(name(f) + FrameKind.of(f.kind()).suffix);
            }
            long[] n = counts.computeIfAbsent(frames, k -> new long[2]);
            n[0] += s.baseline();
            n[1] += s.compared();
        }
        List<Named> out = new ArrayList<>(counts.size());
        counts.forEach((frames, n) -> out.add(new Named(frames, n)));
        out.sort(Comparator.comparing(Named::frames, DifferentialFlameGraph::rootFirst));
        return out;
    }

    /** Frame by frame from the root, a stack before the longer stacks it begins (FoldedStacks' order). */
    private static int rootFirst(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** The frame's name as FlameTree gives it: the symbol, or the bracketed image for code no symbol covers. */
    private static String name(DiffStack.Frame f) {
        return f.symbol() == null || f.symbol().isBlank() ? FlameTree.bracketed(f.image()) : FlameTree.clean(f.symbol());
    }
}
