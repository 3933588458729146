package org.hyperprof.source.perf;

/**
 * A perf.data recording cannot be read on: it is truncated, a size or offset in it points outside
 * what holds it, or it uses a layout this reader does not know. Names the file, the byte offset
 * where the problem is, what was found there and what was expected.
 */
public class PerfDataException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final long offset;

    /**
     * @param file    the recording's path (or {@code <pipe>} name)
     * @param offset  the byte offset in the file or stream, or -1 when the problem has no place
     * @param message what was found and what was expected
     */
    public PerfDataException(String file, long offset, String message) {
        super(file + (offset >= 0 ? ": at byte " + offset + " (0x" + Long.toHexString(offset) + ")" : "") + ": "
                + message);
        this.file = file;
        this.offset = offset;
    }

    public PerfDataException(String file, String message, Throwable cause) {
        super(file + ": " + message, cause);
        this.file = file;
        this.offset = -1;
    }

    /** The recording. */
    public String file() {
        return file;
    }

    /** The byte offset of the problem, or -1. */
    public long offset() {
        return offset;
    }
}
