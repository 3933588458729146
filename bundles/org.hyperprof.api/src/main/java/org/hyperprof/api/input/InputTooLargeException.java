package org.hyperprof.api.input;

/** An input holds more than its reader's ceiling; nothing of it was kept. */
public class InputTooLargeException extends InputFileException {
    private static final long serialVersionUID = 1L;
    private final long maxBytes;

    /**
     * @param maxBytes the ceiling that was passed: the most bytes the reader takes in of this input
     * @param problem  what is wrong and how the user raises the ceiling, without the location
     */
    public InputTooLargeException(String location, long maxBytes, String problem) {
        super(location, problem);
        this.maxBytes = maxBytes;
    }

    /** The ceiling that was passed, in bytes. */
    public long maxBytes() {
        return maxBytes;
    }
}
