package org.hyperprof.shell;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Rows of text printed in aligned columns; the last column is never padded. An all-empty header is not printed. */
public final class Table {
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
