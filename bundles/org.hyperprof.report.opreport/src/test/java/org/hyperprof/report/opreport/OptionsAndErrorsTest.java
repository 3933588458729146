package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.section;
import static org.hyperprof.report.opreport.Reports.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;

/** The renderer's options and the errors it answers with. */
class OptionsAndErrorsTest {

    private final NetworkSession net = new NetworkSession(3);
    private final OpreportConsumer opreport = net.completed();

    /** Whether {@code report} holds the image summary and the symbol summary. */
    private static void assertSummaries(String report, boolean imageSummary, boolean symbolSummary) {
        assertEquals(imageSummary, report.contains("Image summary:"), report);
        assertEquals(symbolSummary, report.contains("Symbol summary"), report);
    }

    @Test
    void byDefaultBothTheImageAndTheSymbolSummaryArePrinted() throws Exception {
        assertSummaries(section(all(opreport), "All domains, merged"), true, true);
    }

    @Test
    void imagesPrintsOnlyTheImageSummary() throws Exception {
        String report = all(opreport, "images");
        assertSummaries(report, true, false);
        assertTrue(report.contains("hypervisor/kernel/user split"), report);
    }

    @Test
    void symbolsPrintsOnlyTheSymbolSummary() throws Exception {
        assertSummaries(all(opreport, "symbols"), false, true);
    }

    @Test
    void askingForBothIsTheDefault() throws Exception {
        assertEquals(all(opreport), all(opreport, "images", "symbols"));
    }

    @Test
    void callgraphAlonePrintsOnlyTheCallGraph() throws Exception {
        String report = all(new StackSession(40).completed(), "callgraph");
        assertSummaries(report, false, false);
        assertTrue(report.contains("Call graph (all 8 symbols"), report);
    }

    @Test
    void viewsAskedForTogetherArePrintedInOprofilesOrder() throws Exception {
        String merged = section(all(new StackSession(40).completed(), "callgraph", "symbols", "images"),
                "All domains, merged");
        int images = merged.indexOf("Image summary:");
        int symbols = merged.indexOf("Symbol summary");
        int graph = merged.indexOf("Call graph (");
        assertTrue(images >= 0 && images < symbols && symbols < graph, merged);
    }

    @Test
    void theNewOptionsAreParsedIntoTheirViews() throws Exception {
        ReportOptions o = ReportOptions.parse(Set.of("callgraph", "details", "global", "vcpu"));
        assertTrue(o.callgraph() && o.details() && o.symbols() && o.global() && o.separateVcpus());
        assertFalse(o.images(), "a view asked for replaces the default views");
        assertTrue(ReportOptions.parse(Set.of("merge=domain")).mergeDomains());
        assertFalse(ReportOptions.parse(Set.of("merge=vcpu")).mergeDomains());
        assertEquals(ReportOptions.DEFAULT, ReportOptions.parse(Set.of()));
    }

    @Test
    void topLimitsTheSymbolRowsOfEverySectionAndSaysWhatItLeftOut() throws Exception {
        String report = all(opreport, "top=2", "notruth");
        String merged = section(report, "All domains, merged");
        assertTrue(merged.contains("Symbol summary (top 2 of 8 rows):"), merged);
        assertEquals(3, table(merged, "Symbol summary").size(), "heading and two rows");
        assertTrue(merged.contains("... 6 more rows not shown (top=N shows more): 95 samples (63.3333 %)"), merged);
        String domU = section(report, "domU-rcv (domain 1");
        assertTrue(domU.contains("Symbol summary (top 2 of 3 rows):"), domU);
    }

    @Test
    void theDefaultTopIsThirtySymbolRows() throws Exception {
        assertEquals(30, ReportOptions.parse(Set.of()).top());
    }

