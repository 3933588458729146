package org.hyperprof.report.kit;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.hyperprof.api.report.ReportException;

/**
 * Reads the options of a report request one by one: each in the form a report compares
 * ({@link #name}), the value after its {@code =}, the ones the report knows no option for
 * collected, and one error naming them all with the report's own option list.
 */
public final class RequestOptions {
    private final String report;
    private final List<String> descriptions;
    private final Set<String> unknown = new TreeSet<>();

    /**
     * @param report       how the error names the report, e.g. {@code opreport}
     * @param descriptions its options with a short description each, as its renderer lists them
     */
    public RequestOptions(String report, List<String> descriptions) {
        this.report = report;
        this.descriptions = descriptions;
    }

    /** {@code option} trimmed and in lower case, {@code ""} for null: what a report compares. */
    public static String name(String option) {
        return option == null ? "" : option.trim().toLowerCase(Locale.ROOT);
    }

    /** What follows {@code key=} in {@code option}, trimmed: {@code 3} of {@code counter=3}. */
    public static String value(String option, String key) {
        return option.trim().substring(key.length() + 1).trim();
    }

    /** Notes an option the report knows nothing about. */
    public void unknown(String option) {
        unknown.add(option == null ? "null" : "'" + option + "'");
    }

    /**
     * @throws ReportException when an option was {@link #unknown}, naming each and listing the
     *                         report's options
     */
    public void check() throws ReportException {
        if (!unknown.isEmpty()) {
            throw new ReportException("unknown " + report + " option" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + "; the options are: " + String.join("; ", descriptions));
        }
    }
}
