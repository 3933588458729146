package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.row;
import static org.hyperprof.report.opreport.Reports.section;
import static org.hyperprof.report.opreport.Reports.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportException;
import org.junit.jupiter.api.Test;

/** merge= (OProfile's --merge) and vcpu (the analogue of --separate=cpu). */
class MergeAndVcpuTest {

    private final NetworkSession net = new NetworkSession(3);
    private final OpreportConsumer opreport = net.completed();

    @Test
    void mergeDomainAddsUpTheRowsOfEveryDomainThatShareImageAndSymbol() throws Exception {
        String merged = section(all(opreport, "merge=domain"), "All domains, merged");
        // find_domain_by_id: 30 samples in dom0's xen-syms and 10 in domU's; truth 28000 + 12000 of 150000
        assertEquals(List.of("40", "26.6667", "26.6667", "+0.0000", "xen-syms", "find_domain_by_id"),
                row(merged, "xen-syms", "find_domain_by_id"));
        assertEquals(List.of("60", "40.0000", "41.3333", "-1.3333", "xen-syms"), row(merged, "xen-syms"));
    }

    @Test
    void mergeDomainDropsTheDomainColumnAndSaysSoInTheTitle() throws Exception {
        String report = all(opreport, "merge=domain", "notruth");
        String merged = section(report, "All domains, merged into one set of rows (merge=domain;");
        assertEquals(List.of("samples", "%", "image name"), Reports.cells(table(merged, "Image summary:").get(0)));
        assertEquals(List.of("samples", "%", "image name", "symbol name"),
                Reports.cells(table(merged, "Symbol summary").get(0)));
    }

    @Test
    void mergeDomainLeavesEachDomainsOwnReportAlone() throws Exception {
        String report = all(opreport, "merge=domain", "notruth");
        assertEquals(section(all(opreport, "notruth"), "domU-rcv (domain 1"), section(report, "domU-rcv (domain 1"));
        assertEquals(List.of("10", "20.0000", "xen-syms", "find_domain_by_id"),
                row(section(report, "domU-rcv (domain 1"), "xen-syms", "find_domain_by_id"));
    }

    @Test
    void mergeAllMergesDomainsAndVcpus() throws Exception {
        assertEquals(all(opreport, "merge=domain"), all(opreport, "merge=all"));
        assertEquals(all(opreport, "merge=all"), all(opreport, "merge=domain,vcpu"));
    }

    @Test
    void mergeVcpuOrCpuIsTheDefault() throws Exception {
        String byDefault = all(opreport);
        assertEquals(byDefault, all(opreport, "merge=vcpu"));
        assertEquals(byDefault, all(opreport, "merge=cpu"));
    }

    @Test
    void vcpuKeepsEachVcpusRowsApartWithAVcpuColumn() throws Exception {
        String domU = section(Reports.render(new StackSession(40).completed(), 40, StackSession.DOMU, "vcpu"),
                "domU-rcv");
        List<String> symbols = table(domU, "Symbol summary");
        assertEquals(List.of("samples", "%", "vcpu", "image name", "symbol name"), Reports.cells(symbols.get(0)));
        // checksum: 6 samples on vCPU 0 and 2 on vCPU 1 of domU's 18
        assertEquals(List.of("6", "33.3333", "0", "rcv22", "checksum"), row(domU, "0", "rcv22", "checksum"));
        assertEquals(List.of("2", "11.1111", "1", "rcv22", "checksum"), row(domU, "1", "rcv22", "checksum"));
        // rcv22: checksum 6 + main 1 on vCPU 0, parse 3 + checksum 2 on vCPU 1
        assertEquals(List.of("7", "38.8889", "0", "rcv22"), row(domU, "0", "rcv22"));
        assertEquals(List.of("5", "27.7778", "1", "rcv22"), row(domU, "1", "rcv22"));
    }

    @Test
    void withoutVcpuTheVcpusOfADomainAreAddedUp() throws Exception {
        String domU = section(Reports.render(new StackSession(40).completed(), 40, StackSession.DOMU), "domU-rcv");
        assertEquals(List.of("8", "44.4444", "rcv22", "checksum"), row(domU, "rcv22", "checksum"));
        assertFalse(table(domU, "Symbol summary").get(0).contains("vcpu"));
    }

    @Test
    void theMergedReportWithVcpuHasDomainAndVcpuColumns() throws Exception {
        String merged = section(all(new StackSession(40).completed(), "vcpu"), "All domains, merged");
        assertEquals(List.of("samples", "%", "domain", "vcpu", "image name"),
                Reports.cells(table(merged, "Image summary:").get(0)));
        assertEquals(List.of("5", "20.8333", "domU-rcv", "1", "rcv22"), row(merged, "domU-rcv", "1", "rcv22"));
    }

