package org.hyperprof.api.command;

/**
 * A command failed and has already printed why on its session's error stream; it throws this so
 * that whoever runs the command (Gogo's prompt, the launcher's piped session) sees the failure in
 * the call itself rather than by reading the output. It carries the exit status the launcher ends
 * with: {@link #USAGE} for a command line the command cannot take, {@link #FAILED} for anything
 * else.
 */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Exit status of a usage error: the command line, not the work, was wrong. */
    public static final int USAGE = 2;
    /** Exit status of any other failure. */
    public static final int FAILED = 1;

    private final int status;

    /**
     * @param command the command as the user typed its name, e.g. {@code hp:import}
     * @param status  {@link #USAGE} or {@link #FAILED}
     */
    public CommandFailure(String command, int status) {
        // No stack trace: the message printed before says everything the user needs.
        super(command + (status == USAGE ? ": usage error" : " failed"), null, false, false);
        if (status != USAGE && status != FAILED) {
            throw new IllegalArgumentException("a command fails with status " + USAGE + " or " + FAILED + ", not "
                    + status);
        }
        this.status = status;
    }

    /** {@link #USAGE} or {@link #FAILED}. */
    public int status() {
        return status;
    }

    /**
     * Empty: the command has printed why, and Gogo's interactive prompt prints what a failed line
     * threw as its {@code toString()}, which would say it a second time, as a class name. The message
     * ({@link #getMessage()}) names the command and how it failed.
     */
    @Override
    public String toString() {
        return "";
    }
}
