package org.hyperprof.shell;

import java.io.PrintStream;

/**
 * Runs a command body so that whatever goes wrong reaches the user as one clear message on the
 * session's error stream, never as a stack trace: a usage error with the usage line, a service's
 * typed error with its own message, and anything unexpected with its kind and message. Then it
 * throws {@link CommandFailure}, so that the failure is the call's result and not only text.
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
     *             instead of running the body
     * @throws CommandFailure once the failure's message is printed
     */
    public static void run(Console console, HpCommand command, String[] args, Body body) {
        PrintStream out = console.out();
        try {
            if (helpAsked(args)) {
                HelpCommands.printOne(command, out);
                return;
            }
            acceptKeyValue(command, args, console.err());
            body.run(out);
        } catch (CommandFailure e) {
            // A command run by this one has printed its own failure already.
            throw e;
        } catch (UsageException e) {
            PrintStream err = console.err();
            err.println(command.scoped() + ": " + e.getMessage());
            err.println("usage: " + command.usage());
            if (!command.details().isEmpty()) {
                err.println("(" + command.scoped() + " --help explains the arguments)");
            }
            throw new CommandFailure(command.scoped(), CommandFailure.USAGE);
        } catch (Exception | LinkageError e) {
            console.err().println(message(command, e));
            throw new CommandFailure(command.scoped(), CommandFailure.FAILED);
        } finally {
            out.flush();
        }
    }

    /** {@code hp:<command> --help}: the word {@code --help} anywhere before a {@code --}. */
    static boolean helpAsked(String[] args) {
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

    /**
     * The other style of options: a word {@code key=value} whose key is one of the command's value
     * options (as its usage line shows them, {@code [--key value]}) is read as {@code --key=value},
     * rewritten in place in the command's own words, and a hint names the grammar. Other words
     * with '=' (a renderer's {@code top=10}, a path) stay as they are.
     */
    static void acceptKeyValue(HpCommand command, String[] args, PrintStream err) {
        if (args == null) {
            return;
        }
        for (int i = 0; i < args.length && !args[i].equals("--"); i++) {
            int eq = args[i].indexOf('=');
            if (eq > 0 && !args[i].startsWith("-")) {
                String option = "--" + args[i].substring(0, eq);
                if (command.arguments().contains("[" + option + " ")) {
                    err.println(command.scoped() + ": read '" + args[i] + "' as '" + option + " "
                            + args[i].substring(eq + 1) + "' (options are written " + option + " value)");
                    args[i] = option + "=" + args[i].substring(eq + 1);
                }
            }
        }
    }

    /** The one line a failure prints. */
    static String message(HpCommand command, Throwable e) {
        String text = e.getMessage() == null || e.getMessage().isBlank() ? null : e.getMessage().strip();
        if (expected(e) && text != null) {
            return command.scoped() + ": " + text;
        }
        // A failure no service announced is a defect: say so plainly, with what it was.
        return command.scoped() + " failed unexpectedly: " + e.getClass().getSimpleName()
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
