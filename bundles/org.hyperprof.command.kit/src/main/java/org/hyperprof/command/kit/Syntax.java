package org.hyperprof.command.kit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A command as one table: its name, one-line summary, positional words and options. The parser
 * ({@link #parse}), the usage line ({@link #usage}), {@code --help} ({@link #help}) and the hint for
 * {@code key=value} words ({@link #acceptKeyValue}) all read it, so none can disagree with another.
 *
 * @param command    the scoped name, e.g. {@code hp:profile}
 * @param summary    one line: what it does
 * @param before     the positional words before the options on the usage line, e.g. {@code <perf.data>}; may be empty
 * @param options    the options, in the order the usage line and the help show them
 * @param after      what follows the options on the usage line, e.g. {@code [option...]}; may be empty
 * @param positional what completes a positional word at the prompt
 * @param notes      more help after the options, as preformatted lines; may be empty
 */
public record Syntax(String command, String summary, String before, List<Option> options, String after,
        Completion positional, String notes) {
    /** Help lines are wrapped to this width. */
    static final int WIDTH = 100;
    /** The help's option column: two spaces, then the label padded to this width. */
    static final int LABEL = 21;

    public Syntax {
        options = List.copyOf(options);
        List<String> names = new ArrayList<>();
        for (Option o : options) {
            if (names.contains(o.name())) {
                throw new IllegalArgumentException(command + " lists " + o.name() + " twice");
            }
            names.add(o.name());
        }
    }

    /** A command that takes nothing yet: add its words with the {@code with} methods. */
    public static Syntax of(String command, String summary) {
        return new Syntax(command, summary, "", List.of(), "", Completion.NONE, "");
    }

    public Syntax before(String words, Completion completion) {
        return new Syntax(command, summary, words, options, after, completion, notes);
    }

    public Syntax options(Option... more) {
        List<Option> all = new ArrayList<>(options);
        all.addAll(List.of(more));
        return new Syntax(command, summary, before, all, after, positional, notes);
    }

    public Syntax after(String words) {
        return new Syntax(command, summary, before, options, words, positional, notes);
    }

    public Syntax notes(String text) {
        return new Syntax(command, summary, before, options, after, positional, text);
    }

    /** What follows the name on the usage line; empty for a command that takes nothing. */
    public String arguments() {
        return String.join(" ", parts());
    }

    /** The usage line's words after the name: the positional words, each option, what follows. */
    private List<String> parts() {
        List<String> parts = new ArrayList<>();
        if (!before.isEmpty()) {
            parts.add(before);
        }
        for (Option o : options) {
            parts.add(o.usage());
        }
        if (!after.isEmpty()) {
            parts.add(after);
        }
        return parts;
    }

    /** The usage line: the name and its arguments. */
    public String usage() {
        String a = arguments();
        return a.isEmpty() ? command : command + " " + a;
    }

    /** The option named {@code name} (with its dashes), or null. */
    public Option option(String name) {
        for (Option o : options) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        return null;
    }

    /** Whether {@code --help} would say more than the usage line and the summary. */
    public boolean hasDetails() {
        return !details().isEmpty();
    }

    /**
     * {@code --help}: the usage line (wrapped between its parts at {@link #WIDTH}), the summary, each
     * option with what it does, then the notes.
     */
    public String help() {
        StringBuilder b = new StringBuilder();
        StringBuilder line = new StringBuilder("usage: ").append(command);
        String indent = " ".repeat("usage: ".length() + command.length());
        for (String part : parts()) {
            if (line.length() + 1 + part.length() > WIDTH && line.length() > indent.length()) {
                b.append(line).append('\n');
                line = new StringBuilder(indent);
            }
            line.append(' ').append(part);
        }
        b.append(line).append('\n');
        wrap(b, "  ", summary);
        b.append(details());
        return b.substring(0, b.length() - 1);
    }

    /** The option lines and the notes, each line ending in a line break; empty when there are none. */
    String details() {
        StringBuilder b = new StringBuilder();
        for (Option o : options) {
            if (o.help().isEmpty()) {
                continue;
            }
            String label = "  " + o.label();
            String help = o.help() + (o.repeats() ? " (repeatable)" : "");
            if (label.length() > LABEL + 1) {
                b.append(label).append('\n');
                label = "";
            }
            wrap(b, String.format("%-" + (LABEL + 2) + "s", label), help);
        }
        if (!notes.isEmpty()) {
            b.append(notes).append('\n');
        }
        return b.toString();
    }

    /** {@code text} after {@code first} and wrapped at {@link #WIDTH}, continued under its first column. */
    private static void wrap(StringBuilder b, String first, String text) {
        String indent = " ".repeat(first.length());
        StringBuilder line = new StringBuilder(first);
        boolean empty = true;
        for (String word : text.split(" ")) {
            if (!empty && line.length() + 1 + word.length() > WIDTH) {
                b.append(line).append('\n');
                line = new StringBuilder(indent);
                empty = true;
            }
            line.append(empty ? "" : " ").append(word);
            empty = false;
        }
        b.append(line).append('\n');
    }

    /** The words split by this table. */
    public Args parse(String[] argv) throws UsageException {
        return Args.parse(argv, options);
    }

    /**
     * The other style of options: a word {@code key=value} whose key is one of the command's value
     * options is read as {@code --key=value}, rewritten in place in the command's own words, and a
     * hint on {@code err} names the grammar. Other words with '=' (a renderer's {@code top=10}, a
     * path) stay as they are. Words after a lone {@code --} are never touched.
     */
    public void acceptKeyValue(String[] args, PrintStream err) {
        if (args == null) {
            return;
        }
        for (int i = 0; i < args.length && !args[i].equals("--"); i++) {
            int eq = args[i].indexOf('=');
            if (eq > 0 && !args[i].startsWith("-")) {
                Option o = option("--" + args[i].substring(0, eq));
                if (o != null && !o.isFlag()) {
                    err.println(command + ": read '" + args[i] + "' as '" + o.name() + " " + args[i].substring(eq + 1)
                            + "' (options are written " + o.name() + " value)");
                    args[i] = o.name() + "=" + args[i].substring(eq + 1);
                }
            }
        }
    }
}
