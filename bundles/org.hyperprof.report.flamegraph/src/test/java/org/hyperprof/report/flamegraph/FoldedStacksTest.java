package org.hyperprof.report.flamegraph;

import org.hyperprof.testing.sample.TestDictionary;
import static org.hyperprof.report.flamegraph.Batches.caller;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.junit.jupiter.api.Test;

/** Folded stacks: Brendan Gregg's one line per distinct stack, root (the domain) first. */
class FoldedStacksTest {

    @Test
    void foldedLinesAreOnePerStackRootFirstInFrameOrder() throws Exception {
        assertEquals(NetworkStacks.FOLDED, Reports.folded(new NetworkStacks(1).completed()));
    }

    @Test
    void callChainsArePrintedFromTheOutermostCallerDownToTheSampledFunction() throws Exception {
        // The batch lists handle_irq_event before do_IRQ (innermost first); the line starts at do_IRQ.
        String text = Reports.folded(new NetworkStacks(1).completed());
        assertTrue(text.contains("Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k] 25\n"), text);
    }

    @Test
    void everyStackStartsWithItsDomainName() throws Exception {
        for (String line : Reports.folded(new NetworkStacks(1).completed()).split("\n")) {
            assertTrue(line.startsWith("Domain-0;") || line.startsWith("domU-rcv;"), line);
        }
    }

    @Test
    void identicalStacksFromSeparateBatchesMergeIntoOneLine() throws Exception {
        NetworkStacks n = new NetworkStacks(1);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.samples(n.batch());
        consumer.samples(n.batch());
        String text = Reports.folded(consumer);
        assertEquals(9, text.lines().count(), text);
        assertTrue(text.contains("domU-rcv;netif_receive_skb_[k];ip_rcv_[k];tcp_v4_rcv_[k] 50\n"), text);
        assertTrue(text.contains("Domain-0;do_grant_table_op_[x];find_domain_by_id_[x] 60\n"), text);
    }

    @Test
    void stacksThatPrintAlikeAreOneLine() throws Exception {
        // Two shared objects both export "init": with the same callers they print the same stack.
        TestDictionary d = new TestDictionary();
        int liba = d.image(0, "liba.so", ImageKind.USER);
        int libb = d.image(0, "libb.so", ImageKind.USER);
        int initA = d.symbol(liba, "init");
        int initB = d.symbol(libb, "init");
        FlameGraphConsumer consumer = consumerFor(d, new Batches(7).add(3, 0, CpuMode.USER, liba, initA)
                .add(4, 0, CpuMode.USER, libb, initB).build());
        assertEquals("Domain-0;init 7\n", Reports.folded(consumer));
    }

    /**
     * An import names each sample's thread: the process, as {@code comm (pid)}, comes between the
     * domain and the frames; threads of one process with one name are one frame, a rename is another.
     */
    @Test
    void aSourceThatNamesThreadsGetsAProcessLevelUnderTheDomain() throws Exception {
        TestDictionary d = new TestDictionary();
        int app = d.image(0, "app", ImageKind.USER);
        int work = d.symbol(app, "work");
        int make = d.comm("make");
        int makeThread = d.comm("make");
        int renamed = d.comm("renamed");
        SampleBatch b = new Batches(9).add(6, 0, CpuMode.USER, app, work, caller(app, d.symbol(app, "main")))
                .build();
        int[] pid = {100, 100, 100, 100, 200, 200};
        int[] tid = {100, 101, 101, 101, 200, 200};
        int[] comm = {make, makeThread, makeThread, makeThread, renamed, SampleBatch.UNKNOWN};
        SampleBatch named = new SampleBatch(b.sessionId, b.size, b.domain, b.vcpu, b.mode, b.counter, b.pc, b.image,
                b.symbol, b.weight, b.time, b.cpu, pid, tid, comm, b.flags, b.chainStart, b.chainPc, b.chainImage,
                b.chainSymbol, b.chainMode);
        assertEquals("Domain-0;main;work 1\nDomain-0;make (100);main;work 4\nDomain-0;renamed (200);main;work 1\n",
                Reports.folded(consumerFor(d, named)));
    }

    @Test
    void aSampleWithoutCallChainIsALeafOnlyStackUnderItsDomain() throws Exception {
        String text = Reports.folded(new NetworkStacks(1).completed());
        assertTrue(text.contains("domU-rcv;main 10\n"), text);
        assertTrue(text.contains("Domain-0;[vmlinux-xen0]_[k] 10\n"), text);
    }

