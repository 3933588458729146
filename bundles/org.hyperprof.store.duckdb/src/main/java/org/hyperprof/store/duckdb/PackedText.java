package org.hyperprof.store.duckdb;

import java.util.ArrayList;
import java.util.List;

/**
 * A session row's text and list columns, packed by the query into one VARCHAR and read back here.
 *
 * <p>Why: DuckDB's JDBC driver makes a Java object for every VARCHAR and every list value of a
 * fetched chunk, one JNI call each, whether it is read or not; for the 13 text and list columns of
 * 10,000 sessions that was most of {@code hp:sessions}' time. Packed, a row costs one. Each value is
 * {@code -} (NULL) or its length in characters (code points, as DuckDB's {@code length} counts), a
 * colon and the value; a list is {@code -} or its size, a colon and its elements so written.
 */
final class PackedText {
    private final String packed;
    private int at;

    PackedText(String packed) {
        this.packed = packed;
    }

    /** The SQL expression that packs {@code columns}, each a text column or, named in {@code lists}, a list. */
    static String select(List<String> columns, List<String> lists) {
        List<String> parts = new ArrayList<>();
        for (String c : columns) {
            parts.add(lists.contains(c)
                    ? "coalesce(len(" + c + ") || ':' || array_to_string(list_transform(" + c + ", lambda e: "
                            + value("CAST(e AS VARCHAR)") + "), ''), '-')"
                    : value(c));
        }
        return "concat(" + String.join(", ", parts) + ")";
    }

    private static String value(String text) {
        return "coalesce(length(" + text + ") || ':' || " + text + ", '-')";
    }

    /** The next text value, null for NULL. */
    String text() {
        if (packed.charAt(at) == '-') {
            at++;
            return null;
        }
        int colon = packed.indexOf(':', at);
        int length = Integer.parseInt(packed, at, colon, 10);
        int end = packed.offsetByCodePoints(colon + 1, length);
        String value = packed.substring(colon + 1, end);
        at = end;
        return value;
    }

    /** The next list, empty for NULL. */
    List<String> list() {
        if (packed.charAt(at) == '-') {
            at++;
            return List.of();
        }
        int colon = packed.indexOf(':', at);
        int size = Integer.parseInt(packed, at, colon, 10);
        at = colon + 1;
        List<String> values = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            // As the driver's arrays gave them: a NULL element reads "null".
            values.add(String.valueOf(text()));
        }
        return List.copyOf(values);
    }
}
