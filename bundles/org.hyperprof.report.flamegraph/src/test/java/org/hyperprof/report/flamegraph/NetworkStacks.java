package org.hyperprof.report.flamegraph;

import org.hyperprof.testing.sample.TestDictionary;
import static org.hyperprof.report.flamegraph.Batches.caller;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * A small session in the shape of the 2006 network experiment, with call chains: dom0 (the driver
 * domain: grant copies in Xen, the e1000 interrupt in its kernel) and a domU receiver (Xen, the TCP
 * receive path, a user process), with round numbers so that every width can be checked by hand.
 *
 * <pre>
 * counter 0, 150 samples            stack (root first)                                   samples
 *   Domain-0  [vmlinux-xen0]_[k]                                                              10
 *   Domain-0  do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k]                                  25
 *   Domain-0  do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k];netif_rx_[k]                     15
 *   Domain-0  do_grant_table_op_[x];find_domain_by_id_[x]                                     30
 *   Domain-0  do_grant_table_op_[x];gnttab_copy_[x]                                           20
 *   domU-rcv  do_grant_table_op_[x];find_domain_by_id_[x]                                     10
 *   domU-rcv  main                                                                            10
 *   domU-rcv  main;__libc_recv                                                                 5
 *   domU-rcv  netif_receive_skb_[k];ip_rcv_[k];tcp_v4_rcv_[k]                                 25
 * </pre>
 */
final class NetworkStacks {
    static final int DOM0 = 0;
    static final int DOMU = 1;
    static final int SPARE = 2;

