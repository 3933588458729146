package org.hyperprof.hypervisor.xenoprof;

import java.util.List;

/**
 * What the NMI path and the VIRQ machinery did besides the sample fates of
 * {@link org.hyperprof.api.xenoprof.XenoprofStatistics}, since the primary's last
 * {@code enable_virq} (the flush and log counts are kept for the life of the host).
 *
 * <p>Call-trace entries are not samples: a trace cut short by a full ring, a corrupted index, or
 * a return address equal to the escape value leaves the sample itself delivered. Xen folded these
 * into its global lost/corrupted/invalid counters, which then no longer add up to
 * {@code total_samples}; here they are counted apart so the sample books always balance, and
 * {@link #xenLostSamples}, {@link #xenInvalidBufferSamples} and {@link #xenCorruptedBufferSamples}
 * give the values Xen's own counters would hold.
 *
 * @param guestRoutedOverflows   overflows the counter-virtualization policy gave to a guest's own
 *                               PMU (not Xenoprof samples, not in {@code total_samples})
 * @param policyDroppedSamples   of {@code others_samples}, those the policy dropped
 * @param traceEntriesLost       call-trace entries refused because the ring was full
 * @param traceEntriesCorrupted  call-trace entries refused because head or tail was out of range
 * @param traceEscapeRejected    return addresses equal to the escape value (the walk stops there)
 * @param virqsRaised            VIRQs recorded in a pCPU slot by the NMI rule of section 4.5
 * @param virqsCoalesced         NMIs that met the rule while a VIRQ was already pending on the pCPU
 * @param virqsDelivered         VIRQs that reached a bound handler (NMI continuations and stop's flush)
 * @param virqsUnbound           VIRQs sent to a domain that had no handler bound (Xen drops them)
 * @param flushVirqs             VIRQs sent by {@code stop} to every vCPU of every ready active domain
 * @param totalSamples           {@code total_samples}, for the derived Xen counters
 * @param lostSamples            sample-level {@code lost_samples}
 * @param invalidBufferSamples   sample-level {@code invalid_buffer_samples}
 * @param corruptedBufferSamples sample-level {@code corrupted_buffer_samples}
 * @param ibsBlocks              AMD IBS blocks the NMI path found (each one sample in {@code totalSamples})
 * @param ibsEntries             buffer entries the IBS blocks that were written took
 * @param log                    Xen's console lines for Xenoprof (failed operations, warnings), newest last
 */
public record XenoprofDiagnostics(long guestRoutedOverflows, long policyDroppedSamples, long traceEntriesLost,
        long traceEntriesCorrupted, long traceEscapeRejected, long virqsRaised, long virqsCoalesced,
        long virqsDelivered, long virqsUnbound, long flushVirqs, long totalSamples, long lostSamples,
        long invalidBufferSamples, long corruptedBufferSamples, long ibsBlocks, long ibsEntries, List<String> log) {

    public XenoprofDiagnostics {
        log = List.copyOf(log);
    }

    /** Xen's global {@code lost_samples}: lost samples plus lost call-trace entries. */
    public long xenLostSamples() {
        return lostSamples + traceEntriesLost;
    }

    /** Xen's global {@code invalid_buffer_samples}: buffer-less samples plus escape-valued trace entries. */
    public long xenInvalidBufferSamples() {
        return invalidBufferSamples + traceEscapeRejected;
    }

    /** Xen's global {@code corrupted_buffer_samples}, trace entries included. */
    public long xenCorruptedBufferSamples() {
        return corruptedBufferSamples + traceEntriesCorrupted;
    }
}
