package org.hyperprof.shell;

/**
 * A command failed: {@link Guard} has already printed why on the session's error stream, and
 * throws this so that whoever runs the command (Gogo's prompt, the launcher's piped session) sees
 * the failure in the call itself rather than by reading the output. It carries the exit status the
 * launcher ends with: 2 for a command line the command cannot take, 1 for anything else.
 */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Exit status of a usage error: the command line, not the work, was wrong. */
    public static final int USAGE = 2;
    /** Exit status of any other failure. */
    public static final int FAILED = 1;

    private final int status;

    CommandFailure(String command, int status) {
        // No stack trace: the message printed before says everything the user needs.
        super(command + (status == USAGE ? ": usage error" : " failed"), null, false, false);
        this.status = status;
    }

    /** {@link #USAGE} or {@link #FAILED}. */
    public int status() {
        return status;
    }
}
