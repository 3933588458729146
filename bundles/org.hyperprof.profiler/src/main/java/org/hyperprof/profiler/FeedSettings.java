package org.hyperprof.profiler;

import java.time.Duration;

/**
 * How the profiler hands samples to the consumers ({@link ProfilerConfiguration}), checked once here
 * for the constructor and for a change of configuration alike.
 *
 * @param batchSize       samples per batch
 * @param queueCapacity   batches each consumer's queue holds
 * @param endTimeoutNanos how long a session's end waits for slow consumers
 */
record FeedSettings(int batchSize, int queueCapacity, long endTimeoutNanos) {

    FeedSettings {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size " + batchSize + " must be at least 1 sample");
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("consumer queue of " + queueCapacity + " batches must hold at least 1");
        }
        if (endTimeoutNanos < 0) {
            throw new IllegalArgumentException("session end wait " + Duration.ofNanos(endTimeoutNanos)
                    + " must not be negative");
        }
    }

    FeedSettings(int batchSize, int queueCapacity, Duration endTimeout) {
        this(batchSize, queueCapacity, endTimeout.toNanos());
    }

    static FeedSettings of(ProfilerConfiguration config) {
        return new FeedSettings(config.batch_size(), config.consumer_queue_batches(),
                Duration.ofSeconds(config.session_end_timeout_seconds()));
    }
}
