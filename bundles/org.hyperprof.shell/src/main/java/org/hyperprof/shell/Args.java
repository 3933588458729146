package org.hyperprof.shell;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A command line split into {@code --options} and positional words. Options take their value as
 * {@code --name value} or {@code --name=value} and may repeat; flags take none. A lone {@code --}
 * ends the options. Words with a single dash stay positional, so a negative number reaches the
 * number check and gets its own message there.
 */
public final class Args {
    private final Map<String, List<String>> values;
    private final Set<String> flags;
    private final List<String> positional;

    private Args(Map<String, List<String>> values, Set<String> flags, List<String> positional) {
        this.values = values;
        this.flags = flags;
        this.positional = positional;
    }

    /**
     * @param argv         the words after the command name (null = none)
     * @param valueOptions options that take a value, e.g. {@code --ms}
     * @param flagOptions  options that take none, e.g. {@code --no-report}
     * @throws UsageException for an unknown option, a missing value, or a value given to a flag
     */
    public static Args parse(String[] argv, Set<String> valueOptions, Set<String> flagOptions) throws UsageException {
        Map<String, List<String>> values = new LinkedHashMap<>();
        Set<String> flags = new TreeSet<>();
        List<String> positional = new ArrayList<>();
        String[] words = argv == null ? new String[0] : argv;
        boolean optionsEnded = false;
        for (int i = 0; i < words.length; i++) {
            String w = words[i];
            if (optionsEnded || !w.startsWith("--")) {
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
            if (valueOptions.contains(name)) {
                String value = inline;
                if (value == null) {
                    if (i + 1 >= words.length) {
                        throw new UsageException("option " + name + " needs a value");
                    }
                    value = words[++i];
                }
                values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            } else if (flagOptions.contains(name)) {
                if (inline != null) {
                    throw new UsageException("option " + name + " takes no value, got '" + w + "'");
                }
                flags.add(name);
            } else {
                Set<String> known = new TreeSet<>(valueOptions);
                known.addAll(flagOptions);
                throw new UsageException("unknown option '" + name + "'"
                        + (known.isEmpty() ? "; this command takes no options"
                                : "; options are " + String.join(", ", known)));
            }
        }
        return new Args(values, flags, positional);
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

    /** @throws UsageException when more than {@code max} positional words were given */
    public Args atMostPositional(int max, String what) throws UsageException {
        if (positional.size() > max) {
            throw new UsageException("too many arguments: "
                    + String.join(" ", positional.subList(max, positional.size())) + " (expected " + what + ")");
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
