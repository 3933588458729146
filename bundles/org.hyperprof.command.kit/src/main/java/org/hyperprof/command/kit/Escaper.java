package org.hyperprof.command.kit;

import java.util.Arrays;
import java.util.HashMap;
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
    /** What a surrogate not in a pair becomes; null: written as it is. */
    private final String loneSurrogate;

    private Escaper(Map<Character, String> table, String loneSurrogate) {
        this.loneSurrogate = loneSurrogate;
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
        return new Escaper(table, null);
    }

    /** As {@link #of(Map)}, and a surrogate not in a pair written as {@code loneSurrogate}. */
    public static Escaper of(Map<Character, String> table, String loneSurrogate) {
        return new Escaper(table, loneSurrogate);
    }

    /**
     * XML's five entities for content and attribute values, and U+FFFD for the characters XML 1.0
     * cannot carry (control characters but tab, newline and carriage return; U+FFFE, U+FFFF).
     */
    public static Map<Character, String> xmlTable() {
        Map<Character, String> t = new HashMap<>(Map.of('&', "&amp;", '<', "&lt;", '>', "&gt;", '"', "&quot;",
                '\'', "&apos;", '\uFFFE', "\uFFFD", '\uFFFF', "\uFFFD"));
        for (char c = 0; c < 0x20; c++) {
            if (c != '\t' && c != '\n' && c != '\r') {
                t.put(c, "\uFFFD");
            }
        }
        return t;
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
            if (loneSurrogate != null && Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    out.append(c).append(s.charAt(++i));
                } else {
                    out.append(loneSurrogate);
                }
                continue;
            }
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