    static final UnitMask NO_MASK = new UnitMask("zero", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "No unit mask")));
    static final EventDescriptor CPU_CLK_UNHALTED = new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 0b11, 6000,
            NO_MASK, Signal.CYCLES, "clocks processor is not halted");
    static final EventDescriptor INST_RETIRED = new EventDescriptor("INST_RETIRED", 0xc0, 0b11, 6000, NO_MASK,
            Signal.INSTRUCTIONS, "number of instructions retired");
    static final CounterConfig CYCLES_100000 = new CounterConfig(0, CPU_CLK_UNHALTED, 100000, 0, true, true);
    static final CounterConfig INSTRUCTIONS_50000 = new CounterConfig(1, INST_RETIRED, 50000, 0, true, true);

    /** The folded text of counter 0, all domains. */
    static final String FOLDED = """
            Domain-0;[vmlinux-xen0]_[k] 10
            Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k] 25
            Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k];netif_rx_[k] 15
            Domain-0;do_grant_table_op_[x];find_domain_by_id_[x] 30
            Domain-0;do_grant_table_op_[x];gnttab_copy_[x] 20
            domU-rcv;do_grant_table_op_[x];find_domain_by_id_[x] 10
            domU-rcv;main 10
            domU-rcv;main;__libc_recv 5
            domU-rcv;netif_receive_skb_[k];ip_rcv_[k];tcp_v4_rcv_[k] 25
            """;

    final TestDictionary dictionary = new TestDictionary();
    final int dom0Xen = dictionary.image(DOM0, "xen-syms", ImageKind.HYPERVISOR);
    final int dom0Kernel = dictionary.image(DOM0, "vmlinux-xen0", ImageKind.KERNEL);
    final int e1000 = dictionary.image(DOM0, "e1000", ImageKind.MODULE);
    final int domUXen = dictionary.image(DOMU, "xen-syms", ImageKind.HYPERVISOR);
    final int domUKernel = dictionary.image(DOMU, "vmlinux-xenU", ImageKind.KERNEL);
    final int rcv22 = dictionary.image(DOMU, "rcv22", ImageKind.USER);
    final int libc = dictionary.image(DOMU, "libc.so.6", ImageKind.USER);
    final int grantOp0 = dictionary.symbol(dom0Xen, "do_grant_table_op");
    final int findDomain0 = dictionary.symbol(dom0Xen, "find_domain_by_id");
    final int gnttabCopy = dictionary.symbol(dom0Xen, "gnttab_copy");
    final int doIrq = dictionary.symbol(dom0Kernel, "do_IRQ");
    final int handleIrq = dictionary.symbol(dom0Kernel, "handle_irq_event");
    final int e1000Intr = dictionary.symbol(e1000, "e1000_intr");
    final int netifRx = dictionary.symbol(dom0Kernel, "netif_rx");
    final int grantOpU = dictionary.symbol(domUXen, "do_grant_table_op");
    final int findDomainU = dictionary.symbol(domUXen, "find_domain_by_id");
    final int netifReceive = dictionary.symbol(domUKernel, "netif_receive_skb");
    final int ipRcv = dictionary.symbol(domUKernel, "ip_rcv");
    final int tcpRcv = dictionary.symbol(domUKernel, "tcp_v4_rcv");
    final int main = dictionary.symbol(rcv22, "main");
    final int recv = dictionary.symbol(libc, "__libc_recv");

    final SessionInfo info;

    NetworkStacks(long sessionId, CounterConfig... counters) {
        info = new SessionInfo(sessionId, "simulator", "xen-summit-2006", "i386/p6", "PIII", 2800, List.of(counters),
                Map.of(DOM0, "Domain-0", DOMU, "domU-rcv", SPARE, "domU-spare"), true, dictionary);
    }

    NetworkStacks(long sessionId) {
        this(sessionId, CYCLES_100000);
    }

    /** The samples of the table above. */
    SampleBatch batch() {
        return samples(new Batches(info.sessionId())).build();
    }

    Batches samples(Batches b) {
        return b.add(30, DOM0, CpuMode.HYPERVISOR, dom0Xen, findDomain0, caller(dom0Xen, grantOp0))
                .add(20, DOM0, CpuMode.HYPERVISOR, dom0Xen, gnttabCopy, caller(dom0Xen, grantOp0))
                .add(25, DOM0, CpuMode.KERNEL, e1000, e1000Intr, caller(dom0Kernel, handleIrq),
                        caller(dom0Kernel, doIrq))
                .add(15, DOM0, CpuMode.KERNEL, dom0Kernel, netifRx, caller(e1000, e1000Intr),
                        caller(dom0Kernel, handleIrq), caller(dom0Kernel, doIrq))
                .add(10, DOM0, CpuMode.KERNEL, dom0Kernel, -1)
                .add(10, DOMU, CpuMode.HYPERVISOR, domUXen, findDomainU, caller(domUXen, grantOpU))
                .add(25, DOMU, CpuMode.KERNEL, domUKernel, tcpRcv, caller(domUKernel, ipRcv),
                        caller(domUKernel, netifReceive))
                .add(10, DOMU, CpuMode.USER, rcv22, main)
                .add(5, DOMU, CpuMode.USER, libc, recv, caller(rcv22, main));
    }

    static final Accounting SESSION_BOOKS = new Accounting(157, 150, 2, 5, 0);

    SessionSummary summary() {
        return new SessionSummary(info.sessionId(), SESSION_BOOKS,
                List.of(new BufferAccounting(DOM0, 0, "active", new Accounting(100, 100, 0, 0, 0), 0, 50, 50, 100, 0),
                        new BufferAccounting(DOMU, 0, "active", new Accounting(52, 50, 2, 0, 0), 15, 25, 10, 50, 0)),
                List.of(new ConsumerAccounting(FlameGraphConsumer.NAME, 150, 0, null)), null, null, 1_000_000,
                SessionSummary.COMPLETED);
    }

    /** A consumer that saw the whole session end to end. */
    FlameGraphConsumer completed() {
        FlameGraphConsumer consumer = new FlameGraphConsumer();
        consumer.sessionStarted(info);
        consumer.samples(batch());
        consumer.sessionEnded(summary());
        return consumer;
    }
}
