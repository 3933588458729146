package org.hyperprof.profiler;

/**
 * How a daemon turns the PCs of one domain's buffers into (image, symbol) ids: the domain's own
 * address space for its own buffers, or the primary's coarse view of a passive domain. The
 * {@link #domid()} is the tag every sample drained through the view carries.
 *
 * <p>Used under the session's collector lock; the per-PC methods allocate nothing.
 */
interface SampleView {

    /** The domain whose buffers are drained through this view. */
    int domid();

    /** Resolves a sampled PC taken in {@code mode} (0 user, 1 kernel, 2 xen) and counts it in the tallies. */
    long resolveSample(long pc, int mode);

    /** Resolves a return address of a call trace whose sample was taken in {@code mode}. */
    long resolveCaller(long pc, int mode);

    /**
     * The mode an IBS sample at {@code pc} is counted in, logged in {@code mode}. Xen logs an IBS
     * block in the mode of the code the NMI interrupted, which need not be the mode of the sampled
     * instruction (the sample may have been taken in code that ran before, the NMI handler's own
     * included); OProfile's daemon (opd_put_ibs_sample) counted a sample whose address lies in a
     * kernel image (vmlinux, a module, Xen's image) as kernel. This view keeps the mode it is given.
     */
    default int ibsMode(long pc, int mode) {
        return mode;
    }
}