    @Test
    void anUnknownOptionIsRefusedWithTheAllowedOnes() {
        ReportException e = assertThrows(ReportException.class, () -> all(opreport, "exclude-dependent"));
        assertTrue(e.getMessage().startsWith("unknown opreport option 'exclude-dependent'; the options are: "),
                e.getMessage());
        for (String allowed : List.of("images:", "symbols:", "callgraph:", "details:", "global:", "vcpu:",
                "merge=domain|vcpu|cpu|all:", "truth:", "notruth:", "top=N:")) {
            assertTrue(e.getMessage().contains(allowed), e.getMessage());
        }
    }

    @Test
    void optionsListsEveryOptionWithADescription() {
        assertEquals(List.of("images", "symbols", "callgraph", "details", "global", "vcpu", "merge=domain|vcpu|cpu|all",
                "truth", "notruth", "top=N", "threshold=P", "order=samples|name", "separate=lib,kernel,thread,cpu",
                "host", "format=text|json|csv", "image=REGEX", "symbol=REGEX", "exclude=REGEX", "vcpu=N[,N...]"),
                opreport.options().stream().map(o -> o.substring(0, o.indexOf(':'))).toList());
    }

    @Test
    void topMustBeAPositiveWholeNumber() {
        ReportException notNumber = assertThrows(ReportException.class, () -> all(opreport, "top=many"));
        assertTrue(notNumber.getMessage().contains("N must be a whole number of symbol rows, e.g. top=30"));
        ReportException zero = assertThrows(ReportException.class, () -> all(opreport, "top=0"));
        assertTrue(zero.getMessage().contains("N must be from 1 to 2147483647 symbol rows per section"),
                zero.getMessage());
    }

    @Test
    void topBeyondAnIntGivesTheRangeNotANumberError() {
        for (String n : List.of("2147483648", "99999999999", "99999999999999999999999")) {
            ReportException e = assertThrows(ReportException.class, () -> all(opreport, "top=" + n));
            assertTrue(e.getMessage().contains("option 'top=" + n + "': N must be from 1 to 2147483647 symbol rows"),
                    e.getMessage());
        }
    }

    @Test
    void truthAndNotruthTogetherAreRefused() {
        ReportException e = assertThrows(ReportException.class, () -> all(opreport, "truth", "notruth"));
        assertTrue(e.getMessage().contains("'truth' and 'notruth' contradict each other"), e.getMessage());
    }

    @Test
    void anUnknownSessionIsRefusedNamingTheSessionsKept() throws Exception {
        NetworkSession other = new NetworkSession(8);
        opreport.sessionStarted(other.info);
        ReportException e = assertThrows(ReportException.class,
                () -> Reports.render(opreport, 99, ReportRequest.ALL_DOMAINS));
        assertEquals("opreport has no session 99; the sessions it keeps are 3, 8 (the last 16 at most);"
                + " ask for one of them or for the latest", e.getMessage());
    }

    @Test
    void withoutAnySessionTheErrorSaysToRunAProfileFirst() {
        ReportException e = assertThrows(ReportException.class, () -> all(new OpreportConsumer()));
        assertTrue(e.getMessage().contains("run a profile first (e.g. hp:profile)"), e.getMessage());
    }

    @Test
    void aDomainNotInTheSessionIsRefusedNamingItsDomains() {
        ReportException e = assertThrows(ReportException.class, () -> Reports.render(opreport, 3, 9));
        assertEquals("domain 9 is not part of session 3; its domains are 0 (Domain-0), 1 (domU-rcv), 2 (domU-spare);"
                + " ask for one of them, or for all domains", e.getMessage());
    }

    @Test
    void aRefusedReportWritesNothing() {
        StringBuilder out = new StringBuilder();
        assertThrows(ReportException.class,
                () -> opreport.render(new ReportRequest(3, ReportRequest.ALL_DOMAINS, Set.of("bogus")), out));
        assertThrows(ReportException.class, () -> opreport.render(new ReportRequest(3, 9, Set.of()), out));
        assertEquals("", out.toString());
    }

    @Test
    void optionsAreReadRegardlessOfCaseAndSurroundingBlanks() throws Exception {
        assertEquals(all(opreport, "images"), all(opreport, " IMAGES "));
    }
}
