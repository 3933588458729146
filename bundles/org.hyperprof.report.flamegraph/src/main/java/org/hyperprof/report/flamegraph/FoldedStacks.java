package org.hyperprof.report.flamegraph;

import java.util.ArrayList;
import java.util.List;

/**
 * Brendan Gregg's folded stacks: one line per distinct stack, its frames from the root (the
 * domain) to the sampled function joined with {@code ;}, then a space and the number of samples.
 * {@code flamegraph.pl}, speedscope and most flame-graph viewers read it.
 *
 * <p>Lines are ordered by their stacks compared frame by frame from the root, a stack before the
 * longer stacks it begins (a depth-first walk of the {@link FlameTree} with children in name
 * order), so the same samples always give the same text.
 */
final class FoldedStacks {

    private FoldedStacks() {
    }

    /** The folded text of {@code tree}, every line ending in a newline. */
    static String render(FlameTree tree) {
        StringBuilder out = new StringBuilder(4096);
        List<String> path = new ArrayList<>(tree.maxDepth() + 1);
        for (FlameTree.Node domain : tree.root().children) {
            walk(domain, path, out);
        }
        return out.toString();
    }

    private static void walk(FlameTree.Node node, List<String> path, StringBuilder out) {
        path.add(node.foldedName());
        if (node.self > 0) {
            for (int i = 0; i < path.size(); i++) {
                if (i > 0) {
                    out.append(';');
                }
                out.append(path.get(i));
            }
            out.append(' ').append(node.self).append('\n');
        }
        for (FlameTree.Node c : node.children) {
            walk(c, path, out);
        }
        path.remove(path.size() - 1);
    }
}
