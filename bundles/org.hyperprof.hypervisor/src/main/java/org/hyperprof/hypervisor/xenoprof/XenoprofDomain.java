package org.hyperprof.hypervisor.xenoprof;

import org.hyperprof.api.xenoprof.DomainType;

/**
 * A domain's {@code struct xenoprof}: its Xenoprof type, one buffer per vCPU in one allocation
 * that lives until the domain is destroyed, and to whom the buffer pages are currently shared.
 */
final class XenoprofDomain {
    /** {@code MAX_OPROF_SHARED_PAGES}: the per-domain buffer cap. */
    static final int MAX_SHARED_PAGES = 32;
    static final int PAGE_SIZE = 4096;
    /** No domain: pages not shared, list slot cleared. */
    static final int NOBODY = -1;
    /** Where the fake xenheap machine addresses of the buffers start; each domain gets a 256 KiB window. */
    private static final long XENHEAP_BASE = 0x1_0000_0000L;
    private static final int WINDOW_SHIFT = 18;

    final int domid;
    final XenoprofBuffer[] buffers;
    /** {@code event_size} of every buffer (after the clamp). */
    final int maxSamples;
    /** {@code bufsize}: bytes per vCPU buffer. */
    final int bufsize;
    final int npages;
    /** {@code __pa(rawbuf)}: a stable fake machine address. */
    final long machineAddress;

    /** {@code domain_type}: read lock-free on the NMI path. */
    volatile DomainType type = DomainType.IGNORED;
    /** {@code domain_ready}. */
    boolean ready;
    /** The domain the pages are shared with, or {@link #NOBODY}. */
    int sharedWith = NOBODY;
    /** The call that shared them ({@code get_buffer} or {@code set_passive}), for messages. */
    String sharedBy = "";

    private XenoprofDomain(int domid, int nvcpu, int maxSamples) {
        this.domid = domid;
        this.maxSamples = maxSamples;
        this.bufsize = XenoprofBuffer.bufferBytes(maxSamples);
        this.npages = (nvcpu * bufsize - 1) / PAGE_SIZE + 1;
        this.machineAddress = XENHEAP_BASE + ((long) domid << WINDOW_SHIFT);
        this.buffers = new XenoprofBuffer[nvcpu];
        for (int v = 0; v < nvcpu; v++) {
            buffers[v] = new XenoprofBuffer(v, maxSamples);
        }
    }

    /**
     * {@code alloc_xenoprof_struct}: one zeroed buffer per vCPU, {@code max_samples} clamped to
     * the 32-page cap.
     *
     * @return the new state, or null when the domain has no vCPU (Xen: -EINVAL)
     */
    static XenoprofDomain allocate(int domid, int nvcpu, int requestedMaxSamples) {
        if (nvcpu <= 0) {
            return null;
        }
        return new XenoprofDomain(domid, nvcpu, clampMaxSamples(requestedMaxSamples, nvcpu));
    }

    /**
     * The {@code max_samples} Xen keeps: the per-vCPU cap is {@code 32 pages / nvcpu}, and the
     * request is compared unsigned, so a negative request also gets the cap. Native layout:
     * 1 vCPU gives at most 8189 slots, 4 give 2045, 8 give 1021.
     */
    static int clampMaxSamples(int requested, int nvcpu) {
        int maxBufsize = MAX_SHARED_PAGES * PAGE_SIZE / nvcpu;
        int maxMaxSamples = (maxBufsize - XenoprofBuffer.BUF_BYTES) / XenoprofBuffer.EVENT_LOG_BYTES + 1;
        return Integer.compareUnsigned(requested, maxMaxSamples) > 0 ? maxMaxSamples : requested;
    }

    /** The buffer of a vCPU, or null when the vCPU has none. */
    XenoprofBuffer buffer(int vcpu) {
        return vcpu >= 0 && vcpu < buffers.length ? buffers[vcpu] : null;
    }

    /** {@code xenoprof_reset_buf}: head and tail of every vCPU buffer back to 0. */
    void resetIndices() {
        for (XenoprofBuffer b : buffers) {
            b.resetIndices();
        }
    }

    void share(int withDomid, String by) {
        sharedWith = withDomid;
        sharedBy = by;
    }

    void unshare() {
        sharedWith = NOBODY;
        sharedBy = "";
    }
}
