package org.hyperprof.report.flamegraph;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;

/**
 * The look of a stored session's flame graph drawn from the store's summed stacks: the colours and
 * hover lines of {@link KindLook}, the title and counts in the words the store keeps (its record, not
 * the live session's information, which only a replay would bring back).
 */
final class StoredLook implements SvgFlameGraph.Look {
    private final FlameTree tree;
    private final StoredSession session;
    private final Set<FrameKind> present = EnumSet.noneOf(FrameKind.class);

    StoredLook(FlameTree tree, StoredSession session, List<StoredStack> stacks) {
        this.tree = tree;
        this.session = session;
        for (StoredStack s : stacks) {
            for (DiffStack.Frame f : s.frames()) {
                present.add(FrameKind.of(f.kind()));
            }
        }
    }

    /** The counter's event name: {@code EVENT:count:unitmask} as stored, up to the first colon. */
    String counterName() {
        String event = event();
        int colon = event.indexOf(':');
        return colon < 0 ? event : event.substring(0, colon);
    }

    private String event() {
        return tree.counter() < session.events().size() ? session.events().get(tree.counter()) : "none";
    }

    @Override
    public String title() {
        return "Flame graph of session " + session.id() + ": " + (session.what() == null ? "" : session.what() + ", ")
                + session.cpuType() + " (" + session.source() + ")";
    }

    @Override
    public String population(int framesLeftOut) {
        String[] parts = event().split(":");
        // A count of 0 is a recording sampled by frequency (perf record -F): no fixed period to state.
        String period = parts.length > 1 && !parts[1].equals("0") ? " every " + parts[1] + " events" : "";
        String domains = tree.domain() == ReportRequest.ALL_DOMAINS ? "all domains"
                : "domain " + tree.domain() + domainName();
        return counterName() + period + " (counter " + tree.counter() + "), " + domains + ": " + tree.total()
                + " samples" + KindLook.folded(tree.folded()) + KindLook.leftOut(framesLeftOut);
    }

    /** " (name)" of the one domain shown. */
    private String domainName() {
        List<FlameTree.Node> shown = tree.root().children;
        return shown.size() == 1 ? " (" + shown.get(0).name + ")" : "";
    }

    @Override
    public String accounting() {
        return session.accounting() == null ? "" : session.accounting().line();
    }

    @Override
    public String fill(FlameTree.Node node) {
        return node.kind.fill(node.foldedName());
    }

    @Override
    public String details(FlameTree.Node node) {
        return KindLook.details(tree, node);
    }

    @Override
    public List<SvgFlameGraph.Swatch> legend() {
        return KindLook.legend(tree, present);
    }
}
