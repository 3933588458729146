package org.hyperprof.report.flamegraph;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.report.kit.RequestOptions;

/**
 * The options a flame-graph {@code ReportRequest} may carry.
 *
 * @param counter the counter whose samples are drawn (samples of different events never add up)
 * @param vcpus   put a {@code vcpuN} frame between each domain and its code
 */
record FlameOptions(int counter, boolean vcpus) {

    /** The options with a short description each, as {@code ReportRenderer.options()} lists them. */
    static final List<String> DESCRIPTIONS = List.of(
            "counter=N: the samples of counter N (default 0, the first configured counter)",
            "vcpus: a vcpuN frame between each domain and its code");

    static final FlameOptions DEFAULT = new FlameOptions(0, false);

    /** Parses {@code options}; the counter is checked against the session when the report is made. */
    static FlameOptions parse(Set<String> options) throws ReportException {
        int counter = 0;
        boolean vcpus = false;
        RequestOptions read = new RequestOptions("flamegraph", DESCRIPTIONS);
        for (String raw : options) {
            String option = RequestOptions.name(raw);
            if (option.equals("vcpus")) {
                vcpus = true;
            } else if (option.startsWith("counter=")) {
                counter = parseCounter(raw.trim());
            } else {
                read.unknown(raw);
            }
        }
        read.check();
        return new FlameOptions(counter, vcpus);
    }

    private static int parseCounter(String option) throws ReportException {
        String value = RequestOptions.value(option, "counter");
        int counter;
        try {
            counter = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new ReportException("option '" + option + "': N must be a counter number, e.g. counter=0");
        }
        if (counter < 0) {
            throw new ReportException("option '" + option + "': counter numbers start at 0");
        }
        return counter;
    }
}
