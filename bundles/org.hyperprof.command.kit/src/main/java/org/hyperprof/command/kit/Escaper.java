package org.hyperprof.command.kit;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Text escaped by a table: each character with an entry is written as its replacement, every other
 * character as it is. JSON, XML/SVG and SQL escaping differ only in their tables, so the loop is here
 * once and each format keeps its own table where it writes.
 */
public final class Escaper {
    private final String[] ascii = new String[128];
    private final char[] keys;
    private final String[] values;

    private Escaper(Map<Character, String> table) {
        TreeMap<Character, String> rest = new TreeMap<>();
        table.forEach((c, r) -> {
            if (c < ascii.length) {
                ascii[c] = r;
            } else {
                rest.put(c, r);
            }
        });
        keys = new char[rest.size()];
        values = new String[rest.size()];
        int i = 0;
        for (Map.Entry<Character, String> e : rest.entrySet()) {
            keys[i] = e.getKey();
            values[i++] = e.getValue();
        }
    }

    /** An escaper replacing each character of {@code table}'s keys by its value. */
    public static Escaper of(Map<Character, String> table) {
        return new Escaper(table);
    }

    /** {@code c} as JSON's {@code \}{@code uXXXX} escape (lower-case hex). */
    public static String unicodeEscape(char c) {
        return String.format("\\u%04x", (int) c);
    }

    /** {@code s} escaped. */
    public String escape(String s) {
        return appendTo(new StringBuilder(s.length() + 16), s).toString();
    }

    /** Appends {@code s} escaped to {@code out}. */
    public StringBuilder appendTo(StringBuilder out, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String r = replacement(c);
            if (r == null) {
                out.append(c);
            } else {
                out.append(r);
            }
        }
        return out;
    }

    private String replacement(char c) {
        if (c < ascii.length) {
            return ascii[c];
        }
        int at = Arrays.binarySearch(keys, c);
        return at >= 0 ? values[at] : null;
    }
}
