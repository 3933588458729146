package org.hyperprof.api.input;

/** An input holds more than its reader's ceiling ({@link InputLimit}); nothing of it was kept. */
public class InputTooLargeException extends InputFileException {
    private static final long serialVersionUID = 1L;
    private final InputLimit limit;

    public InputTooLargeException(String location, InputLimit limit, String problem) {
        super(location, problem);
        this.limit = limit;
    }

    /** The ceiling that was passed. */
    public InputLimit limit() {
        return limit;
    }
}
