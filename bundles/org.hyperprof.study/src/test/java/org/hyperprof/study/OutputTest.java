package org.hyperprof.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** The CSV's quoting and shape, the SVG's well-formedness, the console table's n/a. */
class OutputTest {

    private static Results.Study study() {
        Overhead known = new Overhead(10_000, 5_000L, 1_000, 250L, 10L, 40L);
        Overhead unknown = new Overhead(10_000, null, 2_000, null, null, null);
        Results.Guest odd = new Results.Guest(1, "web, \"front\" <&>", "own", 42, "CPU_CLK_UNHALTED",
                new ProfileError(12.5, 4.25, "vmlinux:a,b"), new ProfileError(20, 5, "vmlinux:\"q\""));
        Results.Guest none = new Results.Guest(2, "db", "none", 0, "", null, null);
        return new Results.Study("test & <scenario>", 7L, 5, List.of(
                new Results.Run(Variant.standard("saverestore/frozen"), null, known, 3, List.of(odd, none), List.of()),
                new Results.Run(Variant.standard("lazy"), null, unknown, 0, List.of(none), List.of("a note")),
                Results.Run.failed(Variant.standard("offset"), "the profile failed: no, \"really\"")));
    }

    /** An RFC 4180 reader, enough to check what the writer wrote. */
    private static List<List<String>> parse(String csv) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < csv.length(); i++) {
            char c = csv.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < csv.length() && csv.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\r' && i + 1 < csv.length() && csv.charAt(i + 1) == '\n') {
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
                i++;
            } else {
                field.append(c);
            }
        }
        return rows;
    }

    @Test
    void csvFieldsWithCommasQuotesOrLineBreaksAreQuotedWithQuotesDoubled() {
        assertEquals("plain", StudyCsv.quoted("plain"));
        assertEquals("\"a,b\"", StudyCsv.quoted("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", StudyCsv.quoted("say \"hi\""));
        assertEquals("\"two\nlines\"", StudyCsv.quoted("two\nlines"));
        assertEquals("\"cr\rhere\"", StudyCsv.quoted("cr\rhere"));
    }

    @Test
    void csvHasAHeaderAndOneLinePerVariantAndGuestWithTheHostColumnsRepeated() {
        String csv = StudyCsv.render(study());
        assertTrue(csv.endsWith("\r\n"));
        List<List<String>> rows = parse(csv);
        int columns = rows.get(0).size();
        assertEquals(StudyCsv.HEADER, String.join(",", rows.get(0)));
        assertEquals(5, rows.size(), "header, 2 guests of the first variant, 1 of the second, 1 failed line");
        for (List<String> r : rows) {
            assertEquals(columns, r.size(), r.toString());
        }
        List<String> header = rows.get(0);
        List<String> first = rows.get(1);
        List<String> second = rows.get(2);
        assertEquals(first.subList(0, header.indexOf("domid")), second.subList(0, header.indexOf("domid")));
        assertEquals("web, \"front\" <&>", first.get(header.indexOf("guest")), "round-trips through RFC 4180");
        assertEquals("vmpu.freeze=exit".replace("vmpu", "vpmu"), first.get(header.indexOf("options")));
        assertEquals("10.000", first.get(header.indexOf("hypervisor_pct")));
        assertEquals("2.500", first.get(header.indexOf("policy_pct")));
        assertEquals("4.000", first.get(header.indexOf("accesses_per_switch")));
        assertEquals("12.500", first.get(header.indexOf("error_guest_only_pct")));
        assertEquals("vmlinux:a,b", first.get(header.indexOf("max_symbol_guest_only")));
        assertEquals("n/a", second.get(header.indexOf("error_guest_only_pct")), "no profile: no error, not zero");
        List<String> lazy = rows.get(3);
        assertEquals("n/a", lazy.get(header.indexOf("policy_pct")), "a counter the host lacks is n/a");
        assertEquals("n/a", lazy.get(header.indexOf("halted_cycles_excluded")));
        assertEquals("n/a", lazy.get(header.indexOf("accesses_per_switch")));
        List<String> failed = rows.get(4);
        assertEquals("the profile failed: no, \"really\"", failed.get(header.indexOf("status")));
        assertEquals("", failed.get(header.indexOf("hypervisor_pct")));
    }

    @Test
    void svgIsWellFormedXmlWithTitleAxesAndLegend() throws Exception {
        String svg = StudyChart.render(study());
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getLocalName());
        assertEquals("http://www.w3.org/2000/svg", doc.getDocumentElement().getNamespaceURI());
        String text = doc.getDocumentElement().getTextContent();
        assertTrue(text.contains("test & <scenario>"), "the title names the scenario");
        assertTrue(text.contains("seed 7"));
        assertTrue(text.contains("5 ms simulated"));
        assertTrue(text.contains("% of all unhalted cycles"), "y axis label of the overhead panel");
        assertTrue(text.contains("error, percentage points"), "y axis label of the error panel");
        assertTrue(text.contains("policy variant"), "x axis label");
        assertTrue(text.contains("web, \"front\" <&>"), "the legend names the guests");
        assertTrue(text.contains("n/a"), "an unknown figure is marked, not drawn as zero");
        assertTrue(text.contains("failed"), "a failed variant says so");
        assertFalse(svg.contains("<script"), "self-contained, nothing active");
    }

    @Test
    void svgOfAStudyWithNothingInItIsStillWellFormed() throws Exception {
        String svg = StudyChart.render(new Results.Study("empty", null, 1, List.of()));
        DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertTrue(svg.contains("seed n/a"));
    }

    @Test
    void xmlEscapingCoversMarkupAndForbiddenCharacters() {
        assertEquals("&lt;a href=&quot;x&quot;&gt;&amp;&apos;\uFFFD", StudyChart.escape("<a href=\"x\">&'\u0001"));
    }

    @Test
    void theConsoleTableShowsUnknownFiguresAsNaAndFailuresInOneLine() {
        String text = StudyText.render(study());
        assertTrue(text.contains("n/a"));
        assertTrue(text.contains("failed: offset: the profile failed: no, \"really\""), text);
        assertTrue(text.contains("halted cycles excluded"), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("saverestore/frozen") && l.contains("10.00")
                && l.contains("2.50") && l.contains("4.00")), text);
    }
}
