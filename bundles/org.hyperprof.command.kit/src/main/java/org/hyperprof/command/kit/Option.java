package org.hyperprof.command.kit;

import java.util.List;

/**
 * One option of a command: {@code --name} alone (a flag) or {@code --name value}, written either as
 * {@code --name value} or {@code --name=value}.
 *
 * @param name       with its dashes, e.g. {@code --ms}
 * @param value      what the value looks like on the usage line, e.g. {@code N} or {@code 0,1}; null for a flag
 * @param repeats    whether it may be given more than once (then every value counts)
 * @param help       what it does, for {@code --help}; wrapped there
 * @param completion what completes its value at the prompt
 * @param choices    the words its value may be, for {@link Completion#CHOICE}; empty otherwise
 */
public record Option(String name, String value, boolean repeats, String help, Completion completion,
        List<String> choices) {
    public Option {
        if (!name.startsWith("--") || name.length() < 3 || name.contains("=") || name.contains(" ")) {
            throw new IllegalArgumentException("an option is written --name, not '" + name + "'");
        }
        choices = List.copyOf(choices);
    }

    /** An option that takes no value. */
    public static Option flag(String name, String help) {
        return new Option(name, null, false, help, Completion.NONE, List.of());
    }

    /** An option that takes one value, given at most once. */
    public static Option value(String name, String value, String help) {
        return new Option(name, value, false, help, Completion.NONE, List.of());
    }

    /** An option whose value is one of {@code choices}; the usage line lists them. */
    public static Option choice(String name, List<String> choices, String help) {
        return new Option(name, String.join("|", choices), false, help, Completion.CHOICE, choices);
    }

    /** The same option, allowed more than once. */
    public Option repeatable() {
        return new Option(name, value, true, help, completion, choices);
    }

    /** The same option, its value completed from {@code c}. */
    public Option completedBy(Completion c) {
        return new Option(name, value, repeats, help, c, choices);
    }

    public boolean isFlag() {
        return value == null;
    }

    /** As the usage line shows it, e.g. {@code [--event SPEC]...}. */
    public String usage() {
        return "[" + label() + "]" + (repeats ? "..." : "");
    }

    /** As the help's first column shows it, e.g. {@code --event SPEC}. */
    public String label() {
        return value == null ? name : name + " " + value;
    }
}
