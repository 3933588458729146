package org.hyperprof.api.store;

/**
 * Which rows of two stored sessions a differential profile compares.
 *
 * @param baseline the session compared against (A)
 * @param compared the session compared with it (B)
 * @param event    the index of the event in both sessions' {@code events} (0: the first)
 * @param domain   only the domain of this name or id (in each session), or null for all domains
 */
public record DiffRequest(long baseline, long compared, int event, String domain) {

    public DiffRequest {
        if (event < 0) {
            throw new IllegalArgumentException("event must be an index from 0, got " + event);
        }
    }
}
