package org.hyperprof.api.input;

/** An input holds more than its reader's ceiling; nothing of it was kept. The message says how to raise it. */
public class InputTooLargeException extends InputFileException {
    private static final long serialVersionUID = 1L;

    public InputTooLargeException(String location, String problem) {
        super(location, problem);
    }
}
