package org.hyperprof.web.server;

/** Why the view could not be served, in words for the user (what went wrong, what to do). */
public final class ServeException extends Exception {
    private static final long serialVersionUID = 1L;

    public ServeException(String message) {
        super(message);
    }
}
