package org.hyperprof.report.opreport;

import java.util.ArrayList;
import java.util.List;

/**
 * A left-aligned text table in opreport's style: each column as wide as its widest cell plus two
 * spaces, the last column unpadded, no trailing blanks.
 */
final class TextTable {
    private static final int GAP = 2;

    private final String[] headings;
    private final List<String[]> rows = new ArrayList<>();

    TextTable(List<String> headings) {
        this.headings = headings.toArray(String[]::new);
    }

    void add(List<String> cells) {
        if (cells.size() != headings.length) {
            throw new IllegalArgumentException(
                    "row has " + cells.size() + " cells, the table has " + headings.length + " columns");
        }
        rows.add(cells.toArray(String[]::new));
    }

    int size() {
        return rows.size();
    }

    void write(StringBuilder out) {
        int[] width = new int[headings.length];
        for (int c = 0; c < headings.length; c++) {
            width[c] = headings[c].length();
        }
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        line(out, headings, width);
        for (String[] row : rows) {
            line(out, row, width);
        }
    }

    private static void line(StringBuilder out, String[] cells, int[] width) {
        int start = out.length();
        for (int c = 0; c < cells.length; c++) {
            out.append(cells[c]);
            if (c < cells.length - 1) {
                out.append(" ".repeat(width[c] - cells[c].length() + GAP));
            }
        }
        int end = out.length();
        while (end > start && out.charAt(end - 1) == ' ') {
            end--;
        }
        out.setLength(end);
        out.append('\n');
    }
}
