package org.hyperprof.api.output;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An output cannot be written: its folder is missing, it is a folder or a disk, the disk is full,
 * the reader of a FIFO went away. The message is one line for the user: the target, what went
 * wrong and what became of an existing file.
 */
public class OutputException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path target;

    /**
     * @param target  the target as the user named it
     * @param message the whole line (line breaks become spaces)
     * @param cause   the I/O failure behind it, or null
     */
    public OutputException(Path target, String message, Throwable cause) {
        super(message == null ? "cannot write " + target : message.replaceAll("\\R+", " "), cause);
        this.target = target;
    }

    public OutputException(Path target, String message) {
        this(target, message, null);
    }

    /** The target as the user named it. */
    public Path target() {
        return target;
    }
}
