package org.hyperprof.api.host;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The user's requests to stop a long run early: Ctrl-C or SIGTERM at the command line. A command
 * that runs the host for long opens a {@link Watch} for as long as it works and runs the host
 * with the watch's {@link Watch#listener listener}; a request then ends the run at its next step
 * with the samples taken so far, and the command ends its session the usual way and prints its
 * books. Whether the process then exits (a piped session, SIGTERM) or the shell takes the next
 * command (Ctrl-C at an interactive prompt) is the provider's rule, applied when the watch closes.
 */
@ProviderType
public interface StopRequests {
    /** For runs nobody can interrupt: tests, embedding, a framework without a command line. */
    StopRequests NONE = command -> Watch.UNWATCHED;

    /**
     * Opens a watch for a command that is starting: stop requests made while it is open reach it.
     *
     * @param command the command, for the messages, e.g. {@code hp:profile}
     */
    Watch watch(String command);

    /** The stop requests one command hears while it runs. */
    @ProviderType
    interface Watch extends AutoCloseable {
        /** A watch that never hears a request. */
        Watch UNWATCHED = new Watch() {
            @Override
            public String stopReason() {
                return null;
            }

            @Override
            public void close() {
            }
        };

        /** What asked the command to stop, e.g. {@code Ctrl-C} or {@code SIGTERM}; null while nothing has. */
        String stopReason();

        default boolean stopRequested() {
            return stopReason() != null;
        }

        /** {@code progress}, stopping when this watch hears a request. */
        default ProgressListener listener(ProgressListener progress) {
            ProgressListener to = progress == null ? ProgressListener.NONE : progress;
            return new ProgressListener() {
                @Override
                public void progress(long doneMicros, long totalMicros, long samples) {
                    to.progress(doneMicros, totalMicros, samples);
                }

                @Override
                public boolean stopRequested() {
                    return Watch.this.stopRequested();
                }
            };
        }

        /**
         * The command is done and has printed what it took. When a request came and its rule ends
         * the process (a piped session, or SIGTERM), the process exits here: 130 after Ctrl-C
         * (SIGINT), 143 after SIGTERM.
         */
        @Override
        void close();
    }
}
