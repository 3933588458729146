package org.hyperprof.store.duckdb;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The store commands' rows, printed as the shell's listings print theirs: aligned columns for
 * people, or for scripts JSON (an array of objects keyed by the lower-case column names) or CSV (those
 * names as the first line, RFC 4180 quoting).
 */
final class Listing {
    /** The values of {@code --format}. */
    static final List<String> FORMATS = List.of("text", "json", "csv");

    private final List<String> columns;
    private final List<List<String>> rows = new ArrayList<>();

    Listing(String... columns) {
        this.columns = List.of(columns);
    }

    Listing row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + columns.size() + " columns");
        }
        List<String> r = new ArrayList<>();
        for (Object c : cells) {
            r.add(c == null ? "" : c.toString());
        }
        rows.add(r);
        return this;
    }

    /** Prints in {@code format}: text (or null), json or csv. */
    void print(PrintStream out, String format) {
        switch (format == null ? "text" : format) {
            case "json" -> out.println(json());
            case "csv" -> {
                out.println(csv(keys()));
                rows.forEach(r -> out.println(csv(r)));
            }
            default -> text(out);
        }
    }

    private List<String> keys() {
        return columns.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList();
    }

    private void text(PrintStream out) {
        int[] width = IntStream.range(0, columns.size())
                .map(i -> Math.max(columns.get(i).length(), rows.stream().mapToInt(r -> r.get(i).length()).max()
                        .orElse(0)))
                .toArray();
        List<List<String>> all = new ArrayList<>();
        all.add(columns);
        all.addAll(rows);
        for (List<String> r : all) {
            String line = IntStream.range(0, r.size())
                    .mapToObj(i -> i == r.size() - 1 ? r.get(i) : String.format("%-" + (width[i] + 2) + "s", r.get(i)))
                    .collect(Collectors.joining());
            out.println(line.stripTrailing());
        }
    }

    private String json() {
        List<String> keys = keys();
        String objects = rows.stream()
                .map(r -> IntStream.range(0, r.size()).mapToObj(i -> quoted(keys.get(i)) + ": " + quoted(r.get(i)))
                        .collect(Collectors.joining(", ", "  {", "}")))
                .collect(Collectors.joining(",\n"));
        return rows.isEmpty() ? "[]" : "[\n" + objects + "\n]";
    }

    private static String quoted(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                b.append('\\').append(ch);
            } else if (ch < 0x20) {
                b.append(String.format("\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.append('"').toString();
    }

    private static String csv(List<String> cells) {
        return cells.stream()
                .map(c -> c.matches("(?s).*[\",\\n\\r].*") ? '"' + c.replace("\"", "\"\"") + '"' : c)
                .collect(Collectors.joining(","));
    }
}
