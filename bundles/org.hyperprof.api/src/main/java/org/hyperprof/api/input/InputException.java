package org.hyperprof.api.input;

import java.io.IOException;

import org.hyperprof.api.internal.VisibleText;

/**
 * Bad input, in the one message every reader gives: the input as the user gave it, where in it when
 * that is known (a line for text formats, a byte offset for binary ones), then what is wrong there and
 * what to do. Characters that would print as nothing are shown as escapes. An {@link IOException}, so
 * that every reader's existing "cannot read" path carries it; {@link InputFileException} (the input as
 * a whole) and a format's own errors extend it.
 */
public abstract class InputException extends IOException {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final long position;
    private final String problem;

    /**
     * @param location the path or name of the input, as the user gave it
     * @param where    what {@code position} counts: {@code line} or {@code offset}
     * @param position the line number (from 1) or byte offset; -1 when not known (then not shown)
     * @param problem  what is wrong and what to do, without the location
     */
    protected InputException(String location, String where, long position, String problem) {
        super(VisibleText.of(location + (position >= 0 ? " " + where + " " + position : "") + ": " + problem));
        this.location = location;
        this.position = position;
        this.problem = VisibleText.of(problem);
    }

    /** The input, as the user gave it. */
    public String location() {
        return location;
    }

    /** The line number or byte offset of the problem; -1 when not known. */
    public long position() {
        return position;
    }

    /** What is wrong and what to do, without the location: for messages that name the input themselves. */
    public String problem() {
        return problem;
    }
}
