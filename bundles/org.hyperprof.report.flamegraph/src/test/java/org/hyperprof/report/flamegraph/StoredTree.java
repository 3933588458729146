package org.hyperprof.report.flamegraph;

import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;

/**
 * The reference drawing of a stored session's stacks that {@link PathFlame} must match byte for byte: the whole
 * {@link FlameTree} of the stacks, built as {@link FlameTree#build} builds a replay's, and its {@link StoredLook}.
 * PathFlame draws the same graph without building the tree; this slower, plainer way says what it must draw.
 */
final class StoredTree {
    private StoredTree() {
    }

    /**
     * The tree of a stored session's stacks as the store summed them ({@link SessionStore#stacks}): named
     * as {@link FlameTree#build} names a replay's (domain, process, code frames with the same folding), so the
     * same session gives the same tree without its samples going through the pipeline again. No
     * session information: the caller draws it with the stored session's words ({@link #look}).
     *
     * @throws ReportException when no stack has a sample
     */
    static FlameTree of(List<StoredStack> stacks, int counter, int domain) throws ReportException {
        FlameTree.Node root = new FlameTree.Node("all", FrameKind.ALL, 0);
        int folded = 0;
        // The store shares one frame object among the stacks that have it: each is named once.
        Map<DiffStack.Frame, StoredFrame> named = new IdentityHashMap<>();
        for (StoredStack s : stacks) {
            FlameTree.Node node = root.child(FlameTree.clean(s.domain()), FrameKind.DOMAIN);
            if (s.process() != null) {
                node = node.child(FlameTree.clean(s.process()), FrameKind.PROCESS);
            }
            for (DiffStack.Frame f : s.frames()) {
                StoredFrame frame = named.computeIfAbsent(f, StoredFrame::of);
                if (frame.unnamed && node.kind == frame.kind && node.unnamed && node.name.equals(frame.name)) {
                    folded++;
                } else {
                    node = node.child(frame.name, frame.foldedName, frame.kind);
                    node.unnamed = frame.unnamed;
                }
                node.addImage(frame.image);
            }
            node.self += s.samples();
        }
        int maxDepth = FlameTree.settle(root);
        if (root.total == 0) {
            throw new ReportException("the stored session has no samples of counter " + counter
                    + (domain == ReportRequest.ALL_DOMAINS ? "" : " in domain " + domain)
                    + " to draw; ask for another counter or domain, or all domains");
        }
        return new FlameTree(null, counter, domain, root, maxDepth, folded);
    }

    /** The stored look of that tree: its counts, its only domain's name, its kinds of code. */
    static StoredLook look(FlameTree tree, StoredSession session, List<StoredStack> stacks) {
        Set<FrameKind> present = EnumSet.noneOf(FrameKind.class);
        for (StoredStack s : stacks) {
            for (DiffStack.Frame f : s.frames()) {
                present.add(FrameKind.of(f.kind()));
            }
        }
        long[] self = new long[FrameKind.values().length];
        selfByKind(tree.root(), self);
        List<FlameTree.Node> domains = tree.root().children;
        return new StoredLook(session, new StoredLook.Shown(tree.counter(), tree.domain(), tree.total(),
                tree.folded(), domains.size() == 1 ? domains.get(0).name : null, present, self));
    }

    private static void selfByKind(FlameTree.Node node, long[] self) {
        self[node.kind.ordinal()] += node.self;
        for (FlameTree.Node c : node.children) {
            selfByKind(c, self);
        }
    }

    /** A stored frame as {@link FlameTree#build} names a code frame. */
    private record StoredFrame(String name, String foldedName, FrameKind kind, boolean unnamed, String image) {
        static StoredFrame of(DiffStack.Frame f) {
            FrameKind kind = FrameKind.of(f.kind());
            boolean unnamed = f.symbol() == null || f.symbol().isBlank();
            String name = unnamed ? FlameTree.bracketed(f.image()) : FlameTree.clean(f.symbol());
            return new StoredFrame(name, name + kind.suffix, kind, unnamed, FlameTree.clean(f.image()));
        }
    }
}
