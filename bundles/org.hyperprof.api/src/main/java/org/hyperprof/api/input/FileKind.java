package org.hyperprof.api.input;

/** What a path names, as a {@link NotAFileException} says it: only a regular file is read. */
public enum FileKind {
    REGULAR("a regular file"),
    DIRECTORY("a directory"),
    FIFO("a FIFO (named pipe)"),
    CHARACTER_DEVICE("a character device"),
    BLOCK_DEVICE("a block device"),
    SOCKET("a socket"),
    OTHER("neither a regular file nor a directory");

    private final String text;

    FileKind(String text) {
        this.text = text;
    }

    /** {@code a FIFO (named pipe)}, for messages. */
    public String text() {
        return text;
    }
}
