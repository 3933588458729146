package org.hyperprof.report.opreport;

import org.hyperprof.testing.sample.TestDictionary;
import static org.hyperprof.report.opreport.Reports.section;
import static org.hyperprof.report.opreport.Reports.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.junit.jupiter.api.Test;

/** details: each symbol's samples per PC under its row, as opreport -d. */
class DetailsTest {

    private final StackSession stacks = new StackSession(40);
    private final OpreportConsumer opreport = stacks.completed();

    private String domU(String... options) throws Exception {
        return section(Reports.render(opreport, 40, StackSession.DOMU, options), "domU-rcv");
    }

    @Test
    void eachSymbolRowIsFollowedByItsSamplesPerPcWithPercentOfTheSymbol() throws Exception {
        List<String> symbols = table(domU("details"), "Symbol summary");
        assertEquals(List.of(
                "vma         samples  %         image name    symbol name",
                "            8        44.4444   rcv22         checksum",
                "  08048410  5        62.5000",
                "  08048414  3        37.5000",
                "            4        22.2222   vmlinux-xenU  tcp_v4_rcv",
                "  c0300000  4        100.0000",
                "            3        16.6667   rcv22         parse",
                "  08048300  3        100.0000",
                "            2        11.1111   vmlinux-xenU  ip_rcv",
                "  c0200000  2        100.0000",
                "            1        5.5556    rcv22         main",
                "  08048200  1        100.0000"), symbols);
    }

    @Test
    void detailsImplyTheSymbolSummaryAlone() throws Exception {
        String domU = domU("details");
        assertFalse(domU.contains("Image summary:"), domU);
        assertTrue(domU.contains("Symbol summary (all 5 rows; under each, its samples per PC (vma), % of the"
                + " symbol's samples):"), domU);
    }

    @Test
    void withGlobalThePerPcPercentagesAreOfTheWholeProfile() throws Exception {
        List<String> symbols = table(domU("details", "global"), "Symbol summary");
        // checksum's 5 samples at 0x08048410 of all 24
        assertEquals(List.of("08048410", "5", "20.8333"), Reports.cells(symbols.get(2)));
    }

    @Test
    void withVcpuEachVcpusRowHasItsOwnAddresses() throws Exception {
        List<String> symbols = table(domU("details", "vcpu"), "Symbol summary");
        int checksum1 = symbols.indexOf("            2        11.1111   1     rcv22         checksum");
        assertTrue(checksum1 > 0, String.join("\n", symbols));
        assertEquals(List.of("08048414", "2", "100.0000"), Reports.cells(symbols.get(checksum1 + 1)));
    }

    @Test
    void addressesAreLowestFirstAndAbove32BitsTakeSixteenDigits() throws Exception {
        TestDictionary dictionary = new TestDictionary();
        int xen = dictionary.image(0, "xen-syms", ImageKind.HYPERVISOR);
        int schedule = dictionary.symbol(xen, "schedule");
        SessionInfo info = new SessionInfo(50, "simulator", "h", "x86-64/hammer", "Opteron", 2000,
                List.of(NetworkSession.CYCLES_100000), Map.of(0, "Domain-0"), false, dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(50).stack(1, 0, 0, CpuMode.HYPERVISOR, 0, 0xffff82d080200040L, xen, schedule)
                .stack(3, 0, 0, CpuMode.HYPERVISOR, 0, 0xffff82d080200008L, xen, schedule).build());
        List<String> symbols = table(section(Reports.all(c, "details"), "Domain-0"), "Symbol summary");
        assertEquals("  ffff82d080200008  3        75.0000", symbols.get(2));
        assertEquals("  ffff82d080200040  1        25.0000", symbols.get(3));
        assertEquals("00001000", OpreportText.vma(0x1000));
    }

    @Test
    void addressesBeyondTheBoundCountInTheirSymbolRowWithoutAPerPcLine() throws Exception {
        SessionAggregate aggregate = new SessionAggregate(stacks.info, 3, SessionAggregate.MAX_ARCS);
        aggregate.accept(stacks.batch());
        String report = CallGraphTest.render(aggregate, StackSession.DOMU, "details");
        assertTrue(report.contains("opreport: the details keep 3 distinct (symbol, PC) addresses per session; 13"
                + " samples at other addresses count in their symbol rows but have no per-PC line"), report);
        List<String> symbols = table(report, "Symbol summary");
        assertEquals(List.of("8", "44.4444", "rcv22", "checksum"), Reports.cells(symbols.get(1)));
        assertEquals(List.of("08048410", "5", "62.5000"), Reports.cells(symbols.get(2)));
    }
}
