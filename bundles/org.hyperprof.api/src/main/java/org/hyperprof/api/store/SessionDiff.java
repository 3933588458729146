package org.hyperprof.api.store;

import java.util.List;

/**
 * Two stored sessions side by side: each one's totals within the request (its event, its domain)
 * and the image and symbol rows of both, matched by name.
 *
 * @param baseline         the baseline session (A)
 * @param compared         the compared session (B)
 * @param event            the event compared, as the sessions' {@code events} name it
 * @param baselineNanos    A's profiled time in nanoseconds (0 when the store does not know it)
 * @param comparedNanos    B's profiled time in nanoseconds (0 when not known)
 * @param baselineSamples  A's samples of the event (and domain): the base of its shares
 * @param comparedSamples  B's samples of the event (and domain)
 * @param baselineWeight   the events A's samples stand for
 * @param comparedWeight   the events B's samples stand for
 * @param images           one row per (domain, image) of either session
 * @param symbols          one row per (domain, image, symbol) of either session
 */
public record SessionDiff(StoredSession baseline, StoredSession compared, String event, long baselineNanos,
        long comparedNanos, long baselineSamples, long comparedSamples, long baselineWeight, long comparedWeight,
        List<DiffRow> images, List<DiffRow> symbols) {

    public SessionDiff {
        images = List.copyOf(images);
        symbols = List.copyOf(symbols);
    }
}
