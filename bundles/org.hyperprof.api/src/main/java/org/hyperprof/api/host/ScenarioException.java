package org.hyperprof.api.host;

/**
 * A scenario file is malformed or inconsistent; names the file, the line and what was expected.
 * Characters that would print as nothing are escaped in the message ({@code \t}, {@code \uFEFF}):
 * the message shows what the file holds.
 */
public class ScenarioException extends Exception {
    private static final long serialVersionUID = 1L;

    public ScenarioException(String message) {
        super(org.hyperprof.api.internal.VisibleText.of(message));
    }

    public ScenarioException(String message, Throwable cause) {
        super(org.hyperprof.api.internal.VisibleText.of(message), cause);
    }
}
