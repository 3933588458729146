package org.hyperprof.report.flamegraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;

/**
 * A stored session's flame graph JSON drawn from its stacks without building the whole tree: every
 * printed frame gets an int id in the order of its folded name, every stack becomes a path of ids, and
 * the paths are sorted. A frame of the graph is then a run of paths sharing a prefix, its total a
 * difference of prefix sums, its children the runs of equal ids one level down; a frame too narrow to
 * draw is counted as left out and never visited. A million-sample session has some 700,000 frames
 * and only a few thousand wide enough to draw: only those are ever named.
 *
 * <p>Draws what {@link FlameJson#render} draws of the whole tree of the stacks (same names, folding,
 * order, counts and words: the tests hold that tree as the reference), except that a frame's images are those of every stack it is in.
 */
final class PathFlame {
    /** One printed frame: domain, process or code frame as {@link FlameTree} names it. */
    private static final class Printed {
        final String name;
        final String foldedName;
        final FrameKind kind;
        final boolean unnamed;
        private final Set<String> images = new TreeSet<>();
        int id;
        /** Its index in the JSON's frames, or -1 while it has not been written. */
        int written = -1;

        Printed(String name, FrameKind kind, boolean unnamed) {
            this.name = name;
            this.foldedName = name + kind.suffix;
            this.kind = kind;
            this.unnamed = unnamed;
        }
    }

    private final List<StoredStack> stacks;
    private final Map<String, Printed> byFoldedName = new HashMap<>();
    /** The store shares one frame object among the stacks that have it: each is named once. */
    private final Map<DiffStack.Frame, Printed> code = new IdentityHashMap<>();
    private final Set<FrameKind> present = EnumSet.noneOf(FrameKind.class);
    private Printed[] byId;
    /** The paths in order, their samples, and prefix sums of those ({@code sums[i]} = samples of rows before i). */
    private int[][] paths;
    private long[] sums;
    private int folded;

    private PathFlame(List<StoredStack> stacks) {
        this.stacks = stacks;
    }

    /**
     * The JSON of {@code stacks} of {@code session}'s {@code counter} in {@code domain}.
     *
     * @throws ReportException when no stack has a sample
     */
    static String json(List<StoredStack> stacks, StoredSession session, int counter, int domain)
            throws ReportException {
        return new PathFlame(stacks).render(session, counter, domain);
    }

    private String render(StoredSession session, int counter, int domain) throws ReportException {
        namePrintedFrames();
        sortPaths();
        long total = sums[paths.length];
        if (total == 0) {
            throw new ReportException("the stored session has no samples of counter " + counter
                    + (domain == ReportRequest.ALL_DOMAINS ? "" : " in domain " + domain)
                    + " to draw; ask for another counter or domain, or all domains");
        }
        int maxDepth = 0;
        long[] selfByKind = new long[FrameKind.values().length];
        Printed oneDomain = null;
        boolean severalDomains = false;
        for (int i = 0; i < paths.length; i++) {
            long samples = sums[i + 1] - sums[i];
            if (samples == 0) {
                continue;
            }
            int[] path = paths[i];
            maxDepth = Math.max(maxDepth, path.length);
            selfByKind[byId[path[path.length - 1]].kind.ordinal()] += samples;
            Printed d = byId[path[0]];
            severalDomains |= oneDomain != null && oneDomain != d;
            oneDomain = d;
        }
        StoredLook look = new StoredLook(session, new StoredLook.Shown(counter, domain, total, folded,
                severalDomains ? null : oneDomain.name, present, selfByKind));
        Writer writer = new Writer(total / FlameJson.MIN_SHARE_INVERSE);
        writer.root(total);
        return FlameJson.document(look, session.id(), look.counterName(), total, maxDepth, writer.leftOut, folded,
                writer.frames, writer.nodes);
    }

