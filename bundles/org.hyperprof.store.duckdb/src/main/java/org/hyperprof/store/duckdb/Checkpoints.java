package org.hyperprof.store.duckdb;

import java.time.Instant;

/**
 * When a running session's next checkpoint is due, and what its last one stored. Read per batch on
 * the store's delivery thread (a comparison, no allocation); written by the checkpoint, while that
 * thread waits for it.
 */
final class Checkpoints {
    /** A checkpoint written: when, and the samples it stored. */
    record Written(Instant at, long samples) {
    }

    private long intervalNanos;
    private long next;
    private Written last;

    /** Every {@code intervalNanos} (0: never), the first an interval after {@code nanoTime}. */
    void every(long intervalNanos, long nanoTime) {
        this.intervalNanos = intervalNanos;
        this.next = nanoTime + intervalNanos;
    }

    boolean due(long nanoTime) {
        return intervalNanos > 0 && nanoTime - next >= 0;
    }

    /** A checkpoint was written ({@code written}), or tried in vain (null); the next is due an interval on. */
    void written(Written written, long nanoTime) {
        if (written != null) {
            last = written;
        }
        next = nanoTime + intervalNanos;
    }

    /** The last checkpoint written; null before one. */
    Written last() {
        return last;
    }
}
