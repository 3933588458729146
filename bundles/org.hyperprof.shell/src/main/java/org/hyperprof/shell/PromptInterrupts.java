package org.hyperprof.shell;

import java.util.function.BooleanSupplier;

import org.jline.terminal.Terminal;

/**
 * Ctrl-C under Gogo's JLine console. Its terminal takes SIGINT from the JVM (it replaces
 * {@link CommandLineStops}' handler, and takes it back each time a handler of its own changes) and
 * hands it to the terminal's current handler: at the prompt the line reader's, which drops the line
 * being edited; while a command runs the console's, which interrupts the command's thread, and a
 * run interrupted mid-step would end without its books. So while a command runs the signal goes to
 * the stop requests instead (the run stops at its next step and prints its books, and the prompt
 * comes back); otherwise it goes on to the handler this one replaced. Only this class refers to
 * JLine, and only a JLine session loads it.
 */
final class PromptInterrupts implements Terminal.SignalHandler {
    private final BooleanSupplier commandRunning;
    private final Runnable stopRequest;
    private final Terminal.SignalHandler replaced;

    private PromptInterrupts(BooleanSupplier commandRunning, Runnable stopRequest, Terminal.SignalHandler replaced) {
        this.commandRunning = commandRunning;
        this.stopRequest = stopRequest;
        this.replaced = replaced;
    }

    /**
     * Puts this handler in front of the terminal's current one, unless it is there already. Called
     * before each command: the console sets its own handler once its prompt loop starts, after
     * the session's first commands.
     */
    static void takeOver(Object terminal, BooleanSupplier commandRunning, Runnable stopRequest) {
        if (!(terminal instanceof Terminal t)) {
            return;
        }
        Terminal.SignalHandler current = t.handle(Terminal.Signal.INT, Terminal.SignalHandler.SIG_IGN);
        t.handle(Terminal.Signal.INT, current instanceof PromptInterrupts ? current
                : new PromptInterrupts(commandRunning, stopRequest, current));
    }

    @Override
    public void handle(Terminal.Signal signal) {
        if (commandRunning.getAsBoolean()) {
            stopRequest.run();
        } else if (replaced != null && replaced != Terminal.SignalHandler.SIG_DFL
                && replaced != Terminal.SignalHandler.SIG_IGN) {
            replaced.handle(signal);
        }
    }
}
