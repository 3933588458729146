package org.hyperprof.api.store;

import java.util.List;

/**
 * One distinct call stack of a stored session with the samples that ended at it, aggregated by the
 * store (no replay): the domain, the process where the source named threads, then the frames from the
 * outermost caller down to the sampled function, named.
 *
 * @param domainId the domain's id
 * @param domain   the domain's name: the root of the stack
 * @param process  {@code comm (pid)} where the source named the thread ({@code ?} for a comm without a
 *                 name), or null for a source that names none
 * @param frames   outermost caller first, the sampled function last (never empty)
 * @param samples  the samples that ended at this stack
 * @since 1.5
 */
public record StoredStack(int domainId, String domain, String process, List<DiffStack.Frame> frames, long samples) {

    public StoredStack {
        frames = List.copyOf(frames);
    }
}
