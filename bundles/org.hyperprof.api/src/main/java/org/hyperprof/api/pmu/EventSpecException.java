package org.hyperprof.api.pmu;

/**
 * A user's event specification does not fit the CPU model: unknown event, count below the
 * minimum, a unit mask the event does not have, a counter it cannot use, or bad syntax. The
 * message says what was given and lists what is allowed.
 */
public class EventSpecException extends Exception {
    private static final long serialVersionUID = 1L;

    public EventSpecException(String message) {
        super(message);
    }
}
