package org.hyperprof.report.opreport;

import org.hyperprof.testing.sample.TestDictionary;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/**
 * A session profiled with call traces, whose stacks are known, so that every arc and percentage of
 * the call graph can be worked out by hand. Domain 1 (domU-rcv) runs a receiver:
 *
 * <pre>
 * samples  stack (leaf first, then its callers innermost first)      vcpu
 *    6     checksum &lt;- parse &lt;- main                                 0
 *    3     parse &lt;- main                                             1
 *    2     checksum &lt;- main                                          1
 *    1     main                                                       0
 *    4     tcp_v4_rcv &lt;- ip_rcv &lt;- netif_receive_skb                  0
 *    2     ip_rcv &lt;- netif_receive_skb                                1
 * </pre>
 *
 * so self samples are checksum 8, tcp_v4_rcv 4, parse 3, ip_rcv 2, main 1, netif_receive_skb 0 (18
 * in all); arcs main-&gt;parse 9, main-&gt;checksum 2, parse-&gt;checksum 6, netif_receive_skb-&gt;ip_rcv 6,
 * ip_rcv-&gt;tcp_v4_rcv 4; inclusive main 12, parse 9, checksum 8, ip_rcv 6, netif_receive_skb 6,
 * tcp_v4_rcv 4. Domain 0 adds 6 Xen samples, 4 of them {@code gnttab_copy <- do_grant_table_op}.
 * checksum's samples sit at two PCs: 0x08048410 (5) and 0x08048414 (3).
 */
final class StackSession {
    static final int DOM0 = 0;
    static final int DOMU = 1;

    final TestDictionary dictionary = new TestDictionary();
    final int xen = dictionary.image(DOM0, "xen-syms", ImageKind.HYPERVISOR);
    final int gnttabCopy = dictionary.symbol(xen, "gnttab_copy");
    final int grantTableOp = dictionary.symbol(xen, "do_grant_table_op");
    final int rcv22 = dictionary.image(DOMU, "rcv22", ImageKind.USER);
    final int main = dictionary.symbol(rcv22, "main");
    final int parse = dictionary.symbol(rcv22, "parse");
    final int checksum = dictionary.symbol(rcv22, "checksum");
    final int kernel = dictionary.image(DOMU, "vmlinux-xenU", ImageKind.KERNEL);
    final int netif = dictionary.symbol(kernel, "netif_receive_skb");
    final int ipRcv = dictionary.symbol(kernel, "ip_rcv");
    final int tcpRcv = dictionary.symbol(kernel, "tcp_v4_rcv");

    final SessionInfo info;

    StackSession(long sessionId) {
        info = new SessionInfo(sessionId, "simulator", "h", "i386/p6", "PIII", 2800,
                List.of(NetworkSession.CYCLES_100000), Map.of(DOM0, "Domain-0", DOMU, "domU-rcv"), false,
                dictionary);
    }

    SampleBatch batch() {
        return stacks(new Batches(info.sessionId())).build();
    }

    Batches stacks(Batches b) {
        return b.stack(5, DOMU, 0, CpuMode.USER, 0, 0x08048410L, rcv22, checksum, rcv22, parse, rcv22, main)
                .stack(1, DOMU, 0, CpuMode.USER, 0, 0x08048414L, rcv22, checksum, rcv22, parse, rcv22, main)
                .stack(3, DOMU, 1, CpuMode.USER, 0, 0x08048300L, rcv22, parse, rcv22, main)
                .stack(2, DOMU, 1, CpuMode.USER, 0, 0x08048414L, rcv22, checksum, rcv22, main)
                .stack(1, DOMU, 0, CpuMode.USER, 0, 0x08048200L, rcv22, main)
                .stack(4, DOMU, 0, CpuMode.KERNEL, 0, 0xC0300000L, kernel, tcpRcv, kernel, ipRcv, kernel, netif)
                .stack(2, DOMU, 1, CpuMode.KERNEL, 0, 0xC0200000L, kernel, ipRcv, kernel, netif)
                .stack(4, DOM0, 0, CpuMode.HYPERVISOR, 0, 0xFF100000L, xen, gnttabCopy, xen, grantTableOp)
                .stack(2, DOM0, 0, CpuMode.HYPERVISOR, 0, 0xFF100100L, xen, grantTableOp);
    }

    SessionSummary summary() {
        return new SessionSummary(info.sessionId(), new Accounting(24, 24, 0, 0, 0),
                List.of(new BufferAccounting(DOM0, 0, "active", new Accounting(6, 6, 0, 0, 0), 0, 0, 6, 6, 0),
                        new BufferAccounting(DOMU, 0, "active", new Accounting(11, 11, 0, 0, 0), 7, 4, 0, 11, 0),
                        new BufferAccounting(DOMU, 1, "active", new Accounting(7, 7, 0, 0, 0), 5, 2, 0, 7, 0)),
                List.of(new ConsumerAccounting("opreport", 24, 0, null)), null, null, 1000, SessionSummary.COMPLETED);
    }

    OpreportConsumer completed() {
        OpreportConsumer consumer = new OpreportConsumer();
        consumer.sessionStarted(info);
        consumer.samples(batch());
        consumer.sessionEnded(summary());
        return consumer;
    }
}
