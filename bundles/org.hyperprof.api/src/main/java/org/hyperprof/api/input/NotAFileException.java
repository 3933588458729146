package org.hyperprof.api.input;

/**
 * A path names something other than a regular file: a directory, a FIFO, a device or a socket.
 * Reading one could block forever (a FIFO waits for a writer), never end ({@code /dev/zero}) or
 * mean nothing (a directory), so it is refused before it is opened.
 */
public class NotAFileException extends InputFileException {
    private static final long serialVersionUID = 1L;
    private final FileKind kind;

    public NotAFileException(String location, FileKind kind, String problem) {
        super(location, problem);
        this.kind = kind;
    }

    /** What the path names. */
    public FileKind kind() {
        return kind;
    }
}
