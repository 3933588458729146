package org.hyperprof.store.clickhouse;

import java.util.List;
import java.util.stream.Collectors;

/** Values written into ClickHouse statements and TabSeparated lines, escaped. */
final class Sql {
    private Sql() {
    }

    /** A string literal: quotes and backslashes escaped, control characters as escapes. */
    static String quote(String s) {
        return "'" + escaped(s, true) + "'";
    }

    /** A list of string literals for IN. */
    static String quoted(List<String> values) {
        return values.stream().map(Sql::quote).collect(Collectors.joining(", ", "(", ")"));
    }

    /** A TabSeparated field: tab, newline and backslash escaped. */
    static String field(String s) {
        return escaped(s, false);
    }

    /** Backslash escapes of ClickHouse's text formats; {@code quotes}: single quotes too (in a literal). */
    private static String escaped(String s, boolean quotes) {
        StringBuilder b = new StringBuilder(s.length() + 2);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\t' -> b.append("\\t");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\\' -> b.append("\\\\");
                case '\0' -> b.append("\\0");
                case '\'' -> b.append(quotes ? "\\'" : "'");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
