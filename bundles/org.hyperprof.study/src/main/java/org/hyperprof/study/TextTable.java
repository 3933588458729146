package org.hyperprof.study;

import java.util.List;

/** A fixed-width console table: headings, then rows, each column as wide as its widest cell. */
final class TextTable {
    private TextTable() {
    }

    /**
     * @param headings the columns' headings
     * @param right    per column, whether it is aligned right (numbers)
     * @param rows     the cells, one array per row, as many as headings
     */
    static String render(String[] headings, boolean[] right, List<String[]> rows) {
        int[] width = new int[headings.length];
        for (int c = 0; c < headings.length; c++) {
            width[c] = headings[c].length();
            for (String[] r : rows) {
                width[c] = Math.max(width[c], r[c].length());
            }
        }
        StringBuilder b = new StringBuilder();
        line(b, headings, right, width);
        for (String[] r : rows) {
            line(b, r, right, width);
        }
        return b.toString();
    }

    private static void line(StringBuilder b, String[] cells, boolean[] right, int[] width) {
        StringBuilder l = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) {
                l.append("  ");
            }
            String pad = " ".repeat(width[c] - cells[c].length());
            l.append(right[c] ? pad + cells[c] : cells[c] + pad);
        }
        b.append(l.toString().stripTrailing()).append(System.lineSeparator());
    }
}
