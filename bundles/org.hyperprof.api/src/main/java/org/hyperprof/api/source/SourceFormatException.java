package org.hyperprof.api.source;

import java.io.IOException;

import org.hyperprof.api.internal.VisibleText;

/**
 * A file that is not in its source's format: names the file, where (a line for text formats, a byte
 * offset for binary ones), what was found and expected there, and what to do.
 */
public class SourceFormatException extends IOException {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final long position;
    private final String problem;

    /**
     * @param file     the file as the user gave it
     * @param where    {@code line} or {@code offset}
     * @param position the line number (from 1) or byte offset; -1 when not known
     * @param problem  what was found, what was expected and what to do
     */
    public SourceFormatException(String file, String where, long position, String problem) {
        super(VisibleText.of(file + (position >= 0 ? " " + where + " " + position : "") + ": " + problem));
        this.file = file;
        this.position = position;
        this.problem = VisibleText.of(problem);
    }

    public String file() {
        return file;
    }

    public long position() {
        return position;
    }

    public String problem() {
        return problem;
    }
}
