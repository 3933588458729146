package org.hyperprof.store.duckdb;

import java.util.Locale;

/**
 * A column written as a TabSeparated cell by DuckDB's SQL (the format {@link TabSeparatedRows} writes in
 * Java): numbers as they are, {@code \N} for NULL, booleans 0 or 1, text with backslash, tab, newline,
 * carriage return and NUL escaped. Lists and times are left to {@link TabSeparatedRows}.
 */
final class TabSeparatedText {
    private TabSeparatedText() {
    }

    /** The SQL expression of {@code column}'s cell, by its DuckDB type. */
    static String cell(String column, String type) {
        String t = type.toUpperCase(Locale.ROOT);
        return switch (t) {
            case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                    "UBIGINT" -> "coalesce(CAST(" + column + " AS VARCHAR), '\\N')";
            case "BOOLEAN" -> "CASE WHEN " + column + " IS NULL THEN '\\N' WHEN " + column + " THEN '1' ELSE '0' END";
            case "VARCHAR" -> "coalesce(replace(replace(replace(replace(replace(" + column
                    + ", '\\', '\\\\'), chr(9), '\\t'), chr(10), '\\n'), chr(13), '\\r'), chr(0), '\\0'), '\\N')";
            default -> throw new IllegalArgumentException("no TabSeparated cell for a column of type " + type
                    + " here (" + column + ")");
        };
    }
}
