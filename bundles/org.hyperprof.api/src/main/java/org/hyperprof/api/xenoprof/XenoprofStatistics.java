package org.hyperprof.api.xenoprof;

/**
 * Xen's global xenoprof statistics, which Xen itself never exported. Every sample the NMI path
 * takes lands in exactly one of: active, passive, lost (ring full), others (domain neither active
 * nor passive, idle included), invalid (vCPU without buffer), corrupted (head or tail out of range).
 *
 * @param totalSamples   {@code total_samples}
 * @param activeSamples  written into an active domain's buffer
 * @param passiveSamples written into a passive domain's buffer
 * @param lostSamples    dropped on a full ring
 * @param othersSamples  dropped: the domain is neither active nor passive
 * @param idleSamples    of {@code othersSamples}, those taken while the idle domain ran (Xen never counted these separately)
 * @param invalidBufferSamples   dropped: the vCPU has no buffer, or a trace entry equal to the escape value
 * @param corruptedBufferSamples dropped: head or tail out of range
 */
public record XenoprofStatistics(long totalSamples, long activeSamples, long passiveSamples, long lostSamples,
        long othersSamples, long idleSamples, long invalidBufferSamples, long corruptedBufferSamples) {

    /** Samples written into a buffer. */
    public long delivered() {
        return activeSamples + passiveSamples;
    }

    /** Samples dropped on purpose (domains outside the session, idle). */
    public long dropped() {
        return othersSamples;
    }

    /** Samples dropped because a buffer was missing or corrupted. */
    public long invalid() {
        return invalidBufferSamples + corruptedBufferSamples;
    }

    /** Whether taken = delivered + lost + dropped + invalid holds. */
    public boolean balanced() {
        return totalSamples == delivered() + lostSamples + dropped() + invalid();
    }
}
