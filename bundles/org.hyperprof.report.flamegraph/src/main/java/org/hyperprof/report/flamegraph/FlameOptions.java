package org.hyperprof.report.flamegraph;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.report.kit.RequestOptions;
import org.hyperprof.report.kit.RowFilter;

/**
 * The options a flame-graph {@code ReportRequest} may carry.
 *
 * @param counter the counter whose samples are drawn (samples of different events never add up)
 * @param vcpus   put a {@code vcpuN} frame between each domain and its code
 * @param filter  which samples are drawn, by their sampled frame and vCPU (their callers are drawn
 *                whatever their names)
 */
record FlameOptions(int counter, boolean vcpus, RowFilter filter) {

    /** The options with a short description each, as {@code ReportRenderer.options()} lists them. */
    static final List<String> DESCRIPTIONS = List.of(
            "counter=N: the samples of counter N (default 0, the first configured counter)",
            "vcpus: a vcpuN frame between each domain and its code");

    /** Its own options, then the filters every report shares. */
    static final List<String> ALL_DESCRIPTIONS = RowFilter.withFilterDescriptions(DESCRIPTIONS);

    static final FlameOptions DEFAULT = new FlameOptions(0, false, RowFilter.ALL);

    /** Parses {@code options}; the counter is checked against the session when the report is made. */
    static FlameOptions parse(Set<String> options) throws ReportException {
        RequestOptions request = new RequestOptions("flamegraph", ALL_DESCRIPTIONS, options);
        boolean vcpus = request.flag("vcpus");
        RowFilter filter = RowFilter.read(request);
        int counter = 0;
        for (String option : request.withValue("counter")) {
            counter = RequestOptions.wholeNumber(option, "counter", 0, "N must be a counter number, e.g. counter=0",
                    "N must be a counter number from 0, e.g. counter=0");
        }
        request.check();
        return new FlameOptions(counter, vcpus, filter);
    }
}
