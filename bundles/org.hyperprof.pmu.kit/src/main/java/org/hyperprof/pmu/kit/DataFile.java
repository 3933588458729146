package org.hyperprof.pmu.kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The line syntax of OProfile's data files and of the models' own files written in its manner
 * ({@code events}, the 970's {@code event_mappings}, the P4 wiring, the {@code filter:} fields):
 * one record a line, blank lines and {@code #} comments skipped, {@code key:value} fields, numbers
 * in decimal or {@code 0x} hex. Every error is an {@link EventTableException} naming file and line.
 */
public final class DataFile {
    private DataFile() {
    }

    /** What a reader does with one record line. */
    @FunctionalInterface
    public interface Record {
        /**
         * Takes one line that is neither blank nor a comment.
         *
         * @param no   its line number, from 1
         * @param text the line without leading and trailing white space
         */
        void line(int no, String text) throws IOException;
    }

    /**
     * Hands every record line of {@code in} to {@code record}, in order.
     *
     * @return the number of lines read, comments and blank lines included (the last line number)
     */
    public static int records(Reader in, Record record) throws IOException {
        BufferedReader r = new BufferedReader(in);
        String line;
        int no = 0;
        while ((line = r.readLine()) != null) {
            no++;
            String t = line.strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                record.line(no, t);
            }
        }
        return no;
    }

    /**
     * The {@code key:value} fields of a record, in order, after checking that each of
     * {@code required} is there.
     */
    public static Map<String, String> fields(String file, int no, String text, String... required)
            throws EventTableException {
        return fields(file, no, text, false, required);
    }

    /** As {@link #fields}, with every key in lower case whatever case the file writes it in. */
    public static Map<String, String> caselessFields(String file, int no, String text, String... required)
            throws EventTableException {
        return fields(file, no, text, true, required);
    }

    private static Map<String, String> fields(String file, int no, String text, boolean caseless, String... required)
            throws EventTableException {
        Map<String, String> f = new LinkedHashMap<>();
        for (String token : text.split("\\s+")) {
            int c = token.indexOf(':');
            if (c <= 0) {
                throw new EventTableException(file, no, "expected key:value, got '" + token + "'");
            }
            String key = token.substring(0, c);
            f.put(caseless ? key.toLowerCase(Locale.ROOT) : key, token.substring(c + 1));
        }
        for (String key : required) {
            if (!f.containsKey(key)) {
                throw new EventTableException(file, no, "missing '" + key + ":' field in: " + text);
            }
        }
        return f;
    }

    /**
     * A number in decimal or {@code 0x} hex; hex takes all 64 bits, as register words are written
     * (so {@code 0x8003C01D0676FD6C} is a negative long with those bits).
     */
    public static long number(String file, int no, String s) throws EventTableException {
        String t = s.strip();
        try {
            return t.startsWith("0x") || t.startsWith("0X") ? Long.parseUnsignedLong(t.substring(2), 16)
                    : Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new EventTableException(file, no, "'" + s + "' is not a number");
        }
    }

    /** A number as {@link #number}, refused outside {@code min..max}. */
    public static long number(String file, int no, String s, long min, long max) throws EventTableException {
        long v = number(file, no, s);
        if (v < min || v > max) {
            throw new EventTableException(file, no, s + " is out of range " + min + ".." + max);
        }
        return v;
    }
}