    @Test
    void vcpuTruthIsMatchedToTheVcpuOfEachTruthRow() throws Exception {
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(net.info);
        c.samples(new Batches(3).stack(4, NetworkSession.DOMU, 1, CpuMode.USER, 0, 0x10, net.rcv22, net.main)
                .stack(4, NetworkSession.DOMU, 0, CpuMode.USER, 0, 0x10, net.rcv22, net.main).build());
        c.sessionEnded(net.summary(new org.hyperprof.api.sample.GroundTruth(List.of(
                new org.hyperprof.api.sample.GroundTruth.Row(NetworkSession.DOMU, 1, CpuMode.USER, "rcv22",
                        org.hyperprof.api.sample.ImageKind.USER, "main", cycles(3000)),
                new org.hyperprof.api.sample.GroundTruth.Row(NetworkSession.DOMU, 0, CpuMode.USER, "rcv22",
                        org.hyperprof.api.sample.ImageKind.USER, "main", cycles(1000)))),
                org.hyperprof.api.sample.SessionSummary.COMPLETED));
        String domU = section(all(c, "vcpu"), "domU-rcv (domain 1");
        assertEquals(List.of("4", "50.0000", "75.0000", "-25.0000", "1", "rcv22", "main"),
                row(domU, "1", "rcv22", "main"));
        assertEquals(List.of("4", "50.0000", "25.0000", "+25.0000", "0", "rcv22", "main"),
                row(domU, "0", "rcv22", "main"));
    }

    private static long[] cycles(long milli) {
        long[] signals = new long[org.hyperprof.api.pmu.Signal.COUNT];
        signals[org.hyperprof.api.pmu.Signal.CYCLES.ordinal()] = milli;
        return signals;
    }

    @Test
    void vcpuAndMergeVcpuContradictEachOther() {
        ReportException e = assertThrows(ReportException.class, () -> all(opreport, "vcpu", "merge=vcpu"));
        assertTrue(e.getMessage().startsWith("options 'vcpu' and 'merge=vcpu' contradict each other"), e.getMessage());
        assertThrows(ReportException.class, () -> all(opreport, "vcpu", "merge=all"));
    }

    @Test
    void vcpuWithMergeDomainIsRefusedBecauseVcpusOfDifferentDomainsAreDifferentProcessors() {
        ReportException e = assertThrows(ReportException.class, () -> all(opreport, "vcpu", "merge=domain"));
        assertTrue(e.getMessage().contains("vCPU 0 of one domain and vCPU 0 of another are different processors"),
                e.getMessage());
    }

    @Test
    void somethingOpreportCannotMergeIsRefusedWithWhatItCan() {
        ReportException e = assertThrows(ReportException.class, () -> all(opreport, "merge=lib"));
        assertEquals("option 'merge=lib': 'lib' is not something opreport can merge; merge= takes domain, vcpu (or"
                + " cpu) or all, comma-separated (OProfile's lib, tid and tgid have no counterpart here)",
                e.getMessage());
        ReportException empty = assertThrows(ReportException.class, () -> all(opreport, "merge="));
        assertTrue(empty.getMessage().contains("say what to merge, e.g. merge=domain"), empty.getMessage());
    }

    @Test
    void globalMakesADomainsRowsPercentOfTheWholeProfile() throws Exception {
        String domU = section(all(opreport, "global", "notruth"), "domU-rcv (domain 1");
        assertTrue(domU.startsWith("domU-rcv (domain 1, active): its own report (% of the samples of every profiled"
                + " domain together)"), domU);
        // tcp_v4_rcv: 25 of the 150 samples of both domains (of domU's own 50 it would be 50 %)
        assertEquals(List.of("25", "16.6667", "vmlinux-xenU", "tcp_v4_rcv"),
                row(domU, "vmlinux-xenU", "tcp_v4_rcv"));
    }

    @Test
    void globalTruthIsOfTheWholePopulationToo() throws Exception {
        String domU = section(all(opreport, "global"), "domU-rcv (domain 1");
        // tcp_v4_rcv: truth 20000 of 150000 milli-cycles
        assertEquals(List.of("25", "16.6667", "13.3333", "+3.3333", "vmlinux-xenU", "tcp_v4_rcv"),
                row(domU, "vmlinux-xenU", "tcp_v4_rcv"));
    }
}
