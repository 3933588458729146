package org.hyperprof.store.duckdb;

import org.hyperprof.api.store.StoredSession;

/**
 * A session's row in the {@code sessions} table: what the API gives back, and the columns only the
 * store's own readers need (the processor's name and clock for a report's header, the end reason).
 */
record SessionRow(StoredSession session, String cpuName, long mhz, String endReason) {
}
