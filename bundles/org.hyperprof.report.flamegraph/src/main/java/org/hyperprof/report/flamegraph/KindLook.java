package org.hyperprof.report.flamegraph;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * A session's flame graph: frames coloured by their kind of code, the session and its books in the
 * title lines, each kind's share of the samples in the legend.
 */
final class KindLook implements SvgFlameGraph.Look {
    private final FlameTree tree;
    private final StackAggregate.Snapshot snapshot;

    KindLook(FlameTree tree, StackAggregate.Snapshot snapshot) {
        this.tree = tree;
        this.snapshot = snapshot;
    }

    @Override
    public String title() {
        SessionInfo info = tree.info();
        // A recording's header may not give the clock rate (perf.data has none): no "0 MHz" then.
        return "Flame graph of session " + info.sessionId() + ": " + info.hostName() + ", " + info.cpuName()
                + (info.mhz() > 0 ? " " + info.mhz() + " MHz" : "") + " (" + info.source() + ")";
    }

    @Override
    public String population(int framesLeftOut) {
        SessionInfo info = tree.info();
        CounterConfig counter = info.counters().get(tree.counter());
        String domains = tree.domain() == ReportRequest.ALL_DOMAINS ? "all domains"
                : "domain " + tree.domain() + " (" + info.domainName(tree.domain()) + ")";
        // A count of 0 is a recording sampled by frequency (perf record -F): no fixed period to state.
        String period = counter.count() > 0 ? " every " + counter.count() + " events" : "";
        return counter.event().name() + period + " (counter " + tree.counter() + "), " + domains + ": "
                + tree.total() + " samples" + folded(tree.folded()) + leftOut(framesLeftOut);
    }

    /** The note of frames without a symbol folded into the same frame above them, empty when none was. */
    static String folded(int frames) {
        return frames == 0 ? "" : "; " + frames + " repeated frames without a symbol folded into one";
    }

    /** The note of frames too narrow to draw, empty when none was. */
    static String leftOut(int frames) {
        return frames == 0 ? "" : "; " + frames + " frames narrower than "
                + SvgFlameGraph.number(SvgFlameGraph.MIN_FRAME_WIDTH) + " px left out";
    }

    @Override
    public String accounting() {
        SessionSummary summary = snapshot.summary();
        String books = summary == null ? "session still running: " + snapshot.samples() + " samples so far"
                : summary.accounting().line()
                        + (summary.completed() ? "" : "; session ended early: " + summary.endReason());
        String rejected = snapshot.rejectedSamples() == 0 ? ""
                : "; " + snapshot.rejectedSamples() + " samples rejected (" + snapshot.firstRejection() + ")";
        return books + rejected;
    }

    @Override
    public String fill(FlameTree.Node node) {
        return node.kind.fill(node.foldedName());
    }

    /** The hover line: name, kind and images, samples and share. */
    @Override
    public String details(FlameTree.Node node) {
        return details(tree, node);
    }

    /** The hover line of a frame of {@code tree}: name, kind and images, samples and share. */
    static String details(FlameTree tree, FlameTree.Node node) {
        StringBuilder b = new StringBuilder(96).append(node.name).append(" (").append(node.kind.words);
        if (node.hasImages()) {
            b.append(", ").append(node.imagesInWords());
        }
        b.append("): ").append(node.total).append(node.total == 1 ? " sample, " : " samples, ")
                .append(percent(tree, node.total)).append('%');
        if (node.self > 0 && node.self != node.total) {
            b.append(" (").append(node.self).append(" in the function itself)");
        }
        return b.toString();
    }

    /** A swatch and the share of samples whose sampled function is of each kind of code. */
    @Override
    public List<SvgFlameGraph.Swatch> legend() {
        // A kind is shown when the session has code of it, so a plain host recording (no hypervisor
        // image) is given no hypervisor share, and a simulated host's 0 % hypervisor share is still said.
        Set<FrameKind> present = EnumSet.noneOf(FrameKind.class);
        SessionDictionary dictionary = tree.info().dictionary();
        for (int i = 0; i < dictionary.imageCount(); i++) {
            present.add(FrameKind.of(dictionary.imageKind(i)));
        }
        return legend(tree, present);
    }

    /** The legend of {@code tree} for a session with code of the {@code present} kinds. */
    static List<SvgFlameGraph.Swatch> legend(FlameTree tree, Set<FrameKind> present) {
        long[] self = new long[FrameKind.values().length];
        selfByKind(tree.root(), self);
        return legend(self, tree.total(), present);
    }

    /** The legend of samples whose sampled function is of each kind ({@code self} by ordinal) out of {@code total}. */
    static List<SvgFlameGraph.Swatch> legend(long[] self, long total, Set<FrameKind> present) {
        List<SvgFlameGraph.Swatch> swatches = new ArrayList<>();
        for (FrameKind kind : List.of(FrameKind.HYPERVISOR, FrameKind.KERNEL, FrameKind.USER, FrameKind.UNKNOWN)) {
            boolean sampled = self[kind.ordinal()] > 0;
            if (!sampled && (kind == FrameKind.UNKNOWN || !present.contains(kind))) {
                continue;
            }
            swatches.add(new SvgFlameGraph.Swatch(kind.cssClass, kind.fill(kind.words),
                    kind.words + " " + percent(total, self[kind.ordinal()]) + "%"));
        }
        return swatches;
    }

    /** Sums by kind in an array by ordinal: a large tree has a hundred thousand frames with samples of their own. */
    private static void selfByKind(FlameTree.Node node, long[] self) {
        self[node.kind.ordinal()] += node.self;
        for (FlameTree.Node c : node.children) {
            selfByKind(c, self);
        }
    }

    private static String percent(FlameTree tree, long samples) {
        return percent(tree.total(), samples);
    }

    private static String percent(long total, long samples) {
        return String.format(Locale.ROOT, "%.2f", 100.0 * samples / total);
    }
}
