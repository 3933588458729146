package org.hyperprof.report.opreport;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.hyperprof.api.report.ReportException;

/**
 * The opreport options a {@code ReportRequest} may carry.
 *
 * @param images   print the image summary
 * @param symbols  print the symbol summary (opreport -l)
 * @param truth    whether the true share and the error are wanted: {@link Truth#AUTO} shows them
 *                 when the session has ground truth
 * @param top      at most this many symbol rows per section
 */
record ReportOptions(boolean images, boolean symbols, Truth truth, int top) {

    /** Symbol rows per section when no {@code top=N} is given. */
    static final int DEFAULT_TOP = 30;

    enum Truth {
        /** Shown when the session has ground truth (the default). */
        AUTO,
        /** Asked for explicitly with {@code truth}. */
        ON,
        /** Turned off with {@code notruth}. */
        OFF
    }

    /** The options with a short description each, as {@code ReportRenderer.options()} lists them. */
    static final List<String> DESCRIPTIONS = List.of(
            "images: the image summary only (samples and % per image)",
            "symbols: the symbol summary only (samples and % per symbol, as opreport -l)",
            "truth: the true share and the error next to each row (the default when the session has ground truth)",
            "notruth: leave out the true share and error columns",
            "top=N: at most N symbol rows per section (default " + DEFAULT_TOP + ")");

    static final ReportOptions DEFAULT = new ReportOptions(true, true, Truth.AUTO, DEFAULT_TOP);

    static ReportOptions parse(Set<String> options) throws ReportException {
        boolean images = false;
        boolean symbols = false;
        boolean truth = false;
        boolean noTruth = false;
        int top = DEFAULT_TOP;
        Set<String> unknown = new TreeSet<>();
        for (String raw : options) {
            String option = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
            if (option.equals("images")) {
                images = true;
            } else if (option.equals("symbols")) {
                symbols = true;
            } else if (option.equals("truth")) {
                truth = true;
            } else if (option.equals("notruth")) {
                noTruth = true;
            } else if (option.startsWith("top=")) {
                top = parseTop(raw.trim());
            } else {
                unknown.add(raw == null ? "null" : "'" + raw + "'");
            }
        }
        if (!unknown.isEmpty()) {
            throw new ReportException("unknown opreport option" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + "; the options are: " + String.join("; ", DESCRIPTIONS));
        }
        if (truth && noTruth) {
            throw new ReportException("options 'truth' and 'notruth' contradict each other; give one of them"
                    + " (without either, the true share is shown when the session has ground truth)");
        }
        boolean both = images == symbols;
        return new ReportOptions(both || images, both || symbols,
                truth ? Truth.ON : noTruth ? Truth.OFF : Truth.AUTO, top);
    }

    private static int parseTop(String option) throws ReportException {
        String value = option.substring("top=".length()).trim();
        int top;
        try {
            top = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new ReportException("option '" + option + "': N must be a whole number of symbol rows, e.g. top=30");
        }
        if (top < 1) {
            throw new ReportException("option '" + option + "': N must be at least 1 symbol row per section");
        }
        return top;
    }
}
