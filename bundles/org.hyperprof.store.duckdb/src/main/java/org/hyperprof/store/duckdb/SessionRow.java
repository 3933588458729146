package org.hyperprof.store.duckdb;

import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * A session's row in the {@code sessions} table: what the API gives back, and the columns only the
 * store's own readers need (the processor's name and clock for a report's header, the end reason,
 * the simulated cycles, Xen's statistics, whether the session has ground truth and whether its
 * reports showed names demangled).
 *
 * @param xen       Xen's statistics, null when the source is not the simulator
 * @param demangled whether its dictionary demangled names, null when not known (a merge)
 */
record SessionRow(StoredSession session, String cpuName, long mhz, String endReason, long simulatedCycles,
        XenoprofStatistics xen, boolean groundTruth, Boolean demangled) {

    /** A row with none of the simulator's figures, and no word on demangling. */
    SessionRow(StoredSession session, String cpuName, long mhz, String endReason) {
        this(session, cpuName, mhz, endReason, 0, null, false, null);
    }
}
