package org.hyperprof.command.kit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A command line split into {@code --options} and positional words, by a command's table of
 * {@link Option}s. Options take their value as {@code --name value} or {@code --name=value}; only a
 * repeatable option may be given twice; flags take none. A lone {@code --} ends the options: the
 * words after it are positional and also kept apart ({@link #afterOptions()}), for a command that
 * runs another one. Words with a single dash stay positional, so a negative number reaches the
 * number check and gets its own message there.
 */
public final class Args {
    private final Map<String, List<String>> values;
    private final Set<String> flags;
    private final List<String> positional;
    private final List<String> afterOptions;

    private Args(Map<String, List<String>> values, Set<String> flags, List<String> positional,
            List<String> afterOptions) {
        this.values = values;
        this.flags = flags;
        this.positional = positional;
        this.afterOptions = afterOptions;
    }

    /**
     * @param argv    the words after the command name (null = none)
     * @param options the options the command takes
     * @throws UsageException for an unknown option, a missing value, a value given to a flag, or an
     *                        option given twice that is not repeatable
     */
    public static Args parse(String[] argv, Collection<Option> options) throws UsageException {
        Map<String, Option> byName = new LinkedHashMap<>();
        for (Option o : options) {
            byName.put(o.name(), o);
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        Set<String> flags = new TreeSet<>();
        List<String> positional = new ArrayList<>();
        List<String> afterOptions = new ArrayList<>();
        String[] words = argv == null ? new String[0] : argv;
        boolean optionsEnded = false;
        for (int i = 0; i < words.length; i++) {
            String w = words[i];
            if (optionsEnded) {
                positional.add(w);
                afterOptions.add(w);
                continue;
            }
            if (!w.startsWith("--")) {
                positional.add(w);
                continue;
            }
            if (w.equals("--")) {
                optionsEnded = true;
                continue;
            }
            int eq = w.indexOf('=');
            String name = eq < 0 ? w : w.substring(0, eq);
            String inline = eq < 0 ? null : w.substring(eq + 1);
            Option option = byName.get(name);
            if (option == null) {
                throw new UsageException("unknown option '" + name + "'" + (byName.isEmpty()
                        ? "; this command takes no options"
                        : "; options are " + String.join(", ", new TreeSet<>(byName.keySet()))));
            }
            if (option.isFlag()) {
                if (inline != null) {
                    throw new UsageException("option " + name + " takes no value, got '" + w + "'");
                }
                flags.add(name);
                continue;
            }
            String value = inline;
            if (value == null) {
                if (i + 1 >= words.length) {
                    throw new UsageException("option " + name + " needs a value (" + option.label() + ")");
                }
                value = words[++i];
            }
            List<String> given = values.computeIfAbsent(name, k -> new ArrayList<>());
            if (!given.isEmpty() && !option.repeats()) {
                throw new UsageException(name + " is given twice (" + given.get(0) + " and " + value
                        + "); give it once");
            }
            if (!option.choices().isEmpty() && !option.choices().contains(value.strip())) {
                List<String> c = option.choices();
                throw new UsageException(name + " takes " + (c.size() == 1 ? c.get(0)
                        : String.join(", ", c.subList(0, c.size() - 1)) + " or " + c.get(c.size() - 1)) + ", not '"
                        + value + "'");
            }
            given.add(option.choices().isEmpty() ? value : value.strip());
        }
        return new Args(values, flags, positional, afterOptions);
    }

    /** The option's last value, or null when it was not given. */
    public String value(String name) {
        List<String> v = values.get(name);
        return v == null ? null : v.get(v.size() - 1);
    }

    /** Every value of a repeatable option, in order. */
    public List<String> values(String name) {
        return Collections.unmodifiableList(values.getOrDefault(name, List.of()));
    }

    public boolean flag(String name) {
        return flags.contains(name);
    }

    public List<String> positional() {
        return Collections.unmodifiableList(positional);
    }

    /** The words after a lone {@code --} (also among {@link #positional()}); empty when there was none. */
    public List<String> afterOptions() {
        return Collections.unmodifiableList(afterOptions);
    }

    /** @throws UsageException when more than {@code max} positional words were given */
    public Args atMostPositional(int max, String what) throws UsageException {
        if (positional.size() > max) {
            throw new UsageException("too many arguments: "
                    + String.join(" ", positional.subList(max, positional.size())) + " (expected " + what + ")");
        }
        return this;
    }

    /**
     * @param message the usage error when too few were given: what to give, with an example
     * @throws UsageException when fewer than {@code min} positional words were given
     */
    public Args atLeastPositional(int min, String message) throws UsageException {
        if (positional.size() < min) {
            throw new UsageException(message);
        }
        return this;
    }

    /**
     * @param message the usage error when another number was given: what to give, with an example
     * @throws UsageException when other than {@code count} positional words were given
     */
    public Args exactlyPositional(int count, String message) throws UsageException {
        if (positional.size() != count) {
            throw new UsageException(message);
        }
        return this;
    }

    /** A whole number in decimal or {@code 0x} hex, within [min, max]. */
    public static long number(String text, String what, long min, long max) throws UsageException {
        return number(text, what, min, max, null);
    }

    /**
     * A whole number in decimal or {@code 0x} hex, within [min, max]; {@code why} (or null) says
     * what the range means, e.g. {@code one simulated hour}.
     */
    public static long number(String text, String what, long min, long max, String why) throws UsageException {
        String t = text.trim();
        String range = range(min, max) + (why == null ? "" : " (" + why + ")");
        long v;
        try {
            boolean hex = t.startsWith("0x") || t.startsWith("0X");
            v = hex ? Long.parseUnsignedLong(t.substring(2), 16) : Long.parseLong(t);
        } catch (NumberFormatException e) {
            if (WHOLE_NUMBER.matcher(t).matches()) {
                // Digits too many for 64 bits: a number still, out of range.
                throw new UsageException(what + " must be " + range + ", got " + t);
            }
            throw new UsageException("expected " + what + " as a number, got '" + text + "'");
        }
        if (v < min || v > max) {
            throw new UsageException(what + " must be " + range + ", got " + t);
        }
        return v;
    }

    private static final java.util.regex.Pattern WHOLE_NUMBER =
            java.util.regex.Pattern.compile("[-+]?[0-9]+|0[xX][0-9a-fA-F]+");

    /** A stored session's id, as every command that names one by its id reads it: a whole number from 1. */
    public static long sessionId(String text) throws UsageException {
        return number(text, "a session id", 1, Long.MAX_VALUE);
    }

    /** Session ids, each read by {@link #sessionId}. */
    public static List<Long> sessionIds(List<String> words) throws UsageException {
        List<Long> ids = new ArrayList<>(words.size());
        for (String word : words) {
            ids.add(sessionId(word));
        }
        return ids;
    }

    /** A domain id: {@code domid_t} is 16 bits. */
    public static int domid(String text, String what) throws UsageException {
        return (int) number(text, what, 0, 0xFFFF);
    }

    /** A list of domain ids as {@code 0,1,2} (commas or spaces between them). */
    public static List<Integer> domainList(String text, String what) throws UsageException {
        List<Integer> ids = new ArrayList<>();
        for (String part : text.strip().split("\\s*,\\s*|\\s+", -1)) {
            if (part.isEmpty()) {
                throw new UsageException(what + " '" + text + "' has an empty entry; expected domain ids like 0,1");
            }
            ids.add(domid(part, "a domain id in " + what));
        }
        return ids;
    }

    /**
     * A comma-separated list of names, e.g. kernel images {@code vmlinux-a,vmlinux-b}; blanks
     * around the commas are dropped.
     *
     * @param example what a correct list looks like, for the message
     */
    public static List<String> nameList(String text, String what, String example) throws UsageException {
        List<String> names = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String name = part.strip();
            if (name.isEmpty()) {
                throw new UsageException(what + " '" + text + "' has an empty entry; expected names separated by"
                        + " commas, e.g. " + example);
            }
            names.add(name);
        }
        return names;
    }

    private static String range(long min, long max) {
        if (max == Long.MAX_VALUE) {
            return min == 0 ? "0 or more" : "at least " + min;
        }
        return "from " + min + " to " + max;
    }
}
