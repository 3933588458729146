package org.hyperprof.api.host;

/** A scenario file is malformed or inconsistent; names the file, the line and what was expected. */
public class ScenarioException extends Exception {
    private static final long serialVersionUID = 1L;

    public ScenarioException(String message) {
        super(message);
    }

    public ScenarioException(String message, Throwable cause) {
        super(message, cause);
    }
}
