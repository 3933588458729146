package org.hyperprof.store.clickhouse;

import java.time.Instant;
import java.util.List;

import org.hyperprof.api.store.StoredSession;

/**
 * What the shipper is doing, for {@code hp:fleet status}.
 *
 * @param pending   the sessions the outbox holds, oldest first
 * @param shipped   sessions shipped since the shipper started
 * @param problem   why the last try stopped (the server down, the credentials refused, ...), or null
 * @param nextTry   when it tries again after a problem, or null
 * @param lastShipped when the last session was shipped, or null
 */
public record FleetStatus(List<String> endpoints, List<StoredSession> pending, long shipped, String problem,
        Instant nextTry, Instant lastShipped) {
    public FleetStatus {
        endpoints = List.copyOf(endpoints);
        pending = List.copyOf(pending);
    }
}