    /** Every printed frame once, with ids in the order of folded names (so ordering ids orders names). */
    private void namePrintedFrames() {
        for (StoredStack s : stacks) {
            printed(FlameTree.clean(s.domain()), FrameKind.DOMAIN, false);
            if (s.process() != null) {
                printed(FlameTree.clean(s.process()), FrameKind.PROCESS, false);
            }
            for (DiffStack.Frame f : s.frames()) {
                if (!code.containsKey(f)) {
                    FrameKind kind = FrameKind.of(f.kind());
                    boolean unnamed = f.symbol() == null || f.symbol().isBlank();
                    Printed p = printed(unnamed ? FlameTree.bracketed(f.image()) : FlameTree.clean(f.symbol()), kind,
                            unnamed);
                    p.images.add(FlameTree.clean(f.image()));
                    present.add(kind);
                    code.put(f, p);
                }
            }
        }
        byId = byFoldedName.values().toArray(new Printed[0]);
        Arrays.sort(byId, (a, b) -> a.foldedName.compareTo(b.foldedName));
        for (int i = 0; i < byId.length; i++) {
            byId[i].id = i;
        }
    }

    private Printed printed(String name, FrameKind kind, boolean unnamed) {
        return byFoldedName.computeIfAbsent(name + kind.suffix, k -> new Printed(name, kind, unnamed));
    }

    /** Each stack as a path of ids (a frame without a symbol right below the same one folded into it), sorted. */
    private void sortPaths() {
        int n = stacks.size();
        int[][] unsorted = new int[n][];
        int[] buffer = new int[16];
        for (int r = 0; r < n; r++) {
            StoredStack s = stacks.get(r);
            int length = s.frames().size() + 2;
            if (buffer.length < length) {
                buffer = new int[length * 2];
            }
            int at = 0;
            buffer[at++] = byFoldedName.get(FlameTree.clean(s.domain()) + FrameKind.DOMAIN.suffix).id;
            if (s.process() != null) {
                buffer[at++] = byFoldedName.get(FlameTree.clean(s.process()) + FrameKind.PROCESS.suffix).id;
            }
            Printed above = null;
            for (DiffStack.Frame f : s.frames()) {
                Printed p = code.get(f);
                if (p.unnamed && p == above) {
                    folded++;
                } else {
                    buffer[at++] = p.id;
                }
                above = p;
            }
            unsorted[r] = Arrays.copyOf(buffer, at);
        }
        Integer[] order = new Integer[n];
        for (int r = 0; r < n; r++) {
            order[r] = r;
        }
        Arrays.sort(order, (a, b) -> Arrays.compare(unsorted[a], unsorted[b]));
        paths = new int[n][];
        sums = new long[n + 1];
        for (int i = 0; i < n; i++) {
            paths[i] = unsorted[order[i]];
            sums[i + 1] = sums[i] + stacks.get(order[i]).samples();
        }
    }

    /** Writes the frames wide enough to draw, in pre-order, straight into the JSON. */
    private final class Writer {
        private final long min;
        final StringBuilder frames = new StringBuilder(1 << 16);
        final StringBuilder nodes = new StringBuilder(1 << 18);
        int leftOut;
        private int framesWritten;

        Writer(long min) {
            this.min = min;
        }

        void root(long total) {
            FlameJson.frame(frames, "all", FrameKind.ALL, FrameKind.ALL.fill("all"), "");
            framesWritten = 1;
            node(0, total, 0, paths.length, 0);
        }

        /** The frame of the paths {@code [from, to)}, which share their first {@code depth} ids. */
        private void node(int frame, long total, int from, int to, int depth) {
            int first = from;
            while (first < to && paths[first].length == depth) {
                first++;
            }
            long self = sums[first] - sums[from];
            List<int[]> kept = new ArrayList<>();
            for (int i = first; i < to;) {
                int id = paths[i][depth];
                int end = i + 1;
                while (end < to && paths[end][depth] == id) {
                    end++;
                }
                long childTotal = sums[end] - sums[i];
                if (childTotal >= min && childTotal > 0) {
                    kept.add(new int[] {i, end});
                } else if (childTotal > 0) {
                    leftOut++;
                }
                i = end;
            }
            if (nodes.length() > 0) {
                nodes.append(',');
            }
            nodes.append(frame).append(',').append(total).append(',').append(self).append(',').append(kept.size());
            for (int[] run : kept) {
                node(frameIndex(byId[paths[run[0]][depth]]), sums[run[1]] - sums[run[0]], run[0], run[1], depth + 1);
            }
        }

        private int frameIndex(Printed p) {
            if (p.written < 0) {
                p.written = framesWritten++;
                FlameJson.frame(frames, p.name, p.kind, p.kind.fill(p.foldedName), String.join(", ", p.images));
            }
            return p.written;
        }
    }
}
