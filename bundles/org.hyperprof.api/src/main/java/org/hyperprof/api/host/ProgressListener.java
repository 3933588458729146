package org.hyperprof.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/** Hears how far a long simulation run has come. */
@ConsumerType
@FunctionalInterface
public interface ProgressListener {
    ProgressListener NONE = (done, total, samples) -> { };

    /**
     * @param doneMicros  simulated microseconds run so far
     * @param totalMicros simulated microseconds asked for
     * @param samples     samples taken so far in this run
     */
    void progress(long doneMicros, long totalMicros, long samples);
}
