package org.hyperprof.report.flamegraph;

import static org.hyperprof.report.flamegraph.Batches.caller;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.NetworkExperiment;

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
final class NetworkStacks extends NetworkExperiment {
    static final int SPARE = 2;

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
        info = sessionInfo(sessionId, Map.of(DOM0, "Domain-0", DOMU, "domU-rcv", SPARE, "domU-spare"), counters);
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
