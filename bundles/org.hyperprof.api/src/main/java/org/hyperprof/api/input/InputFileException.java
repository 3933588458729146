package org.hyperprof.api.input;

import java.io.IOException;

/**
 * An input Hyperprof will not read: a path that names no regular file, or content beyond its
 * reader's ceiling. An {@link IOException}, so that every reader's existing "cannot read" path
 * carries it; its message names the input, says what is wrong and what to do.
 */
public abstract class InputFileException extends InputException {
    private static final long serialVersionUID = 1L;

    /**
     * @param location the path or name of the input, as the user gave it
     * @param problem  what is wrong and what to do, without the location
     */
    protected InputFileException(String location, String problem) {
        super(location, null, -1, problem);
    }
}
