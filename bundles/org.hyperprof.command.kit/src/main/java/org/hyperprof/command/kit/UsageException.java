package org.hyperprof.command.kit;

/** A command line the command cannot take: says what was expected and what was given. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
