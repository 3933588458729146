package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.row;
import static org.hyperprof.report.opreport.Reports.section;
import static org.hyperprof.report.opreport.Reports.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/** OProfile's layout, the merged and per-domain sections, the split and the accounting. */
class OpreportLayoutTest {

    private final NetworkSession net = new NetworkSession(3);
    private final OpreportConsumer opreport = net.completed();

    @Test
    void theFirstLineIsOprofilesCpuAndSpeedLine() throws Exception {
        String report = all(opreport);
        assertEquals("CPU: PIII, speed 2800 MHz (estimated)", report.lines().findFirst().orElseThrow());
    }

    @Test
    void theSecondLineIsTheCountedEventWithUnitMaskAndCount() throws Exception {
        List<String> lines = all(opreport).lines().toList();
        assertEquals("Counted CPU_CLK_UNHALTED events (clocks processor is not halted) with a unit mask of 0x00"
                + " (No unit mask) count 100000", lines.get(1));
        assertEquals(NetworkSession.CYCLES_100000.describe(), lines.get(1));
    }

    @Test
    void everyCounterGetsItsCountedLineInCounterOrder() throws Exception {
        NetworkSession two = new NetworkSession(4, NetworkSession.CYCLES_100000, NetworkSession.INSTRUCTIONS_50000);
        List<String> lines = all(two.completed()).lines().toList();
        assertEquals(NetworkSession.CYCLES_100000.describe(), lines.get(1));
        assertEquals(NetworkSession.INSTRUCTIONS_50000.describe(), lines.get(2));
        assertEquals("Columns, left to right: counter 0 (CPU_CLK_UNHALTED), counter 1 (INST_RETIRED)", lines.get(4));
    }

    @Test
    void withSeveralCountersEachGetsItsOwnSamplesAndPercentColumnsSortedByTheFirst() throws Exception {
        NetworkSession two = new NetworkSession(4, NetworkSession.CYCLES_100000, NetworkSession.INSTRUCTIONS_50000);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(two.info);
        c.samples(new Batches(4).add(5, NetworkSession.DOM0, CpuMode.KERNEL, 0, two.e1000, two.e1000Intr)
                .add(1, NetworkSession.DOM0, CpuMode.KERNEL, 1, two.e1000, two.e1000Intr)
                .add(2, NetworkSession.DOM0, CpuMode.HYPERVISOR, 0, two.dom0Xen, two.findDomain0)
                .add(3, NetworkSession.DOM0, CpuMode.HYPERVISOR, 1, two.dom0Xen, two.findDomain0).build());
        String dom0 = section(all(c, "notruth"), "Domain-0 (domain 0");
        List<String> images = table(dom0, "Image summary:");
        assertEquals(List.of("samples", "%", "samples", "%", "image name"), Reports.cells(images.get(0)));
        assertEquals(List.of("5", "71.4286", "1", "25.0000", "e1000"), Reports.cells(images.get(1)));
        assertEquals(List.of("2", "28.5714", "3", "75.0000", "xen-syms"), Reports.cells(images.get(2)));
    }

    @Test
    void imageSummaryHasOprofileHeadingsWithADomainColumnInTheMergedReport() throws Exception {
        String merged = section(all(opreport, "notruth"), "All domains, merged");
        List<String> image = table(merged, "Image summary:");
        assertEquals(List.of("samples", "%", "domain", "image name"), Reports.cells(image.get(0)));
        List<String> symbol = table(merged, "Symbol summary");
        assertEquals(List.of("samples", "%", "domain", "image name", "symbol name"), Reports.cells(symbol.get(0)));
    }

    @Test
    void columnsAreAlignedLikeOpreport() throws Exception {
        String merged = section(all(opreport, "notruth"), "All domains, merged");
        List<String> symbol = table(merged, "Symbol summary");
        assertEquals("samples  %        domain    image name    symbol name", symbol.get(0));
        assertEquals("30       20.0000  Domain-0  xen-syms      find_domain_by_id", symbol.get(1));
        int imageColumn = symbol.get(0).indexOf("image name");
        for (String line : symbol) {
            assertEquals(' ', line.charAt(imageColumn - 1), line);
            assertTrue(line.charAt(imageColumn) != ' ', line);
        }
    }

    @Test
    void rowsAreSortedBySamplesDescendingThenByName() throws Exception {
        String merged = section(all(opreport, "notruth"), "All domains, merged");
        List<String> names = new ArrayList<>();
        for (String line : table(merged, "Image summary:").subList(1, 7)) {
            List<String> cells = Reports.cells(line);
            names.add(cells.get(0) + " " + cells.get(2) + " " + cells.get(3));
        }
        assertEquals(List.of("50 Domain-0 xen-syms", "25 Domain-0 e1000", "25 Domain-0 vmlinux-xen0",
                "25 domU-rcv vmlinux-xenU", "15 domU-rcv rcv22", "10 domU-rcv xen-syms"), names);
    }