    @Test
    void hypervisorFramesEndInXKernelAndModuleFramesInKUserFramesInNothing() throws Exception {
        TestDictionary d = new TestDictionary();
        int xen = d.image(0, "xen-syms", ImageKind.HYPERVISOR);
        int kernel = d.image(0, "vmlinux", ImageKind.KERNEL);
        int module = d.image(0, "netback.ko", ImageKind.MODULE);
        int user = d.image(0, "sshd", ImageKind.USER);
        FlameGraphConsumer consumer = consumerFor(d, new Batches(7)
                .add(1, 0, CpuMode.HYPERVISOR, xen, d.symbol(xen, "do_softirq"))
                .add(1, 0, CpuMode.KERNEL, kernel, d.symbol(kernel, "schedule"))
                .add(1, 0, CpuMode.KERNEL, module, d.symbol(module, "net_tx_action"))
                .add(1, 0, CpuMode.USER, user, d.symbol(user, "main")).build());
        assertEquals("""
                Domain-0;do_softirq_[x] 1
                Domain-0;main 1
                Domain-0;net_tx_action_[k] 1
                Domain-0;schedule_[k] 1
                """, Reports.folded(consumer));
    }

    @Test
    void codeWithoutSymbolIsNamedByItsImageInBrackets() throws Exception {
        TestDictionary d = new TestDictionary();
        int user = d.image(0, "/usr/lib/libz.so.1", ImageKind.USER);
        int unknown = d.image(0, "(unknown)", ImageKind.UNKNOWN);
        FlameGraphConsumer consumer = consumerFor(d, new Batches(7).add(2, 0, CpuMode.USER, user, -1)
                .add(3, 0, CpuMode.USER, unknown, -1, caller(user, -1)).build());
        assertEquals("""
                Domain-0;[/usr/lib/libz.so.1] 2
                Domain-0;[/usr/lib/libz.so.1];[unknown] 3
                """, Reports.folded(consumer));
    }

    @Test
    void aRunOfTheSameFrameWithoutSymbolFoldsIntoOneButNamedRecursionStays() throws Exception {
        // Code without frame pointers leaves chains of garbage callers, all in no mapping: one frame.
        TestDictionary d = new TestDictionary();
        int unknown = d.image(0, "(unknown)", ImageKind.UNKNOWN);
        int app = d.image(0, "app", ImageKind.USER);
        int main = d.symbol(app, "main");
        int walk = d.symbol(app, "walk");
        FlameGraphConsumer consumer = consumerFor(d, new Batches(7)
                .add(2, 0, CpuMode.USER, app, main, caller(unknown, -1), caller(unknown, -1), caller(unknown, -1))
                .add(3, 0, CpuMode.USER, app, walk, caller(app, walk), caller(app, walk), caller(app, -1),
                        caller(unknown, -1), caller(app, -1))
                .build());
        assertEquals("""
                Domain-0;[app];[unknown];[app];walk;walk;walk 3
                Domain-0;[unknown];main 2
                """, Reports.folded(consumer));
    }

    @Test
    void semicolonsAndControlCharactersInNamesCannotSplitAFrameOrALine() throws Exception {
        TestDictionary d = new TestDictionary();
        int user = d.image(0, "app", ImageKind.USER);
        FlameGraphConsumer consumer = consumerFor(d,
                new Batches(7).add(2, 0, CpuMode.USER, user, d.symbol(user, "a;b\nc\td")).build());
        assertEquals("Domain-0;a:b?c?d 2\n", Reports.folded(consumer));
    }

    @Test
    void spacesInNamesStayBecauseTheCountIsAfterTheLastSpace() throws Exception {
        TestDictionary d = new TestDictionary();
        int user = d.image(0, "app", ImageKind.USER);
        FlameGraphConsumer consumer = consumerFor(d, new Batches(7)
                .add(2, 0, CpuMode.USER, user, d.symbol(user, "operator new(unsigned long)")).build());
        assertEquals("Domain-0;operator new(unsigned long) 2\n", Reports.folded(consumer));
    }

