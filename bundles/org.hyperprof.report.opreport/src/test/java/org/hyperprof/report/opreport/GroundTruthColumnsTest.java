package org.hyperprof.report.opreport;

import org.hyperprof.testing.sample.TestDictionary;
import static org.hyperprof.report.opreport.NetworkSession.DOM0;
import static org.hyperprof.report.opreport.NetworkSession.DOMU;
import static org.hyperprof.report.opreport.NetworkSession.truthRow;
import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.row;
import static org.hyperprof.report.opreport.Reports.section;
import static org.hyperprof.report.opreport.Reports.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/** The true share and the error of every row, and the population the truth is over. */
class GroundTruthColumnsTest {

    private final NetworkSession net = new NetworkSession(3);
    private final OpreportConsumer opreport = net.completed();

    @Test
    void eachRowShowsSampledPercentTruePercentAndTheErrorInPercentagePoints() throws Exception {
        String merged = section(all(opreport), "All domains, merged");
        assertEquals(List.of("samples", "%", "true %", "error", "domain", "image name", "symbol name"),
                Reports.cells(table(merged, "Symbol summary").get(0)));
        // 30 of 150 samples; 28000 of 150000 true milli-cycles of the profiled domains
        assertEquals(List.of("30", "20.0000", "18.6667", "+1.3333", "Domain-0", "xen-syms", "find_domain_by_id"),
                row(merged, "Domain-0", "xen-syms", "find_domain_by_id"));
        assertEquals(List.of("15", "10.0000", "12.0000", "-2.0000", "domU-rcv", "rcv22"),
                row(merged, "domU-rcv", "rcv22"));
    }

    @Test
    void aDomainsOwnReportMeasuresTruthAgainstThatDomainAlone() throws Exception {
        String dom0 = section(all(opreport), "Domain-0 (domain 0");
        assertEquals(List.of("30", "30.0000", "28.0000", "+2.0000", "xen-syms", "find_domain_by_id"),
                row(dom0, "xen-syms", "find_domain_by_id"));
        assertEquals(List.of("15", "15.0000", "25.0000", "-10.0000", "vmlinux-xen0", "netif_rx"),
                row(dom0, "vmlinux-xen0", "netif_rx"));
        assertEquals(List.of("10", "10.0000", "0.0000", "+10.0000", "vmlinux-xen0", "(no symbols)"),
                row(dom0, "vmlinux-xen0", "(no symbols)"));
    }

    @Test
    void theIdleDomainAndUnprofiledDomainsAreOutsideThePopulation() throws Exception {
        String report = all(opreport);
        String merged = section(report, "All domains, merged");
        // 20000 of 150000: neither the idle domain's 1000000 nor domain 2's 500000 count
        assertEquals("13.3333", row(merged, "domU-rcv", "vmlinux-xenU", "tcp_v4_rcv").get(2));
        assertFalse(report.contains("idle_loop"), report);
        assertFalse(report.contains("domU-spare"), report);
        assertTrue(report.contains("over all rows of the profiled domains 0 (Domain-0), 1 (domU-rcv);"), report);
        assertTrue(report.contains("Xen drops the samples of the idle domain and of unprofiled domains before any"
                + " buffer, so their events are outside both sampled % and true %"), report);
    }

    @Test
    void trueSharesOfTheImageSummaryAddUpToAHundred() throws Exception {
        String merged = section(all(opreport), "All domains, merged");
        double sum = 0;
        for (String line : table(merged, "Image summary:").subList(1, 7)) {
            sum += Double.parseDouble(Reports.cells(line).get(2));
        }
        assertEquals(100.0, sum, 0.001);
    }