    @Test
    void percentagesHaveFourDecimalsLikeOprofile() throws Exception {
        String merged = section(all(opreport, "notruth"), "All domains, merged");
        Pattern fourDecimals = Pattern.compile("\\d+\\.\\d{4}");
        for (String line : table(merged, "Symbol summary").subList(1, 9)) {
            assertTrue(fourDecimals.matcher(Reports.cells(line).get(1)).matches(), line);
        }
        assertEquals("6.6667", row(merged, "domU-rcv", "xen-syms", "find_domain_by_id").get(1));
        assertEquals("33.3333", row(merged, "Domain-0", "xen-syms").get(1));
    }

    @Test
    void aSampleWithoutSymbolIsShownAsNoSymbolsUnderItsImage() throws Exception {
        String dom0 = section(all(opreport), "Domain-0 (domain 0");
        List<String> noSymbols = row(dom0, "vmlinux-xen0", "(no symbols)");
        assertEquals("10", noSymbols.get(0));
        assertEquals("10.0000", noSymbols.get(1));
    }

    @Test
    void theMergedReportComesFirstAndCountsPercentOfAllDomains() throws Exception {
        String report = all(opreport, "notruth");
        int merged = report.indexOf("All domains, merged");
        int dom0 = report.indexOf("Domain-0 (domain 0, active): its own report");
        int domU = report.indexOf("domU-rcv (domain 1, active): its own report");
        assertTrue(merged > 0 && merged < dom0 && dom0 < domU, report);
        String mergedSection = section(report, "All domains, merged");
        assertEquals("16.6667", row(mergedSection, "domU-rcv", "vmlinux-xenU", "tcp_v4_rcv").get(1));
    }

    @Test
    void eachDomainsOwnReportHasOnlyItsSamplesAndItsOwnXenImage() throws Exception {
        String report = all(opreport, "notruth");
        String domU = section(report, "domU-rcv (domain 1");
        List<String> images = table(domU, "Image summary:");
        assertEquals(List.of("samples", "%", "image name"), Reports.cells(images.get(0)));
        assertEquals(4, images.size(), "heading and domU's three images: " + images);
        assertEquals(List.of("25", "50.0000", "vmlinux-xenU"), row(domU, "vmlinux-xenU"));
        assertEquals(List.of("10", "20.0000", "xen-syms", "find_domain_by_id"),
                row(domU, "xen-syms", "find_domain_by_id"));
        assertFalse(domU.contains("e1000"), domU);
        String dom0 = section(report, "Domain-0 (domain 0");
        assertEquals(List.of("50", "50.0000", "xen-syms"), row(dom0, "xen-syms"));
        assertFalse(dom0.contains("tcp_v4_rcv"), dom0);
    }

    @Test
    void oneDomainsReportIsJustThatDomain() throws Exception {
        String report = Reports.render(opreport, 3, NetworkSession.DOMU, "notruth");
        assertTrue(report.startsWith("CPU: PIII"), report);
        assertFalse(report.contains("All domains, merged"), report);
        assertFalse(report.contains("Domain-0 (domain 0"), report);
        assertEquals(List.of("15", "30.0000", "rcv22", "main"), row(section(report, "domU-rcv"), "rcv22", "main"));
    }

    @Test
    void theSplitIntoHypervisorKernelAndUserIsGivenOverallAndPerDomain() throws Exception {
        String report = all(opreport, "notruth");
        assertTrue(section(report, "All domains, merged").contains(
                "hypervisor/kernel/user split: sampled 40.00/50.00/10.00 %  (60/75/15 of 150 samples)"), report);
        assertTrue(section(report, "Domain-0 (domain 0").contains(
                "hypervisor/kernel/user split: sampled 50.00/50.00/0.00 %  (50/50/0 of 100 samples)"), report);
        assertTrue(section(report, "domU-rcv (domain 1").contains(
                "hypervisor/kernel/user split: sampled 20.00/50.00/30.00 %  (10/25/15 of 50 samples)"), report);
    }

    @Test
    void samplesAtUnmappedPcsAreShownBesideTheSplit() throws Exception {
        NetworkSession n = new NetworkSession(9);
        int unknown = n.dictionary.image(NetworkSession.DOMU, "(unknown)", org.hyperprof.api.sample.ImageKind.UNKNOWN);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(n.info);
        c.samples(n.samples(new Batches(9), 0).add(50, NetworkSession.DOMU, CpuMode.USER, 0, unknown, -1).build());
        String domU = section(all(c), "domU-rcv (domain 1");
        assertTrue(domU.contains("hypervisor/kernel/user split: sampled 10.00/25.00/15.00 %  (10/25/15 of 100 samples;"
                + " 50 samples (50.00 %) at PCs no image of the domain maps)"), domU);
    }

