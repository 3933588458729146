package org.hyperprof.api.sample;

import java.util.List;

import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * How a session ended and where every sample went.
 *
 * @param sessionId       the session
 * @param accounting      the session's books: taken = delivered + lost + dropped + invalid
 * @param buffers         each vCPU buffer's books
 * @param consumers       what each consumer received and missed
 * @param hypervisor      Xen's own statistics (null when the source is not the simulator)
 * @param groundTruth     the exact totals (null when the source is not the simulator)
 * @param simulatedCycles elapsed cycles per physical CPU while profiling
 * @param endReason       {@code completed}, or why the session stopped (e.g. which bundle departed)
 */
public record SessionSummary(long sessionId, Accounting accounting, List<BufferAccounting> buffers,
        List<ConsumerAccounting> consumers, XenoprofStatistics hypervisor, GroundTruth groundTruth,
        long simulatedCycles, String endReason, java.util.Map<String, Long> hostCounters, List<String> notes) {

    public static final String COMPLETED = "completed";

    /**
     * @param hostCounters the host's named counters over the session (see
     *                     {@code Host.counters()}): postponed or misattributed interrupts and the like
     * @param notes        problems met that did not stop the session, one line each (a symbol file
     *                     that could not be read, a domain destroyed mid-session, ...)
     */
    public SessionSummary {
        buffers = List.copyOf(buffers);
        consumers = List.copyOf(consumers);
        hostCounters = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(hostCounters));
        notes = List.copyOf(notes);
    }

    /** A summary without host counters or notes. */
    public SessionSummary(long sessionId, Accounting accounting, List<BufferAccounting> buffers,
            List<ConsumerAccounting> consumers, XenoprofStatistics hypervisor, GroundTruth groundTruth,
            long simulatedCycles, String endReason) {
        this(sessionId, accounting, buffers, consumers, hypervisor, groundTruth, simulatedCycles, endReason,
                java.util.Map.of(), List.of());
    }

    public boolean completed() {
        return COMPLETED.equals(endReason);
    }
}
