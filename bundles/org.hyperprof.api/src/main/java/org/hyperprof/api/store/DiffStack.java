package org.hyperprof.api.store;

import java.util.List;

import org.hyperprof.api.sample.ImageKind;

/**
 * One call stack of a differential flame graph with its samples in each session: the domain, then
 * the frames from the outermost caller down to the sampled function, named (ids are per session).
 *
 * @param domain   the domain's name: the root of the stack
 * @param frames   outermost caller first, the sampled function last
 * @param baseline the samples that ended at this stack in the baseline (A)
 * @param compared the samples that ended at it in the compared session (B)
 */
public record DiffStack(String domain, List<Frame> frames, long baseline, long compared) {

    public DiffStack {
        frames = List.copyOf(frames);
    }

    /**
     * One frame: its code's image, and the symbol, or null for code no symbol covers.
     *
     * @param image  the image's name
     * @param kind   the image's kind (hypervisor, kernel, module, user)
     * @param symbol the symbol's name, or null
     */
    public record Frame(String image, ImageKind kind, String symbol) {
    }
}
