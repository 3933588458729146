package org.hyperprof.api.profiler;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Hears how far every one-shot profile has come ({@link Profiler#profile}: {@code hp:profile}, a study's runs),
 * whoever started it: register it as a service (the web view's live page does). It hears what the caller's own
 * {@link org.hyperprof.api.host.ProgressListener} hears, on the run's thread, after it: answer from fields, never
 * block. One that throws is left out of that report; the run goes on.
 *
 * @since 2.2
 */
@ConsumerType
public interface ProfileWatcher {
    /**
     * @param doneMicros  simulated microseconds run so far
     * @param totalMicros simulated microseconds asked for
     * @param samples     samples taken so far in this run
     */
    void progress(long doneMicros, long totalMicros, long samples);
}
