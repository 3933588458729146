package org.hyperprof.command.kit;

import java.io.PrintStream;

import org.hyperprof.api.command.CommandFailure;

/**
 * Runs a command body so that whatever goes wrong reaches the user as one clear message on the
 * session's error stream, never as a stack trace: a usage error with the usage line, a service's
 * typed error with its own message, and anything unexpected with its kind and message. Then it
 * throws {@link CommandFailure}, so that the failure is the call's result and not only text: exit
 * status 2 for a usage error, 1 for any other.
 */
public final class Guard {
    /** A command's work. */
    @FunctionalInterface
    public interface Body {
        void run(PrintStream out) throws Exception;
    }

    private Guard() {
    }

    /**
     * @param args the command's words: with {@code --help} among them the command's help is printed
     *             instead of running the body; {@code key=value} words naming one of its options are
     *             read as that option, with a hint
     * @throws CommandFailure once the failure's message is printed
     */
    public static void run(Console console, Syntax syntax, String[] args, Body body) {
        PrintStream out = console.out();
        try {
            if (helpAsked(args)) {
                out.println(syntax.help());
                return;
            }
            syntax.acceptKeyValue(args, console.err());
            body.run(out);
        } catch (CommandFailure e) {
            // A command run by this one has printed its own failure already.
            throw e;
        } catch (UsageException e) {
            throw usage(console.err(), syntax, e);
        } catch (Exception | LinkageError e) {
            console.err().println(message(syntax, e));
            throw new CommandFailure(syntax.command(), CommandFailure.FAILED);
        } finally {
            out.flush();
        }
    }

    /** Prints a usage error with the usage line and returns the failure to throw (exit status 2). */
    public static CommandFailure usage(PrintStream err, Syntax syntax, UsageException e) {
        err.println(syntax.command() + ": " + e.getMessage());
        err.println("usage: " + syntax.usage());
        if (syntax.hasDetails()) {
            err.println("(" + syntax.command() + " --help explains the arguments)");
        }
        return new CommandFailure(syntax.command(), CommandFailure.USAGE);
    }

    /** {@code <command> --help}: the word {@code --help} anywhere before a {@code --}. */
    public static boolean helpAsked(String[] args) {
        if (args != null) {
            for (String a : args) {
                if (a.equals("--")) {
                    return false;
                }
                if (a.equals("--help")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The one line a failure prints. */
    public static String message(Syntax syntax, Throwable e) {
        String text = e.getMessage() == null || e.getMessage().isBlank() ? null : e.getMessage().strip();
        if (expected(e) && text != null) {
            return syntax.command() + ": " + text;
        }
        // A failure no service announced is a defect: say so plainly, with what it was.
        return syntax.command() + " failed unexpectedly: " + e.getClass().getSimpleName()
                + (text == null ? "" : ": " + text);
    }

    /** Failures that services throw on purpose, with messages written for the user. */
    private static boolean expected(Throwable e) {
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException
                || e instanceof java.io.IOException || e instanceof UnsupportedOperationException) {
            return true;
        }
        // The API's checked exceptions (ScenarioException, ProfileException, ReportException,
        // HostStoppedException, EventSpecException, SymbolFileException) all carry such messages.
        return !(e instanceof RuntimeException) && !(e instanceof Error);
    }
}
