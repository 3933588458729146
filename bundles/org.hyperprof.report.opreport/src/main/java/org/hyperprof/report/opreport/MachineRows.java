package org.hyperprof.report.opreport;

import static org.hyperprof.command.kit.JsonText.quote;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.hyperprof.api.sample.Accounting;

/**
 * The report for scripts ({@code format=json|csv}): the same rows the text shows, chosen by the
 * same filters, threshold, top and order, as records keyed by their column names, with the section
 * and summary each belongs to and the session's books. Rows hidden by {@code top} or the threshold
 * are left out as in the text; {@code top=N} asks for more.
 */
final class MachineRows {
    /** How the report is written: {@code format=text|json|csv}. */
    enum Format {
        TEXT, JSON, CSV
    }

    private static final Pattern NUMBER = Pattern.compile("[-+]?[0-9]+(\\.[0-9]+)?");

    private record Table(String section, String summary, List<String> keys, List<String[]> rows) {
    }

    private final List<Table> tables = new ArrayList<>();

    /** The rows of one summary ({@code image} or {@code symbol}) of one section ({@code all} or a domain id). */
    void add(String section, String summary, TextTable table) {
        tables.add(new Table(section, summary, keys(table.headings()), table.dataRows()));
    }

    /**
     * {@code samples, %, true %} to {@code samples, percent, true_percent}; a column repeated for a
     * second counter gets the counter's number ({@code samples_1}).
     */
    private static List<String> keys(List<String> headings) {
        List<String> keys = new ArrayList<>();
        for (String h : headings) {
            String k = h.replace("%", "percent").strip().replace(' ', '_').toLowerCase(Locale.ROOT);
            String unique = k;
            for (int n = 1; keys.contains(unique); n++) {
                unique = k + "_" + n;
            }
            keys.add(unique);
        }
        return keys;
    }

    /** One JSON object: the session's fields, its rows, its books. */
    String json(Map<String, String> session, Accounting books) {
        StringBuilder b = new StringBuilder("{");
        session.forEach((k, v) -> b.append('"').append(k).append("\": ").append(quote(v)).append(", "));
        b.append("\"rows\": [");
        boolean first = true;
        for (Table t : tables) {
            for (String[] row : t.rows()) {
                b.append(first ? "\n  {" : ",\n  {");
                first = false;
                b.append("\"section\": ").append(quote(t.section())).append(", \"summary\": ")
                        .append(quote(t.summary()));
                for (int c = 0; c < row.length; c++) {
                    b.append(", \"").append(t.keys().get(c)).append("\": ").append(value(row[c]));
                }
                b.append('}');
            }
        }
        b.append(first ? "]" : "\n]");
        b.append(", \"books\": ");
        if (books == null) {
            b.append("null");
        } else {
            b.append("{\"taken\": ").append(books.taken()).append(", \"delivered\": ").append(books.delivered())
                    .append(", \"lost\": ").append(books.lost()).append(", \"dropped\": ").append(books.dropped())
                    .append(", \"invalid\": ").append(books.invalid()).append(", \"balanced\": ")
                    .append(books.balanced()).append('}');
        }
        return b.append("}\n").toString();
    }

    /**
     * CSV (RFC 4180): a header of every column any row has, then the rows; the books in a last row
     * whose summary is {@code books}.
     */
    String csv(Accounting books) {
        Set<String> columns = new LinkedHashSet<>(List.of("section", "summary"));
        tables.forEach(t -> columns.addAll(t.keys()));
        columns.add("books");
        List<String> header = List.copyOf(columns);
        StringBuilder b = new StringBuilder(String.join(",", header)).append('\n');
        for (Table t : tables) {
            for (String[] row : t.rows()) {
                String[] cells = new String[header.size()];
                cells[0] = t.section();
                cells[1] = t.summary();
                for (int c = 0; c < row.length; c++) {
                    cells[header.indexOf(t.keys().get(c))] = row[c];
                }
                line(b, cells);
            }
        }
        String[] last = new String[header.size()];
        last[0] = "session";
        last[1] = "books";
        last[header.size() - 1] = books == null ? "still running" : books.line();
        line(b, last);
        return b.toString();
    }

    private static void line(StringBuilder b, String[] cells) {
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i] == null ? "" : cells[i];
            boolean quote = c.indexOf(',') >= 0 || c.indexOf('"') >= 0 || c.indexOf('\n') >= 0;
            b.append(i == 0 ? "" : ",").append(quote ? "\"" + c.replace("\"", "\"\"") + "\"" : c);
        }
        b.append('\n');
    }

    /** A number as a JSON number (a sign of {@code +0.39} dropped), anything else as a string. */
    private static String value(String cell) {
        String t = cell.strip();
        if (NUMBER.matcher(t).matches()) {
            return t.startsWith("+") ? t.substring(1) : t;
        }
        return quote(cell);
    }
}
