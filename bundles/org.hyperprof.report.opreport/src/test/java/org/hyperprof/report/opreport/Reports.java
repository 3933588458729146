package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;

/** Reads rendered reports back: sections by title, rows by their trailing name columns. */
final class Reports {
    private Reports() {
    }

    static String render(ReportRenderer renderer, long session, int domain, String... options)
            throws IOException, ReportException {
        StringBuilder out = new StringBuilder();
        renderer.render(new ReportRequest(session, domain, Set.of(options)), out);
        return out.toString();
    }

    static String all(ReportRenderer renderer, String... options) throws IOException, ReportException {
        return render(renderer, ReportRequest.LATEST, ReportRequest.ALL_DOMAINS, options);
    }

    /** The section whose title starts with {@code titleStart}, up to the next titled section. */
    static String section(String report, String titleStart) {
        List<String> lines = Arrays.asList(report.split("\n", -1));
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).startsWith(titleStart) && isRule(lines.get(i + 1))) {
                int end = i + 2;
                while (end + 1 < lines.size() && !isRule(lines.get(end + 1))) {
                    end++;
                }
                if (end + 1 >= lines.size()) {
                    end = lines.size();
                }
                return String.join("\n", lines.subList(i, end));
            }
        }
        return fail("no section titled '" + titleStart + "' in:\n" + report);
    }

    private static boolean isRule(String line) {
        return !line.isEmpty() && line.chars().allMatch(ch -> ch == '=');
    }

    /** The cells of a table line: columns are separated by two or more spaces. */
    static List<String> cells(String line) {
        return Arrays.asList(line.trim().split(" {2,}"));
    }

    /** The one table row of {@code text} whose last cells are {@code names}. */
    static List<String> row(String text, String... names) {
        List<List<String>> found = new ArrayList<>();
        for (String line : text.split("\n")) {
            List<String> cells = cells(line);
            if (cells.size() > names.length
                    && cells.subList(cells.size() - names.length, cells.size()).equals(List.of(names))) {
                found.add(cells);
            }
        }
        if (found.size() != 1) {
            fail(found.size() + " rows end with " + List.of(names) + " in:\n" + text);
        }
        return found.get(0);
    }

    /** Lines of {@code text} starting with {@code prefix}. */
    static List<String> linesStartingWith(String text, String prefix) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix)) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** The table that follows the line starting with {@code heading} (up to the first blank line). */
    static List<String> table(String text, String heading) {
        List<String> lines = Arrays.asList(text.split("\n", -1));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(heading)) {
                int end = i + 1;
                while (end < lines.size() && !lines.get(end).isBlank() && !lines.get(end).startsWith("...")) {
                    end++;
                }
                return lines.subList(i + 1, end);
            }
        }
        return fail("no '" + heading + "' in:\n" + text);
    }
}
