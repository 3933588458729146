package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.util.List;

import org.hyperprof.api.output.Content;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.store.DiffFlameGraph;
import org.hyperprof.api.store.DiffRequest;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.command.kit.WrittenLine;

/**
 * hp:diff's files: the stacks of two stored sessions drawn by the flame graph bundle's
 * {@link DiffFlameGraph} as differential folded stacks or an SVG, written as every file is
 * ({@link OutputFiles}), relative names from the command line's folder.
 *
 * @param flameGraph the flame graph bundle's, or null when it is not installed
 */
record FlameGraphFiles(SessionStore store, OutputFiles files, DiffFlameGraph flameGraph) {

    /**
     * Writes the differential folded stacks to {@code folded} and the SVG to {@code svg} (either may be
     * null); {@code normalize}: A's counts scaled to B's total first.
     */
    void write(PrintStream out, DiffRequest request, boolean normalize, String folded, String svg) throws Exception {
        if (flameGraph == null) {
            throw new IllegalStateException("no differential flame graph is installed: start the bundle"
                    + " org.hyperprof.report.flamegraph (lb lists the bundles)");
        }
        List<DiffStack> stacks = store.diffStacks(request);
        if (stacks.isEmpty()) {
            throw new IllegalArgumentException("neither session has samples of event " + request.event()
                    + (request.domain() == null ? "" : " in domain " + request.domain()));
        }
        long a = stacks.stream().mapToLong(DiffStack::baseline).sum();
        long b = stacks.stream().mapToLong(DiffStack::compared).sum();
        if (normalize) {
            stacks = normalized(stacks, a, b);
        }
        String what = "session " + request.compared() + " (B) against session " + request.baseline() + " (A)";
        if (folded != null) {
            write(out, folded, flameGraph.folded(stacks), "the differential folded stacks of " + what);
        }
        if (svg != null) {
            String title = "Differential flame graph of " + what;
            String subtitle = "event " + request.event() + (request.domain() == null ? ", all domains"
                    : ", domain " + request.domain()) + ": " + a + " samples in A, " + b + " in B; widths by B,"
                    + " red grew, blue shrank (samples" + (normalize ? ", A's scaled to B's total, as difffolded.pl -n)"
                            : ", as difffolded.pl)");
            write(out, svg, flameGraph.svg(title, subtitle, stacks), "the differential flame graph of " + what);
        }
    }

    private void write(PrintStream out, String file, Content content, String what) throws Exception {
        out.println(WrittenLine.of(files.write(TypedPath.of(file), content), "wrote", what));
    }

    /**
     * The stacks with A's counts scaled to B's total, rounded down, as {@code difffolded.pl -n} does:
     * then a stack that kept its share keeps its count, and only changes of share show.
     */
    static List<DiffStack> normalized(List<DiffStack> stacks, long a, long b) {
        if (a == 0 || a == b) {
            return stacks;
        }
        return stacks.stream().map(s -> new DiffStack(s.domain(), s.frames(),
                Math.multiplyExact(s.baseline(), b) / a, s.compared())).toList();
    }
}
