package org.hyperprof.hypervisor.xenoprof;

/**
 * The NMI callback Xen installs with the primary's {@code enable_virq} and removes with
 * {@code release_counters}: one {@link PcpuSampler} a pCPU, made once and kept across sessions. The
 * NMI path reads it lock-free; installing and removing happen under the core's lock.
 */
final class NmiCallback {
    /** {@link Machine#hypervisorFramePointers()}, fixed when Xen was built. */
    private final boolean framePointers;
    private volatile boolean installed;
    private volatile PcpuSampler[] samplers = new PcpuSampler[0];

    NmiCallback(boolean framePointers) {
        this.framePointers = framePointers;
    }

    /** Installs the callback for {@code pcpus} pCPUs; a new session's statistics start from zero. */
    void install(XenoprofSession session, int pcpus) {
        PcpuSampler[] all = samplers;
        if (all.length != pcpus) {
            all = new PcpuSampler[pcpus];
            for (int c = 0; c < pcpus; c++) {
                all[c] = new PcpuSampler(c, session, framePointers);
            }
            samplers = all;
        } else {
            for (PcpuSampler s : all) {
                // xenoprof_reset_stat: a new session's statistics start from zero.
                s.resetCounts();
            }
        }
        installed = true;
    }

    /** Removes the callback; the samplers keep their counts for the statistics. */
    void remove() {
        installed = false;
    }

    boolean installed() {
        return installed;
    }

    /** The sampler of an NMI on {@code pcpu}; a pCPU the host does not have is the caller's error. */
    PcpuSampler sampler(int pcpu) {
        PcpuSampler[] all = samplers;
        if (pcpu < 0 || pcpu >= all.length) {
            throw new IllegalArgumentException("NMI on pcpu " + pcpu + ": the host has " + all.length
                    + " physical CPUs (0.." + (all.length - 1) + ")");
        }
        return all[pcpu];
    }

    /** The sampler of {@code pcpu}, or null before the callback was ever installed for it. */
    PcpuSampler samplerOrNull(int pcpu) {
        PcpuSampler[] all = samplers;
        return pcpu < all.length ? all[pcpu] : null;
    }

    /** The samples dropped while {@code domid} ran, over every pCPU. */
    long dropped(int domid) {
        return PcpuSampler.dropped(samplers, domid);
    }

    /** Every pCPU's counter slots, summed. */
    long[] sum() {
        return PcpuSampler.sum(samplers);
    }
}
