package org.hyperprof.command.kit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;


/**
 * Rows of text printed in aligned columns; the last column is never padded. An all-empty header is not printed.
 * The same rows print as JSON or CSV for scripts ({@code --format json|csv} of the listing commands).
 */
public final class Table {
    /** How a table prints: aligned text for people, JSON or CSV for scripts. */
    public enum Format {
        TEXT, JSON, CSV;

        /** The value of {@code --format}: text, json or csv; null is text. */
        public static Format of(String value) throws UsageException {
            if (value == null) {
                return TEXT;
            }
            for (Format f : values()) {
                if (f.name().equalsIgnoreCase(value)) {
                    return f;
                }
            }
            throw new UsageException("--format takes text, json or csv, not '" + value + "'");
        }
    }

    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    public Table(String... header) {
        columns = header.length;
        rows.add(header);
    }

    public Table row(Object... cells) {
        if (cells.length != columns) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, the table " + columns);
        }
        String[] r = new String[columns];
        for (int i = 0; i < columns; i++) {
            r[i] = cells[i] == null ? "" : cells[i].toString();
        }
        rows.add(r);
        return this;
    }

    /** Rows added after the header. */
    public int size() {
        return rows.size() - 1;
    }

    /**
     * Prints in {@code format}: JSON is an array of one object per row, keyed by the lower-case
     * column names; CSV has the lower-case column names as its first line (RFC 4180 quoting).
     */
    public void print(PrintStream out, Format format) {
        switch (format) {
            case TEXT -> print(out);
            case JSON -> printJson(out);
            case CSV -> printCsv(out);
        }
    }

    private String[] keys() {
        String[] keys = new String[columns];
        for (int i = 0; i < columns; i++) {
            keys[i] = rows.get(0)[i].toLowerCase(java.util.Locale.ROOT);
        }
        return keys;
    }

    private void printJson(PrintStream out) {
        String[] keys = keys();
        StringBuilder b = new StringBuilder("[");
        for (int r = 1; r < rows.size(); r++) {
            b.append(r == 1 ? "\n  {" : ",\n  {");
            for (int i = 0; i < columns; i++) {
                b.append(i == 0 ? "" : ", ").append(JsonText.quote(keys[i])).append(": ")
                        .append(JsonText.quote(rows.get(r)[i]));
            }
            b.append('}');
        }
        out.println(b.append(rows.size() > 1 ? "\n]" : "]"));
    }

    private void printCsv(PrintStream out) {
        out.println(csvLine(keys()));
        for (String[] r : rows.subList(1, rows.size())) {
            out.println(csvLine(r));
        }
    }

    private static String csvLine(String[] cells) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i];
            boolean quote = c.indexOf(',') >= 0 || c.indexOf('"') >= 0 || c.indexOf('\n') >= 0;
            b.append(i == 0 ? "" : ",").append(quote ? "\"" + c.replace("\"", "\"\"") + "\"" : c);
        }
        return b.toString();
    }

    public void print(PrintStream out) {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        // A header of empty cells means a table without a header line.
        boolean headless = java.util.Arrays.stream(rows.get(0)).allMatch(String::isEmpty);
        for (String[] r : headless ? rows.subList(1, rows.size()) : rows) {
            b.setLength(0);
            for (int i = 0; i < columns; i++) {
                b.append(r[i]);
                if (i < columns - 1) {
                    b.append(" ".repeat(width[i] - r[i].length() + 2));
                }
            }
            out.println(b.toString().stripTrailing());
        }
    }
}
