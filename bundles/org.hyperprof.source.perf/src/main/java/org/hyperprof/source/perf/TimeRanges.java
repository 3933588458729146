package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The time windows of perf report's {@code --time}: which samples an import keeps by their time
 * (nanoseconds of perf's clock). The forms, as perf reads them:
 * <ul>
 * <li>{@code start,stop} in seconds with up to nine decimals ({@code 1234.5,1235}); either may be left
 * out ({@code ,1235}, {@code 1234.5,}); several windows separated by spaces, in order and not
 * overlapping ({@code "1234,1235 1236,1237"}).</li>
 * <li>{@code N%/M}: the M-th slice of N % of the recording's time, between its first and last
 * sample ({@code 10%/2}: from 10 % to 20 %); several separated by commas.</li>
 * <li>{@code A%-B%}: from A % to B %; several separated by commas ({@code 0%-10%,30%-40%}).</li>
 * <li>{@code N%}: the first N %.</li>
 * </ul>
 * A window's bounds are kept (a sample at either is in it); a percent window ends one nanosecond
 * before its end unless it ends at the last sample, so slices side by side share no sample. A sample
 * without a time (0) is always kept. The percent forms need the recording's first and last sample
 * time (its SAMPLE_TIME header feature).
 */
final class TimeRanges {
    private static final long NANOS = 1_000_000_000L;

    private final String text;
    private final long[] start;
    /** A window's end, or 0 for none. */
    private final long[] end;

    private TimeRanges(String text, long[] start, long[] end) {
        this.text = text;
        this.start = start;
        this.end = end;
    }

    /** Whether {@code text} uses the percent forms (which need the recording's first and last sample time). */
    static boolean relative(String text) {
        return text.indexOf('%') >= 0;
    }

    /**
     * The windows {@code text} gives, percents taken of the recording's time from {@code first} to
     * {@code last} (both 0 when the recording does not say).
     *
     * @throws IllegalArgumentException naming what is wrong in {@code text} and the forms it may take
     */
    static TimeRanges parse(String text, long first, long last) {
        List<long[]> windows = new ArrayList<>();
        if (relative(text)) {
            if (first == 0 && last == 0) {
                throw new IllegalArgumentException("--time " + text + " is in percents of the recording's time, and"
                        + " the recording does not say when its first and last samples were (its header lacks the"
                        + " SAMPLE_TIME feature a newer perf record writes): give the window in seconds,"
                        + " as perf script prints sample times (--time start,stop)");
            }
            String form = text.indexOf('/') >= 0 ? "/" : text.indexOf('-') >= 0 ? "-" : "";
            for (String piece : form.isEmpty() ? new String[] {text} : text.split(",", -1)) {
                double from;
                double to;
                if (form.equals("/")) {
                    int slash = piece.indexOf('/');
                    double share = slash < 0 ? Double.NaN : percent(piece.substring(0, slash), text);
                    int slice = slash < 0 ? 0 : wholeNumber(piece.substring(slash + 1), text);
                    if (!(share > 0)) {
                        throw invalid(text, "'" + piece + "' is not N%/M with N above 0");
                    }
                    from = share * (slice - 1);
                    to = share * slice;
                } else if (form.equals("-")) {
                    int dash = piece.indexOf('-');
                    if (dash < 0) {
                        throw invalid(text, "'" + piece + "' is not A%-B%");
                    }
                    from = percent(piece.substring(0, dash), text);
                    to = percent(piece.substring(dash + 1), text);
                } else {
                    if (!piece.endsWith("%")) {
                        throw invalid(text, "'" + piece + "' does not end in %");
                    }
                    from = 0;
                    to = percent(piece, text);
                }
                if (!(from >= 0 && from <= 1 && to >= 0 && to <= 1)) {
                    throw invalid(text, "'" + piece + "' reaches outside 0% to 100%");
                }
                long total = last - first;
                long s = first + Math.round(from * total);
                long e = first + Math.round(to * total);
                if (e > s && e != last) {
                    e--;
                }
                windows.add(new long[] {s, e});
            }
        } else {
            String[] pieces = text.strip().split("\\s+");
            for (String piece : pieces) {
                int comma = piece.indexOf(',');
                if (comma < 0 || piece.indexOf(',', comma + 1) >= 0) {
                    throw invalid(text, "'" + piece + "' is not start,stop");
                }
                long s = seconds(piece.substring(0, comma), text);
                long e = seconds(piece.substring(comma + 1), text);
                if (e != 0 && e < s) {
                    throw invalid(text, "'" + piece + "' ends before it starts");
                }
                windows.add(new long[] {s, e});
            }
            for (int i = 0; i + 1 < windows.size(); i++) {
                if (windows.get(i)[1] >= windows.get(i + 1)[0]) {
                    throw invalid(text, "its windows overlap or are out of order");
                }
            }
        }
        long[] s = new long[windows.size()];
        long[] e = new long[windows.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = windows.get(i)[0];
            e[i] = windows.get(i)[1];
        }
        return new TimeRanges(text, s, e);
    }

    /**
     * Whether a sample at {@code time} is left out. One window: left out before a start or after an
     * end it has; several: kept in any window from its start to its end (or open end).
     */
    boolean skips(long time) {
        if (time == 0) {
            return false;
        }
        if (start.length == 1) {
            return start[0] != 0 && Long.compareUnsigned(time, start[0]) < 0
                    || end[0] != 0 && Long.compareUnsigned(time, end[0]) > 0;
        }
        for (int i = 0; i < start.length; i++) {
            if (Long.compareUnsigned(time, start[i]) >= 0 && (end[i] == 0 || Long.compareUnsigned(time, end[i]) <= 0)) {
                return false;
            }
        }
        return true;
    }

    /** The windows in seconds, as perf script prints times: {@code 1234.567890-1235.000000}, open ends empty. */
    String describe() {
        List<String> w = new ArrayList<>();
        for (int i = 0; i < start.length; i++) {
            w.add((start[i] == 0 ? "" : secondsText(start[i])) + "-" + (end[i] == 0 ? "" : secondsText(end[i])));
        }
        return "--time " + text + " (" + String.join(", ", w) + " s)";
    }

    private static String secondsText(long nanos) {
        return String.format(Locale.ROOT, "%d.%06d", Long.divideUnsigned(nanos, NANOS),
                Long.remainderUnsigned(nanos, NANOS) / 1000);
    }

    /** Seconds with up to nine decimals as nanoseconds; empty is 0 (no bound). */
    private static long seconds(String s, String text) {
        if (s.isEmpty()) {
            return 0;
        }
        int dot = s.indexOf('.');
        String whole = dot < 0 ? s : s.substring(0, dot);
        String fraction = dot < 0 ? "" : s.substring(dot + 1);
        if (whole.isEmpty() || !whole.chars().allMatch(Character::isDigit) || fraction.length() > 9
                || !fraction.chars().allMatch(Character::isDigit) || whole.length() > 10) {
            throw invalid(text, "'" + s + "' is not seconds with at most nine decimals");
        }
        long nanos = Long.parseLong(whole) * NANOS;
        if (!fraction.isEmpty()) {
            nanos += Long.parseLong((fraction + "000000000").substring(0, 9));
        }
        return nanos;
    }

    private static double percent(String s, String text) {
        if (!s.endsWith("%")) {
            throw invalid(text, "'" + s + "' is not a percent");
        }
        try {
            return Double.parseDouble(s.substring(0, s.length() - 1)) / 100.0;
        } catch (NumberFormatException e) {
            throw invalid(text, "'" + s + "' is not a percent");
        }
    }

    private static int wholeNumber(String s, String text) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw invalid(text, "'" + s + "' is not a slice number");
        }
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException("--time " + text + ": " + why + "; the forms are start,stop in seconds"
                + " (1234.5,1235; several separated by spaces), N%/M (the M-th N% slice), A%-B% and N%, several"
                + " separated by commas, as perf report --time takes them");
    }
}