    @Test
    void theSplitLineGivesSampledAndTrueSharesPerDomain() throws Exception {
        String report = all(opreport);
        assertTrue(section(report, "All domains, merged").contains(
                "hypervisor/kernel/user split: sampled 40.00/50.00/10.00 %, true 41.33/46.67/12.00 %"), report);
        assertTrue(section(report, "domU-rcv (domain 1").contains(
                "hypervisor/kernel/user split: sampled 20.00/50.00/30.00 %, true 24.00/40.00/36.00 %"), report);
        assertTrue(section(report, "Domain-0 (domain 0").contains(
                "hypervisor/kernel/user split: sampled 50.00/50.00/0.00 %, true 50.00/50.00/0.00 %"), report);
    }

    @Test
    void eachCounterIsComparedWithTheTruthOfItsOwnSignal() throws Exception {
        NetworkSession two = new NetworkSession(4, NetworkSession.CYCLES_100000, NetworkSession.INSTRUCTIONS_50000);
        String merged = section(all(two.completed()), "All domains, merged");
        assertEquals(List.of("samples", "%", "true %", "error", "samples", "%", "true %", "error", "domain",
                "image name"), Reports.cells(table(merged, "Image summary:").get(0)));
        // instructions: dom0 xen-syms 2000 of 10000 milli-instructions
        assertEquals(List.of("50", "33.3333", "33.3333", "+0.0000", "50", "33.3333", "20.0000", "+13.3333",
                "Domain-0", "xen-syms"), row(merged, "Domain-0", "xen-syms"));
        assertTrue(merged.contains("counter 1 (INST_RETIRED) hypervisor/kernel/user split: sampled 40.00/50.00/10.00 %,"
                + " true 30.00/30.00/40.00 %"), merged);
    }

    @Test
    void beforeTheSessionEndsRowsArePrintedWithoutTruthAndTheReportSaysWhenItComes() throws Exception {
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(net.info);
        c.samples(net.batch(0));
        String report = all(c);
        assertEquals(List.of("samples", "%", "domain", "image name"),
                Reports.cells(table(section(report, "All domains"), "Image summary:").get(0)));
        assertTrue(report.contains("true %: the ground truth arrives when the session ends"), report);
    }

    @Test
    void notruthLeavesTheTruthColumnsOut() throws Exception {
        String report = all(opreport, "notruth");
        assertFalse(report.contains("true %"), report);
        assertFalse(report.contains("error"), report);
    }

