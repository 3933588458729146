package org.hyperprof.study;

import java.util.Locale;

/** How the study writes numbers: fixed decimals in the root locale, {@code n/a} for an unknown figure. */
final class Numbers {
    static final String NA = "n/a";

    private Numbers() {
    }

    static String fixed(Double value, int places) {
        return value == null ? NA : String.format(Locale.ROOT, "%." + places + "f", value);
    }

    static String integer(Long value) {
        return value == null ? NA : Long.toString(value);
    }
}