    @Test
    void theAccountingLineOfTheSessionIsPrintedAndBalances() throws Exception {
        String report = all(opreport);
        assertTrue(report.contains("session: " + NetworkSession.SESSION_BOOKS.line() + "\n"), report);
        assertTrue(NetworkSession.SESSION_BOOKS.balanced());
        assertFalse(report.contains("DOES NOT BALANCE"), report);
    }

    @Test
    void everyBufferGetsItsAccountingLineUnderItsDomain() throws Exception {
        String accounting = section(all(opreport), "Accounting");
        assertTrue(accounting.contains("domU-rcv (domain 1, active): samples taken 52 = delivered 50 + lost 2 + dropped 0"
                + " + invalid 0\n  vcpu 0 (active): samples taken 52 = delivered 50 + lost 2 + dropped 0 + invalid 0;"
                + " user 15, kernel 25, xen 10; buffer entries drained 50, left undrained 0"), accounting);
        assertTrue(accounting.contains("Domain-0 (domain 0, active): samples taken 100 = delivered 100"),
                accounting);
        assertTrue(accounting.contains("  vcpu 1 (active): samples taken 40 = delivered 40"), accounting);
    }

    @Test
    void consumersAndXenStatisticsAreListedWithWhatTheyGot() throws Exception {
        String accounting = section(all(opreport), "Accounting");
        assertTrue(accounting.contains("consumer opreport: received 150, missed 0"), accounting);
        assertTrue(accounting.contains("xen: total_samples 157, active 150, passive 0, lost 2, others 5 (idle 5)"),
                accounting);
        assertTrue(accounting.contains("opreport: aggregated 150 samples, rejected none"), accounting);
    }

    @Test
    void anUnbalancedSessionIsFlagged() throws Exception {
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(net.info);
        c.samples(net.batch(0));
        c.sessionEnded(new SessionSummary(3, new org.hyperprof.api.sample.Accounting(160, 150, 2, 5, 0),
                net.buffers(), List.of(), null, null, 1, SessionSummary.COMPLETED));
        assertTrue(all(c).contains("samples taken 160 = delivered 150 + lost 2 + dropped 5 + invalid 0"
                + "  ** DOES NOT BALANCE **"));
    }

    @Test
    void aSessionThatEndedEarlySaysWhy() throws Exception {
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(net.info);
        c.samples(net.batch(0));
        c.sessionEnded(net.summary(net.truth(), "PMU model bundle org.hyperprof.pmu.p6 departed"));
        String report = all(c);
        assertTrue(report.contains("): ended early: PMU model bundle org.hyperprof.pmu.p6 departed\n"), report);
        assertTrue(section(report, "Accounting")
                .contains("session ended early: PMU model bundle org.hyperprof.pmu.p6 departed"), report);
    }

    @Test
    void aRunningSessionIsRenderedWithWhatArrivedSoFar() throws Exception {
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(net.info);
        c.samples(net.batch(0));
        String report = all(c);
        assertTrue(report.contains("): running, 150 samples so far"), report);
        assertTrue(report.contains("the session is still running; its books"), report);
        assertEquals(List.of("50", "33.3333", "Domain-0", "xen-syms"), row(section(report, "All domains"),
                "Domain-0", "xen-syms"));
    }

    @Test
    void aProfiledDomainWithoutSamplesStillGetsItsSectionSayingSo() throws Exception {
        NetworkSession n = new NetworkSession(11);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(n.info);
        c.samples(new Batches(11).add(3, NetworkSession.DOM0, CpuMode.KERNEL, 0, n.e1000, n.e1000Intr).build());
        c.sessionEnded(n.summary());
        String domU = section(all(c), "domU-rcv (domain 1");
        assertTrue(domU.contains("no samples: the domain was profiled but no sample of it reached opreport"), domU);
    }

    @Test
    void aDomainOfTheHostThatWasNotProfiledSaysSo() throws Exception {
        String report = Reports.render(opreport, 3, NetworkSession.UNPROFILED);
        assertTrue(report.contains("domU-spare (domain 2)"), report);
        assertTrue(report.contains("no samples: the domain was not profiled in this session"), report);
    }

    @Test
    void theLatestSessionIsRenderedWhenAskedForLatest() throws Exception {
        NetworkSession later = new NetworkSession(5);
        opreport.sessionStarted(later.info);
        opreport.samples(new Batches(5).add(2, NetworkSession.DOM0, CpuMode.KERNEL, 0, later.e1000, -1).build());
        String report = Reports.render(opreport, ReportRequest.LATEST, ReportRequest.ALL_DOMAINS);
        assertTrue(report.contains("Session 5 "), report);
    }
}
