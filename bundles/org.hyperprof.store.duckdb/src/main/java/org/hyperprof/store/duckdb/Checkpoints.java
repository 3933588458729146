package org.hyperprof.store.duckdb;

import java.time.Instant;

/**
 * When a running session's next checkpoint is due, and what its last one stored. Read per batch on
 * the store's delivery thread (a comparison, no allocation); written by the checkpoint, while that
 * thread waits for it.
 */
final class Checkpoints {
    private long intervalNanos;
    private long next;
    private Instant lastAt;
    private long lastSamples;

    /** Every {@code intervalNanos} (0: never), the first an interval after {@code nanoTime}. */
    void every(long intervalNanos, long nanoTime) {
        this.intervalNanos = intervalNanos;
        this.next = nanoTime + intervalNanos;
    }

    boolean due(long nanoTime) {
        return intervalNanos > 0 && nanoTime - next >= 0;
    }

    /** A checkpoint of {@code samples} was written at {@code at} (null: tried in vain); the next is due an interval on. */
    void written(Instant at, long samples, long nanoTime) {
        if (at != null) {
            lastAt = at;
            lastSamples = samples;
        }
        next = nanoTime + intervalNanos;
    }

    /** When the last checkpoint was written; null before one. */
    Instant lastAt() {
        return lastAt;
    }

    /** The samples the last checkpoint stored. */
    long lastSamples() {
        return lastSamples;
    }
}
