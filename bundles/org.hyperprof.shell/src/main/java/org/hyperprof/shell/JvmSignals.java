package org.hyperprof.shell;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The JVM's signal handlers (jdk.unsupported's {@code sun.misc.Signal}, the supported way to
 * catch SIGINT and SIGTERM), apart so that a framework without that package only loses them.
 */
final class JvmSignals {
    private JvmSignals() {
    }

    /**
     * Runs {@code action} on its own thread when the signal comes.
     *
     * @param name e.g. {@code INT}
     * @return the handler replaced, for {@link #restore}; null when the signal stays ignored (the JVM
     *         keeps a signal ignored that was ignored when it started, such as a background job's SIGINT)
     * @throws IllegalArgumentException when the JVM keeps the signal for itself
     */
    static Object handle(String name, Runnable action) {
        SignalHandler previous = Signal.handle(new Signal(name), signal -> action.run());
        return previous == SignalHandler.SIG_IGN ? null : previous;
    }

    /** Puts back a handler {@link #handle} replaced. */
    static void restore(String name, Object previous) {
        Signal.handle(new Signal(name), (SignalHandler) previous);
    }
}
