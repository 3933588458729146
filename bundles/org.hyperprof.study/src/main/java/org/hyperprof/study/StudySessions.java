package org.hyperprof.study;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;

/**
 * The sessions a study makes, marked as its in the session store: many short runs that would bury the
 * user's own, so {@code hp:sessions} leaves them out and {@code hp:sessions --all} shows them with the
 * study's name. With no store installed there is nothing to mark.
 */
final class StudySessions implements LongConsumer {
    private final SessionStore store;
    private final String study;
    private final Consumer<String> problems;
    private boolean told;

    /**
     * @param store    the session store, or null when none is installed
     * @param problems hears one line, once, when the store cannot mark them
     */
    StudySessions(SessionStore store, String study, Consumer<String> problems) {
        this.store = store;
        this.study = study;
        this.problems = problems;
    }

    /** The study's name in the store: its scenario and when it started, to the second. */
    static String name(String scenario, Instant started) {
        return "hp:study " + scenario + " " + started.truncatedTo(ChronoUnit.SECONDS);
    }

    String study() {
        return study;
    }

    @Override
    public void accept(long sessionId) {
        if (store == null) {
            return;
        }
        try {
            // False: the store keeps no such session (it is off), so nothing is listed to hide.
            store.markStudy(sessionId, study);
        } catch (StoreException e) {
            if (!told) {
                told = true;
                problems.accept("the study's sessions could not be marked as its in the session store, so"
                        + " hp:sessions lists them: " + e.getMessage());
            }
        }
    }
}