    @Test
    void linesDoNotDependOnTheOrderSamplesArrivedIn() throws Exception {
        NetworkStacks n = new NetworkStacks(1);
        SampleBatch batch = n.batch();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < batch.size; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(42));
        Batches shuffled = new Batches(1);
        for (int i : order) {
            Batches.Caller[] callers = new Batches.Caller[batch.chainLength(i)];
            for (int c = 0; c < callers.length; c++) {
                int e = batch.chainStart[i] + c;
                callers[c] = caller(batch.chainImage[e], batch.chainSymbol[e]);
            }
            shuffled.add(1, batch.domain[i], CpuMode.ofCode(batch.mode[i]), batch.image[i], batch.symbol[i], callers);
        }
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.samples(shuffled.build());
        assertEquals(NetworkStacks.FOLDED, Reports.folded(consumer));
    }

    @Test
    void oneDomainsRequestPrintsOnlyThatDomainsStacks() throws Exception {
        String text = Reports.folded(new NetworkStacks(1).completed(), NetworkStacks.DOMU);
        assertEquals("""
                domU-rcv;do_grant_table_op_[x];find_domain_by_id_[x] 10
                domU-rcv;main 10
                domU-rcv;main;__libc_recv 5
                domU-rcv;netif_receive_skb_[k];ip_rcv_[k];tcp_v4_rcv_[k] 25
                """, text);
    }

    @Test
    void aDomainWithoutSamplesIsAClearErrorNamingTheDomainsThatHaveSome() {
        ReportException e = assertThrows(ReportException.class,
                () -> Reports.folded(new NetworkStacks(1).completed(), NetworkStacks.SPARE));
        assertTrue(e.getMessage().contains("domain 2 (domU-spare) has no samples"), e.getMessage());
        assertTrue(e.getMessage().contains("0 Domain-0 (100 samples)"), e.getMessage());
        assertTrue(e.getMessage().contains("1 domU-rcv (50 samples)"), e.getMessage());
    }

    @Test
    void vcpusOptionPutsAVcpuFrameBetweenDomainAndCode() throws Exception {
        NetworkStacks n = new NetworkStacks(1);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.samples(new Batches(1).add(4, NetworkStacks.DOMU, 0, CpuMode.USER, 0, n.rcv22, n.main)
                .add(6, NetworkStacks.DOMU, 1, CpuMode.USER, 0, n.rcv22, n.main).build());
        assertEquals("domU-rcv;main 10\n", Reports.folded(consumer));
        assertEquals("domU-rcv;vcpu0;main 4\ndomU-rcv;vcpu1;main 6\n",
                Reports.folded(consumer, ReportRequest.ALL_DOMAINS, "vcpus"));
    }

    @Test
    void samplesOfDifferentCountersNeverAddUp() throws Exception {
        NetworkStacks n = new NetworkStacks(1, NetworkStacks.CYCLES_100000, NetworkStacks.INSTRUCTIONS_50000);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.samples(new Batches(1).add(4, NetworkStacks.DOMU, 0, CpuMode.USER, 0, n.rcv22, n.main)
                .add(9, NetworkStacks.DOMU, 0, CpuMode.USER, 1, n.rcv22, n.main).build());
        assertEquals("domU-rcv;main 4\n", Reports.folded(consumer));
        assertEquals("domU-rcv;main 9\n", Reports.folded(consumer, ReportRequest.ALL_DOMAINS, "counter=1"));
    }

    @Test
    void aCounterTheSessionDoesNotHaveIsAClearError() {
        ReportException e = assertThrows(ReportException.class,
                () -> Reports.folded(new NetworkStacks(1).completed(), ReportRequest.ALL_DOMAINS, "counter=3"));
        assertTrue(e.getMessage().contains("there is no counter 3"), e.getMessage());
        assertTrue(e.getMessage().contains("0 CPU_CLK_UNHALTED"), e.getMessage());
    }

    @Test
    void aCounterWithoutSamplesPointsAtTheCountersThatHaveSome() {
        NetworkStacks n = new NetworkStacks(1, NetworkStacks.CYCLES_100000, NetworkStacks.INSTRUCTIONS_50000);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.samples(new Batches(1).add(9, NetworkStacks.DOMU, 0, CpuMode.USER, 1, n.rcv22, n.main).build());
        ReportException e = assertThrows(ReportException.class, () -> Reports.folded(consumer));
        assertTrue(e.getMessage().contains("no samples of counter 0 (CPU_CLK_UNHALTED)"), e.getMessage());
        assertTrue(e.getMessage().contains("counter=N"), e.getMessage());
    }

    @Test
    void unknownOptionsAreAClearErrorListingTheOptions() {
        ReportException e = assertThrows(ReportException.class,
                () -> Reports.folded(new NetworkStacks(1).completed(), ReportRequest.ALL_DOMAINS, "colour=blue"));
        assertTrue(e.getMessage().contains("'colour=blue'"), e.getMessage());
        assertTrue(e.getMessage().contains("counter=N") && e.getMessage().contains("vcpus"), e.getMessage());
        ReportException bad = assertThrows(ReportException.class,
                () -> Reports.folded(new NetworkStacks(1).completed(), ReportRequest.ALL_DOMAINS, "counter=x"));
        assertTrue(bad.getMessage().contains("counter=0"), bad.getMessage());
    }

    @Test
    void anEmptySessionIsAClearErrorAndPrintsNothing() {
        NetworkStacks n = new NetworkStacks(1);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(n.info);
        consumer.sessionEnded(n.summary());
        StringBuilder out = new StringBuilder();
        ReportException e = assertThrows(ReportException.class,
                () -> consumer.render(ReportRequest.latest(), out));
        assertTrue(e.getMessage().contains("no samples of session 1"), e.getMessage());
        assertTrue(e.getMessage().contains("samples taken 157"), e.getMessage());
        assertEquals("", out.toString());
    }

    static FlameGraphConsumer consumerFor(TestDictionary d, SampleBatch batch) {
        SessionInfo info = new SessionInfo(batch.sessionId, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkStacks.CYCLES_100000), Map.of(0, "Domain-0"), false, d);
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(info);
        consumer.samples(batch);
        return consumer;
    }
}
