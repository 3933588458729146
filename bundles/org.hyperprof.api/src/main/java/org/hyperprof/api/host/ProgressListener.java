package org.hyperprof.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/** Hears how far a long simulation run has come, and may ask it to stop early. */
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

    /**
     * Whether the user asked to stop the run early (Ctrl-C, SIGTERM; see {@link StopRequests}).
     * A run asks before each of its steps and, once this is true, ends at that step with the
     * samples it took; a profile then ends its session the usual way, so its books stay exact.
     * Called often: answer from a field.
     */
    default boolean stopRequested() {
        return false;
    }
}
