package org.hyperprof.api.store;

import java.util.List;

import org.hyperprof.api.output.Content;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Writes a differential flame graph in Brendan Gregg's convention: {@code difffolded.pl}'s lines
 * ({@code stack countA countB}) and {@code flamegraph.pl}'s picture of them (frame widths by B, red
 * where a frame grew, blue where it shrank, deeper the larger the change). Provided by the flame
 * graph bundle, which names frames as its folded stacks do.
 */
@ConsumerType
public interface DiffFlameGraph {

    /** The differential folded stacks, one {@code domain;caller;...;function countA countB} line per stack. */
    Content folded(List<DiffStack> stacks);

    /**
     * The SVG.
     *
     * @param title    its title line, e.g. which sessions are compared
     * @param subtitle its second line, e.g. the event and the sample totals
     */
    Content svg(String title, String subtitle, List<DiffStack> stacks);
}
