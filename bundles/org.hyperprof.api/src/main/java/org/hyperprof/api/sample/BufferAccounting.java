package org.hyperprof.api.sample;

/**
 * One vCPU buffer's books.
 *
 * @param domid      the domain owning the buffer
 * @param vcpu       the vCPU
 * @param role       the domain's role in the session (active, passive, ignored)
 * @param accounting taken = delivered + lost + invalid for this buffer (dropped is always 0 here)
 * @param userSamples   {@code user_samples}
 * @param kernelSamples {@code kernel_samples}
 * @param xenSamples    {@code xen_samples}
 * @param drained    entries the daemon read out of the buffer
 * @param undrained  entries still in the buffer when the session ended (a daemon that stopped draining)
 */
public record BufferAccounting(int domid, int vcpu, String role, Accounting accounting, long userSamples,
        long kernelSamples, long xenSamples, long drained, long undrained) {
}
