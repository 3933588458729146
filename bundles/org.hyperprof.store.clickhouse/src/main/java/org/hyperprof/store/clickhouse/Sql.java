package org.hyperprof.store.clickhouse;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.hyperprof.command.kit.Escaper;

/** Values written into ClickHouse statements and TabSeparated lines, escaped. */
final class Sql {
    private Sql() {
    }

    /** A string literal: quotes and backslashes escaped, control characters as escapes. */
    static String quote(String s) {
        return "'" + LITERAL_TEXT.escape(s) + "'";
    }

    /** A list of string literals for IN. */
    static String quoted(List<String> values) {
        return values.stream().map(Sql::quote).collect(Collectors.joining(", ", "(", ")"));
    }

    /** A TabSeparated field: tab, newline and backslash escaped. */
    static String field(String s) {
        return FIELD_TEXT.escape(s);
    }

    /** Backslash escapes of ClickHouse's text formats. */
    private static final Map<Character, String> FIELD = Map.of('\t', "\\t", '\n', "\\n", '\r', "\\r", '\\', "\\\\",
            '\0', "\\0");
    private static final Escaper FIELD_TEXT = Escaper.of(FIELD);
    /** In a literal, single quotes too. */
    private static final Escaper LITERAL_TEXT = Escaper.of(with(FIELD, '\'', "\\'"));

    private static Map<Character, String> with(Map<Character, String> table, char c, String replacement) {
        Map<Character, String> more = new HashMap<>(table);
        more.put(c, replacement);
        return more;
    }
}
