package org.hyperprof.report.kit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.hyperprof.api.report.ReportException;

/**
 * The options of one report request, as a report asks for them: each flag it knows
 * ({@link #flag}), each {@code key=value} option it knows ({@link #withValue}), and at the end one
 * error naming every option it did not ask for, with the report's own option list
 * ({@link #check}). Options compare trimmed and in any case.
 */
public final class RequestOptions {
    private final String report;
    private final List<String> descriptions;
    private final List<String> given;
    /** Which of {@link #given} the report asked for. */
    private final boolean[] known;

    /**
     * @param report       how the error names the report, e.g. {@code opreport}
     * @param descriptions its options with a short description each, as its renderer lists them
     * @param options      the request's options
     */
    public RequestOptions(String report, List<String> descriptions, Collection<String> options) {
        this.report = report;
        this.descriptions = descriptions;
        this.given = new ArrayList<>(options);
        this.known = new boolean[given.size()];
    }

    /** {@code option} trimmed and in lower case, {@code ""} for null: what a report compares. */
    public static String name(String option) {
        return option == null ? "" : option.trim().toLowerCase(Locale.ROOT);
    }

    /** What follows {@code key=} in {@code option}, trimmed: {@code 3} of {@code counter=3}. */
    public static String value(String option, String key) {
        return option.trim().substring(key.length() + 1).trim();
    }

    /**
     * N of {@code option} ({@code key=N}) as a whole number from {@code min} to {@link Integer#MAX_VALUE}.
     *
     * @param notANumber the message's end for text that is no whole number, e.g. {@code N must be a
     *                   whole number of symbol rows, e.g. top=30}
     * @param outOfRange the message's end for a number outside the range (also one of more digits
     *                   than 64 bits hold)
     * @throws ReportException {@code option '<option>': } and the message's end
     */
    public static int wholeNumber(String option, String key, int min, String notANumber, String outOfRange)
            throws ReportException {
        String value = value(option, key);
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            if (!value.matches("[-+]?[0-9]+")) {
                throw new ReportException("option '" + option + "': " + notANumber);
            }
            n = Long.MAX_VALUE; // digits beyond 64 bits: a number, out of range below
        }
        if (n < min || n > Integer.MAX_VALUE) {
            throw new ReportException("option '" + option + "': " + outOfRange);
        }
        return (int) n;
    }

    /**
     * P of {@code option} ({@code key=P}) as a percentage from 0 to 100, decimals allowed.
     *
     * @param example the option as it might be given, for the message, e.g. {@code threshold=0.5}
     * @throws ReportException {@code option '<option>': } what a percentage is, with the example
     */
    public static double percent(String option, String key, String example) throws ReportException {
        String value = value(option, key);
        if (value.endsWith("%")) {
            value = value.substring(0, value.length() - 1).trim();
        }
        if (value.matches("[0-9]{1,3}(\\.[0-9]*)?|\\.[0-9]+")) {
            double p = Double.parseDouble(value);
            if (p <= 100) {
                return p;
            }
        }
        throw new ReportException("option '" + option + "': " + key + "= takes a percentage from 0 to 100,"
                + " e.g. " + example);
    }

    /** Whether the request gives the flag {@code name} (in lower case, e.g. {@code vcpus}). */
    public boolean flag(String name) {
        boolean given = false;
        for (int i = 0; i < this.given.size(); i++) {
            if (name(this.given.get(i)).equals(name)) {
                known[i] = true;
                given = true;
            }
        }
        return given;
    }

    /**
     * The request's options {@code key=...} (key in lower case, e.g. {@code top}), trimmed but
     * otherwise as given, so that a report's error about a value quotes the option.
     */
    public List<String> withValue(String key) {
        String prefix = key + "=";
        List<String> options = new ArrayList<>(1);
        for (int i = 0; i < given.size(); i++) {
            if (name(given.get(i)).startsWith(prefix)) {
                known[i] = true;
                options.add(given.get(i).trim());
            }
        }
        return options;
    }

    /**
     * @throws ReportException when the request gives an option the report did not ask for, naming
     *                         each and listing the report's options
     */
    public void check() throws ReportException {
        Set<String> unknown = new TreeSet<>();
        for (int i = 0; i < given.size(); i++) {
            if (!known[i]) {
                String option = given.get(i);
                unknown.add(option == null ? "null" : "'" + option + "'");
            }
        }
        if (!unknown.isEmpty()) {
            throw new ReportException("unknown " + report + " option" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + "; the options are: " + String.join("; ", descriptions));
        }
    }
}
