package org.hyperprof.api.source;

import org.hyperprof.api.input.InputException;

/**
 * A file that is not in its source's format: names the file, where (a line for text formats, a byte
 * offset for binary ones), what was found and expected there, and what to do.
 */
public class SourceFormatException extends InputException {
    private static final long serialVersionUID = 1L;

    /**
     * @param file     the file as the user gave it
     * @param where    {@code line} or {@code offset}
     * @param position the line number (from 1) or byte offset; -1 when not known
     * @param problem  what was found, what was expected and what to do
     */
    public SourceFormatException(String file, String where, long position, String problem) {
        super(file, where, position, problem);
    }

    /** The file as the user gave it (its {@link #location()}). */
    public String file() {
        return location();
    }
}
