package org.hyperprof.api.input;

import java.io.IOException;

import org.hyperprof.api.internal.VisibleText;

/**
 * An input Hyperprof will not read: a path that names no regular file, or content beyond its
 * reader's ceiling. An {@link IOException}, so that every reader's existing "cannot read" path
 * carries it; its message names the input, says what is wrong and what to do.
 */
public abstract class InputFileException extends IOException {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final String problem;

    /**
     * @param location the path or name of the input, as the user gave it
     * @param problem  what is wrong and what to do, without the location
     */
    protected InputFileException(String location, String problem) {
        super(VisibleText.of(location + ": " + problem));
        this.location = location;
        this.problem = VisibleText.of(problem);
    }

    /** The input, as the user gave it. */
    public String location() {
        return location;
    }

    /** What is wrong and what to do, without the location: for messages that name the input themselves. */
    public String problem() {
        return problem;
    }
}
