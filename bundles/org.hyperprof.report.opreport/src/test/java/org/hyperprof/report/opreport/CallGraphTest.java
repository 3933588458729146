package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.row;
import static org.hyperprof.report.opreport.Reports.section;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.kit.SessionShelf;
import org.hyperprof.testing.sample.TestDictionary;
import org.junit.jupiter.api.Test;

/** The call graph in opreport -c's layout, built from the sample batches' call chains. */
class CallGraphTest {

    private static final String RULE = "-".repeat(79);

    private final StackSession stacks = new StackSession(40);
    private final OpreportConsumer opreport = stacks.completed();

    /** The call-graph table of a report section: from its heading line to the last rule. */
    private static List<String> graph(String section) {
        List<String> lines = Arrays.asList(section.split("\n"));
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("Call graph (")) {
                start = i + 1;
                break;
            }
        }
        assertTrue(start > 0, "no call graph in:\n" + section);
        int end = lines.size();
        while (!lines.get(end - 1).equals(RULE)) {
            end--;
        }
        return lines.subList(start, end);
    }

    private String domU(String... options) throws Exception {
        List<String> all = new ArrayList<>(List.of(options));
        all.add("callgraph");
        return section(Reports.render(opreport, 40, StackSession.DOMU, all.toArray(String[]::new)), "domU-rcv");
    }

    @Test
    void aDomainsCallGraphHasOprofilesBlockLayoutExactly() throws Exception {
        assertEquals(List.of(
                "samples  %         image name    symbol name",
                RULE,
                "  6      75.0000   rcv22         parse",
                "  2      25.0000   rcv22         main",
                "8        44.4444   rcv22         checksum",
                "  8      100.0000  rcv22         checksum [self]",
                RULE,
                "  4      100.0000  vmlinux-xenU  ip_rcv",
                "4        22.2222   vmlinux-xenU  tcp_v4_rcv",
                "  4      100.0000  vmlinux-xenU  tcp_v4_rcv [self]",
                RULE,
                "  9      100.0000  rcv22         main",
                "3        16.6667   rcv22         parse",
                "  6      66.6667   rcv22         checksum",
                "  3      33.3333   rcv22         parse [self]",
                RULE,
                "  6      100.0000  vmlinux-xenU  netif_receive_skb",
                "2        11.1111   vmlinux-xenU  ip_rcv",
                "  4      66.6667   vmlinux-xenU  tcp_v4_rcv",
                "  2      33.3333   vmlinux-xenU  ip_rcv [self]",
                RULE,
                "1        5.5556    rcv22         main",
                "  9      75.0000   rcv22         parse",
                "  2      16.6667   rcv22         checksum",
                "  1      8.3333    rcv22         main [self]",
                RULE,
                "0        0.0000    vmlinux-xenU  netif_receive_skb",
                "  6      100.0000  vmlinux-xenU  ip_rcv",
                "  0      0.0000    vmlinux-xenU  netif_receive_skb [self]",
                RULE), graph(domU()));
    }

    @Test
    void blocksAreSeparatedByALineOfSeventyNineDashes() throws Exception {
        List<String> graph = graph(domU());
        long rules = graph.stream().filter(l -> l.equals(RULE)).count();
        long symbolLines = graph.stream().skip(1).filter(l -> !l.startsWith(" ") && !l.equals(RULE)).count();
        assertEquals(79, RULE.length());
        assertEquals(symbolLines + 1, rules, "one rule before each block and one after the last");
        assertEquals(RULE, graph.get(1));
    }

    @Test
    void callersAndCalleesAreIndentedTwoSpacesAndTheSymbolIsNot() throws Exception {
        List<String> graph = graph(domU());
        int symbol = graph.indexOf("3        16.6667   rcv22         parse");
        assertTrue(graph.get(symbol - 1).startsWith("  9 "), "caller main above parse");
        assertTrue(graph.get(symbol + 1).startsWith("  6 "), "callee checksum below parse");
        assertFalse(graph.get(symbol).startsWith(" "));
    }

    @Test
    void theSymbolLineGivesItsSelfSamplesAsPercentOfTheSection() throws Exception {
        // checksum is the leaf of 8 of domU's 18 samples
        assertEquals(List.of("8", "44.4444", "rcv22", "checksum"), firstRow(domU(), "rcv22", "checksum"));
    }

    @Test
    void callerPercentagesAreOfTheSymbolsTotalCallerCount() throws Exception {
        List<String> graph = graph(domU());
        // checksum was called 6 times from parse and 2 times from main: 75 % and 25 % of its 8 calls
        assertEquals("  6      75.0000   rcv22         parse", graph.get(2));
        assertEquals("  2      25.0000   rcv22         main", graph.get(3));
    }

    @Test
    void selfTimeIsACalleeEntryMarkedSelfAndCalleesArePercentOfCalleesAndSelf() throws Exception {
        List<String> graph = graph(domU());
        int main = graph.indexOf("1        5.5556    rcv22         main");
        // main: callees parse 9, checksum 2, self 1 = 12
        assertEquals(List.of("  9      75.0000   rcv22         parse", "  2      16.6667   rcv22         checksum",
                "  1      8.3333    rcv22         main [self]"), graph.subList(main + 1, main + 4));
    }

    @Test
    void withGlobalEveryPercentageIsOfTheWholeProfile() throws Exception {
        List<String> graph = graph(domU("global"));
        // 24 samples over both domains
        assertEquals("  6      25.0000  rcv22         parse", graph.get(2));
        assertEquals("8        33.3333  rcv22         checksum", graph.get(4));
        assertEquals("  8      33.3333  rcv22         checksum [self]", graph.get(5));
    }

    @Test
    void blocksComeInOrderOfSelfSamples() throws Exception {
        List<String> symbols = graph(domU()).stream().skip(1).filter(l -> !l.startsWith(" ") && !l.equals(RULE))
                .map(l -> Reports.cells(l).get(3)).toList();
        assertEquals(List.of("checksum", "tcp_v4_rcv", "parse", "ip_rcv", "main", "netif_receive_skb"), symbols);
    }

    @Test
    void eachArcOfAKnownSetOfStacksIsCountedOncePerOccurrence() {
        SessionAggregate aggregate = new SessionAggregate(stacks.info);
        aggregate.accept(stacks.batch());
        StackSession s = stacks;
        int u = StackSession.DOMU;
        assertEquals(9, aggregate.arcSamples(u, 0, s.main, s.rcv22, s.parse, s.rcv22));
        assertEquals(2, aggregate.arcSamples(u, 0, s.main, s.rcv22, s.checksum, s.rcv22));
        assertEquals(6, aggregate.arcSamples(u, 0, s.parse, s.rcv22, s.checksum, s.rcv22));
        assertEquals(6, aggregate.arcSamples(u, 0, s.netif, s.kernel, s.ipRcv, s.kernel));
        assertEquals(4, aggregate.arcSamples(u, 0, s.ipRcv, s.kernel, s.tcpRcv, s.kernel));
        assertEquals(0, aggregate.arcSamples(u, 0, s.checksum, s.rcv22, s.parse, s.rcv22), "callee never calls");
        assertEquals(4, aggregate.arcSamples(StackSession.DOM0, 0, s.grantTableOp, s.xen, s.gnttabCopy, s.xen));
        assertEquals(11, aggregate.callerOnlySamples(u, 0, s.main, s.rcv22), "main above the leaf in 11 stacks");
    }

    @Test
    void inclusiveSamplesCountTheSymbolWithEverythingItCalled() throws Exception {
        List<String> inclusive = Reports.table(domU(), "Inclusive samples");
        assertEquals(List.of("12", "66.6667", "rcv22", "main"), Reports.cells(inclusive.get(1)));
        assertEquals(List.of("9", "50.0000", "rcv22", "parse"), Reports.cells(inclusive.get(2)));
        assertEquals(List.of("6", "33.3333", "vmlinux-xenU", "netif_receive_skb"),
                row(String.join("\n", inclusive), "vmlinux-xenU", "netif_receive_skb"));
    }

    @Test
    void aRecursiveSymbolGetsEveryArcButCountsOnceTowardsItsInclusiveSamples() throws Exception {
        TestDictionary dictionary = new TestDictionary();
        int app = dictionary.image(0, "fibd", ImageKind.USER);
        int main = dictionary.symbol(app, "main");
        int fib = dictionary.symbol(app, "fib");
        SessionInfo info = new SessionInfo(41, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(0, "Domain-0"), false, dictionary);
        SessionAggregate aggregate = new SessionAggregate(info);
        aggregate.accept(new Batches(41).stack(2, 0, 0, CpuMode.USER, 0, 0x8000, app, fib, app, fib, app, fib, app,
                main).build());
        assertEquals(4, aggregate.arcSamples(0, 0, fib, app, fib, app), "fib<-fib twice per stack");
        assertEquals(2, aggregate.arcSamples(0, 0, main, app, fib, app));
        assertEquals(0, aggregate.callerOnlySamples(0, 0, fib, app), "fib is the leaf already");
        String graph = String.join("\n", graph(render(aggregate, 0, "callgraph")));
        // fib's block: callers fib 4 and main 2; self 2; callees fib 4 and [self] 2
        assertTrue(graph.contains("  4      66.6667   fibd        fib\n  2      33.3333   fibd        main\n"
                + "2        100.0000  fibd        fib\n  4      66.6667   fibd        fib\n"
                + "  2      33.3333   fibd        fib [self]"), graph);
        List<String> inclusive = Reports.table(render(aggregate, 0, "callgraph"), "Inclusive samples");
        assertEquals(List.of("2", "100.0000", "fibd", "fib"), row(String.join("\n", inclusive), "fibd", "fib"));
    }

    @Test
    void theMergedReportsCallGraphNamesEachRowsDomain() throws Exception {
        String merged = section(all(opreport, "callgraph"), "All domains, merged");
        List<String> graph = graph(merged);
        assertEquals(List.of("samples", "%", "domain", "image name", "symbol name"), Reports.cells(graph.get(0)));
        assertTrue(graph.contains("4        16.6667   Domain-0  xen-syms      gnttab_copy"), merged);
        assertTrue(graph.contains("  4      100.0000  Domain-0  xen-syms      do_grant_table_op"), merged);
    }

    @Test
    void mergeDomainAddsUpTheArcsOfTheSameFunctionsInEveryDomain() throws Exception {
        TestDictionary dictionary = new TestDictionary();
        int xen0 = dictionary.image(0, "xen-syms", ImageKind.HYPERVISOR);
        int copy0 = dictionary.symbol(xen0, "gnttab_copy");
        int op0 = dictionary.symbol(xen0, "do_grant_table_op");
        int xen1 = dictionary.image(1, "xen-syms", ImageKind.HYPERVISOR);
        int copy1 = dictionary.symbol(xen1, "gnttab_copy");
        int op1 = dictionary.symbol(xen1, "do_grant_table_op");
        SessionInfo info = new SessionInfo(42, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(0, "Domain-0", 1, "domU"), false, dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(42).stack(3, 0, 0, CpuMode.HYPERVISOR, 0, 0xFF10, xen0, copy0, xen0, op0)
                .stack(1, 1, 0, CpuMode.HYPERVISOR, 0, 0xFF10, xen1, copy1, xen1, op1).build());
        List<String> graph = graph(section(all(c, "callgraph", "merge=domain"), "All domains, merged"));
        assertEquals(List.of("samples  %         image name  symbol name", RULE,
                "  4      100.0000  xen-syms    do_grant_table_op",
                "4        100.0000  xen-syms    gnttab_copy",
                "  4      100.0000  xen-syms    gnttab_copy [self]", RULE,
                "0        0.0000    xen-syms    do_grant_table_op",
                "  4      100.0000  xen-syms    gnttab_copy",
                "  0      0.0000    xen-syms    do_grant_table_op [self]", RULE), graph);
    }

    @Test
    void withVcpuEachVcpuHasItsOwnBlocksAndArcs() throws Exception {
        List<String> graph = graph(domU("vcpu"));
        assertEquals(List.of("samples", "%", "vcpu", "image name", "symbol name"), Reports.cells(graph.get(0)));
        int checksum0 = graph.indexOf("6        33.3333   0     rcv22         checksum");
        assertEquals("  6      100.0000  0     rcv22         parse", graph.get(checksum0 - 1));
        int checksum1 = graph.indexOf("2        11.1111   1     rcv22         checksum");
        assertEquals("  2      100.0000  1     rcv22         main", graph.get(checksum1 - 1));
    }

    @Test
    void eachCounterGetsItsOwnSamplesAndPercentColumns() throws Exception {
        StackSession two = new StackSession(43);
        SessionInfo info = new SessionInfo(43, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000, NetworkSession.INSTRUCTIONS_50000),
                Map.of(StackSession.DOMU, "domU-rcv"), false, two.dictionary);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(43).stack(3, 1, 0, CpuMode.USER, 0, 0x10, two.rcv22, two.parse, two.rcv22, two.main)
                .stack(1, 1, 0, CpuMode.USER, 1, 0x10, two.rcv22, two.parse, two.rcv22, two.main).build());
        List<String> graph = graph(all(c, "callgraph"));
        assertEquals(List.of("samples", "%", "samples", "%", "domain", "image name", "symbol name"),
                Reports.cells(graph.get(0)));
        assertTrue(graph.contains("3        100.0000  1        100.0000  domU-rcv  rcv22       parse"),
                String.join("\n", graph));
    }

    @Test
    void topLimitsTheBlocksAndSaysHowManyItLeftOut() throws Exception {
        String domU = domU("top=2");
        assertTrue(domU.contains("Call graph (top 2 of 6 symbols"), domU);
        assertEquals(3, graph(domU).stream().filter(l -> l.equals(RULE)).count());
        assertTrue(domU.contains("... 4 more call-graph blocks not shown (top=N shows more)"), domU);
    }

    @Test
    void aSessionWithoutCallTracesSaysSoAndHowToGetThem() throws Exception {
        String report = all(new NetworkSession(3).completed(), "callgraph");
        assertTrue(section(report, "All domains, merged").contains("Call graph: no call traces in this session, no"
                + " sample carried a call chain; profile with a call-graph depth (--callgraph=N, which sets Xen's"
                + " backtrace depth) to record them"), report);
        assertFalse(report.contains(RULE), report);
    }

    @Test
    void aDomainWhoseStacksWereNeverWalkedSaysSoWhileOthersHaveTheirGraph() throws Exception {
        StackSession s = new StackSession(44);
        int dom0Kernel = s.dictionary.image(StackSession.DOM0, "vmlinux-xen0", ImageKind.KERNEL);
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(s.info);
        c.samples(new Batches(44).stack(2, StackSession.DOMU, 0, CpuMode.USER, 0, 0x10, s.rcv22, s.parse, s.rcv22,
                s.main).add(3, StackSession.DOM0, CpuMode.KERNEL, 0, dom0Kernel, -1).build());
        String report = all(c, "callgraph");
        assertTrue(section(report, "Domain-0").contains("Call graph: no call traces here; no sample of this domain"
                + " carried a caller"), report);
        assertTrue(section(report, "domU-rcv").contains("Call graph (all 2 symbols"), report);
    }

    @Test
    void aCallerOutsideTheDictionaryCutsTheChainThereAndIsCounted() throws Exception {
        SessionAggregate aggregate = new SessionAggregate(stacks.info);
        StackSession s = stacks;
        aggregate.accept(new Batches(40).stack(1, 1, 0, CpuMode.USER, 0, 0x10, s.rcv22, s.checksum, s.rcv22, s.parse,
                999, -1, s.rcv22, s.main).build());
        assertEquals(1, aggregate.arcSamples(1, 0, s.parse, s.rcv22, s.checksum, s.rcv22), "kept below the cut");
        assertEquals(0, aggregate.arcSamples(1, 0, s.main, s.rcv22, s.parse, s.rcv22), "nothing past the cut");
        String report = render(aggregate, "callgraph");
        assertTrue(report.contains("opreport: call chains on 1 samples (1 caller entries); dropped 2 caller entries"
                + " that do not check out against the dictionary (first: batch 1 sample 0: caller 2 image id 999 is"
                + " outside the dictionary's 3 images; the chain is cut there)"), report);
        assertEquals(1, aggregate.snapshot().samples(), "the sample itself counts");
    }

    @Test
    void aChainThatRunsOutsideTheBatchsEntriesIsCountedNotFollowed() throws Exception {
        SessionAggregate aggregate = new SessionAggregate(stacks.info);
        SampleBatch bad = new SampleBatch(40, 1, new int[] { 1 }, new int[] { 0 }, new byte[] { 0 }, new byte[] { 0 },
                new long[] { 0x10 }, new int[] { stacks.rcv22 }, new int[] { stacks.main }, new long[] { 1 }, new long[1],
                new int[1], new int[1], new int[1], new byte[1], new int[] { 0, 2 }, new long[2], new int[2],
                new int[2], new byte[2]);
        // The arrays are the source's: a faulty source can change them after the constructor checked them.
        bad.chainStart[1] = 5;
        aggregate.accept(bad);
        String report = render(aggregate, "callgraph");
        assertTrue(report.contains("dropped 5 caller entries that do not check out against the dictionary (first:"
                + " batch 1 sample 0: its chain runs from entry 0 to 5, outside the batch's 2 entries)"), report);
        assertEquals(1, aggregate.snapshot().samples());
    }

    @Test
    void arcsBeyondTheBoundAreLeftOutAndCounted() throws Exception {
        SessionAggregate aggregate = new SessionAggregate(stacks.info, SessionAggregate.MAX_ADDRESSES, 2);
        aggregate.accept(stacks.batch());
        String report = render(aggregate, "callgraph");
        assertTrue(report.contains("opreport: the call graph keeps 2 distinct caller-callee arcs per session; 16 arc"
                + " occurrences beyond them are left out of the callers and callees"), report);
    }

    private static List<String> firstRow(String text, String... names) {
        return row(String.join("\n", graph(text).stream().filter(l -> !l.startsWith(" ")).toList()), names);
    }

    /** The report of all domains, rendered straight from an aggregate. */
    static String render(SessionAggregate aggregate, String... options) throws Exception {
        return render(aggregate, ReportRequest.ALL_DOMAINS, options);
    }

    static String render(SessionAggregate aggregate, int domain, String... options) throws Exception {
        return new OpreportText(aggregate.snapshot(), ReportOptions.parse(Set.of(options)))
                .render(domain, SessionShelf.Strays.NONE);
    }
}