    @Test
    void askingForTruthOfASourceWithoutItSaysSo() throws Exception {
        SessionInfo recorded = new SessionInfo(12, "perf.data", "big.data", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(), false, net.dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(recorded);
        c.samples(new Batches(12).add(4, DOM0, CpuMode.KERNEL, 0, net.e1000, net.e1000Intr).build());
        c.sessionEnded(new SessionSummary(12, new Accounting(4, 4, 0, 0, 0), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED));
        String report = all(c, "truth");
        assertTrue(report.contains("true %: not available, the source 'perf.data' has no ground truth."), report);
        assertFalse(all(c).contains("true %"), "not asked for, not mentioned");
    }

    @Test
    void eventsTheProfileNeverSampledAppearAsRowsWithZeroSamples() throws Exception {
        List<GroundTruth.Row> rows = new ArrayList<>(net.truth().rows());
        rows.add(truthRow(DOMU, CpuMode.USER, "libc.so.6", ImageKind.USER, "memcpy", 50000, 0));
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(net.info);
        c.samples(net.batch(0));
        c.sessionEnded(net.summary(new GroundTruth(rows), SessionSummary.COMPLETED));
        String domU = section(all(c), "domU-rcv (domain 1");
        // domU's truth is now 100000: 50000 in an image without a single sample
        assertEquals(List.of("0", "0.0000", "50.0000", "-50.0000", "libc.so.6"), row(domU, "libc.so.6"));
        assertEquals(List.of("0", "0.0000", "50.0000", "-50.0000", "libc.so.6", "memcpy"),
                row(domU, "libc.so.6", "memcpy"));
    }

    @Test
    void passiveDomainTruthIsShownUnderItsPseudoImages() throws Exception {
        TestDictionary dictionary = new TestDictionary();
        int xen = dictionary.image(DOM0, "xen-syms", ImageKind.HYPERVISOR);
        int passiveXen = dictionary.image(DOM0, "domain1-xen", ImageKind.HYPERVISOR);
        int passiveKernel = dictionary.image(DOM0, "domain1-kernel", ImageKind.KERNEL);
        int passiveApps = dictionary.image(DOM0, "domain1-apps", ImageKind.USER);
        int schedule = dictionary.symbol(xen, "schedule");
        SessionInfo info = new SessionInfo(20, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(DOM0, "Domain-0", DOMU, "domU-rcv"), true, dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(20).add(10, DOM0, CpuMode.HYPERVISOR, 0, xen, schedule)
                .add(5, DOMU, CpuMode.HYPERVISOR, 0, passiveXen, -1)
                .add(20, DOMU, CpuMode.KERNEL, 0, passiveKernel, -1)
                .add(15, DOMU, CpuMode.USER, 0, passiveApps, -1).build());
        GroundTruth truth = new GroundTruth(List.of(
                truthRow(DOM0, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "schedule", 10000, 0),
                truthRow(DOMU, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "do_grant_table_op", 10000, 0),
                truthRow(DOMU, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "tcp_v4_rcv", 15000, 0),
                truthRow(DOMU, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "skb_copy_bits", 5000, 0),
                truthRow(DOMU, CpuMode.USER, "rcv22", ImageKind.USER, "main", 20000, 0)));
        c.sessionEnded(new SessionSummary(20, new Accounting(50, 50, 0, 0, 0), List.of(
                new BufferAccounting(DOM0, 0, "active", new Accounting(10, 10, 0, 0, 0), 0, 0, 10, 10, 0),
                new BufferAccounting(DOMU, 0, "passive", new Accounting(40, 40, 0, 0, 0), 15, 20, 5, 40, 0)),
                List.of(), null, truth, 1000, SessionSummary.COMPLETED));
        String domU = section(all(c), "domU-rcv (domain 1, passive)");
        // domU's 40 samples and 50000 milli-cycles: kernel 20000 under domain1-kernel, user 20000 under
        // domain1-apps, Xen work 10000 under domain1-xen
        assertEquals(List.of("20", "50.0000", "40.0000", "+10.0000", "domain1-kernel", "(no symbols)"),
                row(domU, "domain1-kernel", "(no symbols)"));
        assertEquals(List.of("15", "37.5000", "40.0000", "-2.5000", "domain1-apps"), row(domU, "domain1-apps"));
        assertEquals(List.of("5", "12.5000", "20.0000", "-7.5000", "domain1-xen"), row(domU, "domain1-xen"));
        assertFalse(domU.contains("vmlinux-xenU"), domU);
    }

    @Test
    void truthOfAnImageResolvedWithoutSymbolsGoesToItsNoSymbolsRow() throws Exception {
        TestDictionary dictionary = new TestDictionary();
        int stripped = dictionary.image(DOM0, "bridge", ImageKind.MODULE);
        SessionInfo info = new SessionInfo(21, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(DOM0, "Domain-0"), true, dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(21).add(8, DOM0, CpuMode.KERNEL, 0, stripped, -1).build());
        c.sessionEnded(new SessionSummary(21, new Accounting(8, 8, 0, 0, 0),
                List.of(new BufferAccounting(DOM0, 0, "active", new Accounting(8, 8, 0, 0, 0), 0, 8, 0, 8, 0)),
                List.of(), null, new GroundTruth(List.of(
                        truthRow(DOM0, CpuMode.KERNEL, "bridge", ImageKind.MODULE, "br_handle_frame", 3000, 0),
                        truthRow(DOM0, CpuMode.KERNEL, "bridge", ImageKind.MODULE, "br_forward", 1000, 0))),
                1000, SessionSummary.COMPLETED));
        String dom0 = section(all(c), "Domain-0 (domain 0");
        assertEquals(List.of("8", "100.0000", "100.0000", "+0.0000", "bridge", "(no symbols)"),
                row(dom0, "bridge", "(no symbols)"));
        assertFalse(dom0.contains("br_forward"), dom0);
    }

    @Test
    void aCounterOfAnEventTheSimulatorNeverEmitsHasNoTrueShare() throws Exception {
        EventDescriptor silent = new EventDescriptor("EMON_KNI_PREF_DISPATCHED", 0x07, 0b11, 3000,
                NetworkSession.NO_MASK, null, "number of KNI pre-fetch/weakly ordered insns dispatched");
        NetworkSession n = new NetworkSession(22, new CounterConfig(0, silent, 3000, 0, true, true));
        String merged = section(all(n.completed()), "All domains, merged");
        assertEquals(List.of("30", "20.0000", "-", "-", "Domain-0", "xen-syms", "find_domain_by_id"),
                row(merged, "Domain-0", "xen-syms", "find_domain_by_id"));
        assertTrue(all(n.completed()).contains("EMON_KNI_PREF_DISPATCHED = nothing the simulator emits"));
    }

    @Test
    void aCounterFilteredToOneModeIsFlaggedBecauseTheTruthCountsEveryMode() throws Exception {
        NetworkSession n = new NetworkSession(23,
                new CounterConfig(0, NetworkSession.CPU_CLK_UNHALTED, 100000, 0, false, true));
        assertTrue(all(n.completed()).contains("counter 0 counts only USR (CPL > 0) while the truth counts every"
                + " privilege level; its errors include that filter."));
    }

    @Test
    void aGuestsOwnProfileIsHeldAgainstItsCodePlusTheHypervisorsWorkOnItsBehalf() throws Exception {
        TestDictionary dictionary = new TestDictionary();
        int kernel = dictionary.image(DOMU, "vmlinux-xenU", ImageKind.KERNEL);
        int tcp = dictionary.symbol(kernel, "tcp_v4_rcv");
        int copy = dictionary.symbol(kernel, "skb_copy_bits");
        SessionInfo info = new SessionInfo(24, "guest profiler", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(DOMU, "domU-rcv"), true, dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(24).add(30, DOMU, CpuMode.KERNEL, 0, kernel, tcp)
                .add(10, DOMU, CpuMode.KERNEL, 0, kernel, copy).build());
        // domU ran 15000 + 5000 of its own; the hypervisor worked 20000 for it, all entered from tcp_v4_rcv.
        GroundTruth truth = new GroundTruth(List.of(
                truthRow(DOMU, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "do_grant_table_op", 20000, 0),
                truthRow(DOMU, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "tcp_v4_rcv", 15000, 0),
                truthRow(DOMU, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "skb_copy_bits", 5000, 0)),
                List.of(truthRow(DOMU, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "tcp_v4_rcv", 20000, 0)));
        c.sessionEnded(new SessionSummary(24, new Accounting(40, 40, 0, 0, 0), List.of(
                new BufferAccounting(DOMU, 0, "guest", new Accounting(40, 40, 0, 0, 0), 0, 40, 0, 40, 0)),
                List.of(), null, truth, 1000, SessionSummary.COMPLETED));
        String domU = section(all(c), "domU-rcv (domain 1");
        assertEquals(List.of("30", "75.0000", "87.5000", "-12.5000", "vmlinux-xenU", "tcp_v4_rcv"),
                row(domU, "vmlinux-xenU", "tcp_v4_rcv"));
        assertEquals(List.of("10", "25.0000", "12.5000", "+12.5000", "vmlinux-xenU", "skb_copy_bits"),
                row(domU, "vmlinux-xenU", "skb_copy_bits"));
        assertFalse(domU.contains("do_grant_table_op"), "no hypervisor row: the guest never sees a hypervisor PC");
    }
}
