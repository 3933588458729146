package org.hyperprof.api.profiler;

/** A profile could not be set up or completed; the message says why and what to do. */
public class ProfileException extends Exception {
    private static final long serialVersionUID = 1L;

    public ProfileException(String message) {
        super(message);
    }
}
