package org.hyperprof.report.opreport;

import java.util.ArrayList;
import java.util.List;

/**
 * A left-aligned text table in opreport's style: each column as wide as its widest cell plus two
 * spaces, the last column unpadded, no trailing blanks. Lines added with {@link #addLine} (the
 * call graph's rules of dashes) are printed as they are, in their place, and take no part in the
 * widths.
 */
final class TextTable {
    private static final int GAP = 2;

    private final String[] headings;
    /** Rows in order; a one-element array whose {@link #verbatim} flag is set is printed as it is. */
    private final List<String[]> rows = new ArrayList<>();
    private final List<Boolean> verbatim = new ArrayList<>();

    TextTable(List<String> headings) {
        this.headings = headings.toArray(String[]::new);
    }

    void add(List<String> cells) {
        if (cells.size() != headings.length) {
            throw new IllegalArgumentException(
                    "row has " + cells.size() + " cells, the table has " + headings.length + " columns");
        }
        rows.add(cells.toArray(String[]::new));
        verbatim.add(false);
    }

    /** A line printed as it is between the rows. */
    void addLine(String line) {
        rows.add(new String[] { line });
        verbatim.add(true);
    }

    List<String> headings() {
        return List.of(headings);
    }

    /** The rows added, without the verbatim lines. */
    List<String[]> dataRows() {
        List<String[]> data = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            if (!verbatim.get(r)) {
                data.add(rows.get(r).clone());
            }
        }
        return data;
    }

    /** Rows added, verbatim lines not counted. */
    int size() {
        return (int) verbatim.stream().filter(v -> !v).count();
    }

    void write(StringBuilder out) {
        int[] width = new int[headings.length];
        for (int c = 0; c < headings.length; c++) {
            width[c] = headings[c].length();
        }
        for (int r = 0; r < rows.size(); r++) {
            if (!verbatim.get(r)) {
                String[] row = rows.get(r);
                for (int c = 0; c < row.length; c++) {
                    width[c] = Math.max(width[c], row[c].length());
                }
            }
        }
        line(out, headings, width);
        for (int r = 0; r < rows.size(); r++) {
            if (verbatim.get(r)) {
                out.append(rows.get(r)[0]).append('\n');
            } else {
                line(out, rows.get(r), width);
            }
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
