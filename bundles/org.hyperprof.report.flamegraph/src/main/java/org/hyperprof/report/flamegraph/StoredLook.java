package org.hyperprof.report.flamegraph;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.StoredSession;

/**
 * The look of a stored session's flame graph drawn from the store's summed stacks: the colours and
 * hover lines of {@link KindLook}, the title and counts in the words the store keeps (its record, not
 * the live session's information, which only a replay would bring back).
 */
final class StoredLook implements SvgFlameGraph.Look {
    private final StoredSession session;
    private final Shown shown;

    /**
     * What the words and the legend say of the graph drawn.
     *
     * @param counter    the counter drawn
     * @param domain     the domain drawn, or {@link ReportRequest#ALL_DOMAINS}
     * @param total      all samples drawn
     * @param folded     frames without a symbol folded into the same frame above them
     * @param oneDomain  the name of the only domain with samples, or null when there are several
     * @param present    the kinds of code the stacks have
     * @param selfByKind samples by the kind of their sampled function (by ordinal)
     */
    record Shown(int counter, int domain, long total, int folded, String oneDomain, Set<FrameKind> present,
            long[] selfByKind) {
    }

    StoredLook(StoredSession session, Shown shown) {
        this.session = session;
        this.shown = shown;
    }

    /** The counter's event name: {@code EVENT:count:unitmask} as stored, up to the first colon. */
    String counterName() {
        String event = event();
        int colon = event.indexOf(':');
        return colon < 0 ? event : event.substring(0, colon);
    }

    private String event() {
        return shown.counter() < session.events().size() ? session.events().get(shown.counter()) : "none";
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
        String domains = shown.domain() == ReportRequest.ALL_DOMAINS ? "all domains"
                : "domain " + shown.domain() + (shown.oneDomain() == null ? "" : " (" + shown.oneDomain() + ")");
        return counterName() + period + " (counter " + shown.counter() + "), " + domains + ": " + shown.total()
                + " samples" + KindLook.folded(shown.folded()) + KindLook.leftOut(framesLeftOut);
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
        // PathFlame draws the JSON, which has no hover lines: they are drawn from a whole tree
        throw new IllegalStateException("hover lines are drawn from a tree; a stored look is drawn without one");
    }

    @Override
    public List<SvgFlameGraph.Swatch> legend() {
        return KindLook.legend(shown.selfByKind(), shown.total(), shown.present());
    }
}
