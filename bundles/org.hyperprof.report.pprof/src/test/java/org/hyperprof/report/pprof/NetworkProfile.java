package org.hyperprof.report.pprof;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.pprof.ChainBatches.Frame;
import org.hyperprof.testing.sample.NetworkExperiment;

/**
 * A small session in the shape of the 2006 network experiment, with call chains: dom0 (Xen work on
 * its behalf, the e1000 driver, its kernel) and a domU receiver (Xen, kernel, a user process), on
 * counter 0 (CPU_CLK_UNHALTED every 100000 cycles).
 *
 * <pre>
 * samples  domain vcpu mode    stack (leaf first)
 *   30     dom0   0    xen     find_domain_by_id &lt;- do_grant_table_op
 *   20     dom0   1    xen     gnttab_copy &lt;- do_grant_table_op
 *   25     dom0   0    kernel  e1000_intr &lt;- do_IRQ
 *   15     dom0   0    kernel  netif_rx &lt;- e1000_intr &lt;- do_IRQ
 *   10     dom0   0    kernel  (no symbols in vmlinux-xen0)
 *   10     domU   0    xen     find_domain_by_id
 *   25     domU   0    kernel  tcp_v4_rcv &lt;- netif_receive_skb
 *   15     domU   0    user    main
 *   total 150: dom0 100, domU 50; flat find_domain_by_id 40, tcp_v4_rcv 25, e1000_intr 25, ...
 * </pre>
 */
final class NetworkProfile extends NetworkExperiment {

    final int findDomain0 = dictionary.symbol(dom0Xen, "find_domain_by_id");
    final int gnttabCopy = dictionary.symbol(dom0Xen, "gnttab_copy");
    final int grantTableOp = dictionary.symbol(dom0Xen, "do_grant_table_op");
    final int e1000Intr = dictionary.symbol(e1000, "e1000_intr");
    final int netifRx = dictionary.symbol(dom0Kernel, "netif_rx");
    final int doIrq = dictionary.symbol(dom0Kernel, "do_IRQ");
    final int findDomainU = dictionary.symbol(domUXen, "find_domain_by_id");
    final int tcpRcv = dictionary.symbol(domUKernel, "tcp_v4_rcv");
    final int netifReceive = dictionary.symbol(domUKernel, "netif_receive_skb");
    final int main = dictionary.symbol(rcv22, "main");

    final Frame findDomain0At = new Frame(0xFF100010L, dom0Xen, findDomain0);
    final Frame gnttabCopyAt = new Frame(0xFF100400L, dom0Xen, gnttabCopy);
    final Frame grantTableOpAt = new Frame(0xFF100800L, dom0Xen, grantTableOp);
    final Frame e1000IntrAt = new Frame(0xD0800100L, e1000, e1000Intr);
    final Frame e1000IntrCallsNetifRx = new Frame(0xD0800180L, e1000, e1000Intr);
    final Frame netifRxAt = new Frame(0xC0200040L, dom0Kernel, netifRx);
    final Frame doIrqAt = new Frame(0xC0100200L, dom0Kernel, doIrq);
    final Frame noSymbolAt = new Frame(0xC0300000L, dom0Kernel, -1);
    final Frame findDomainUAt = new Frame(0xFF100010L, domUXen, findDomainU);
    final Frame tcpRcvAt = new Frame(0xC0400020L, domUKernel, tcpRcv);
    final Frame netifReceiveAt = new Frame(0xC0400900L, domUKernel, netifReceive);
    final Frame mainAt = new Frame(0x08048400L, rcv22, main);

    final SessionInfo info;

    NetworkProfile(long sessionId, CounterConfig... counters) {
        info = sessionInfo(sessionId, Map.of(DOM0, "Domain-0", DOMU, "domU-rcv"), counters);
    }

    NetworkProfile(long sessionId) {
        this(sessionId, CYCLES_100000);
    }

    /** The samples of the table above, on counter {@code counter}. */
    SampleBatch batch(int counter) {
        return samples(new ChainBatches(info), counter).build();
    }

    ChainBatches samples(ChainBatches b, int counter) {
        return b.add(30, DOM0, 0, CpuMode.HYPERVISOR, counter, findDomain0At, grantTableOpAt)
                .add(20, DOM0, 1, CpuMode.HYPERVISOR, counter, gnttabCopyAt, grantTableOpAt)
                .add(25, DOM0, 0, CpuMode.KERNEL, counter, e1000IntrAt, doIrqAt)
                .add(15, DOM0, 0, CpuMode.KERNEL, counter, netifRxAt, e1000IntrCallsNetifRx, doIrqAt)
                .add(10, DOM0, 0, CpuMode.KERNEL, counter, noSymbolAt)
                .add(10, DOMU, 0, CpuMode.HYPERVISOR, counter, findDomainUAt)
                .add(25, DOMU, 0, CpuMode.KERNEL, counter, tcpRcvAt, netifReceiveAt)
                .add(15, DOMU, 0, CpuMode.USER, counter, mainAt);
    }

    /** The end of the session: 150 samples delivered in 2.8e9 cycles (one simulated second at 2800 MHz). */
    SessionSummary summary() {
        return new SessionSummary(info.sessionId(), new Accounting(150, 150, 0, 0, 0), List.of(),
                List.of(new ConsumerAccounting(PprofConsumer.NAME, 150, 0, null)), null, null, 2_800_000_000L,
                SessionSummary.COMPLETED);
    }
}
