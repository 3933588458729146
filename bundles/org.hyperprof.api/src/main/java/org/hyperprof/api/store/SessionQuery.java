package org.hyperprof.api.store;

import java.time.Instant;

/**
 * Which stored sessions to list.
 *
 * @param all    also the sessions marked hidden (meant for those a study makes)
 * @param since  only sessions started at or after this instant, or null for any
 * @param source only sessions of this source ({@code simulator}, {@code perf.data}, ...), or null for any
 * @param limit  at most this many (the newest), 0 for no limit
 */
public record SessionQuery(boolean all, Instant since, String source, int limit) {

    public SessionQuery {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be 0 (none) or more, got " + limit);
        }
    }

    /** Every session but the hidden ones. */
    public static SessionQuery visible() {
        return new SessionQuery(false, null, null, 0);
    }
}
