package org.hyperprof.api.host;

/** The host cannot run any more: its CPU model or policy departed, or it was unloaded. Says which and why. */
public class HostStoppedException extends Exception {
    private static final long serialVersionUID = 1L;

    public HostStoppedException(String message) {
        super(message);
    }
}
