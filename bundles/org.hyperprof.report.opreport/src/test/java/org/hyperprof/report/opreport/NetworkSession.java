package org.hyperprof.report.opreport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.testing.sample.NetworkExperiment;

/**
 * A small session in the shape of the 2006 network experiment: dom0 (driver domain: Xen work,
 * e1000, kernel) and a domU receiver (Xen work, kernel, user process), with round numbers so that
 * every percentage of the report can be computed by hand.
 *
 * <pre>
 * counter 0 samples          dom0  domU
 *   xen-syms find_domain_by_id  30    10
 *   xen-syms gnttab_copy        20
 *   e1000    e1000_intr         25
 *   vmlinux-xen0 netif_rx       15
 *   vmlinux-xen0 (no symbols)   10
 *   vmlinux-xenU tcp_v4_rcv           25
 *   rcv22    main                     15
 *   total                      100    50
 * </pre>
 *
 * Ground truth (CYCLES, milli-events): dom0 find_domain_by_id 28000, gnttab_copy 22000, e1000_intr
 * 25000, netif_rx 25000; domU find_domain_by_id 12000, tcp_v4_rcv 20000, main 18000; plus events of
 * the idle domain and of the unprofiled domain 2, which no report may count.
 */
final class NetworkSession extends NetworkExperiment {
    static final int UNPROFILED = 2;

    final int findDomain0 = dictionary.symbol(dom0Xen, "find_domain_by_id");
    final int gnttabCopy = dictionary.symbol(dom0Xen, "gnttab_copy");
    final int e1000Intr = dictionary.symbol(e1000, "e1000_intr");
    final int netifRx = dictionary.symbol(dom0Kernel, "netif_rx");
    final int findDomainU = dictionary.symbol(domUXen, "find_domain_by_id");
    final int tcpRcv = dictionary.symbol(domUKernel, "tcp_v4_rcv");
    final int main = dictionary.symbol(rcv22, "main");

    final SessionInfo info;

    NetworkSession(long sessionId, CounterConfig... counters) {
        info = sessionInfo(sessionId, Map.of(DOM0, "Domain-0", DOMU, "domU-rcv", UNPROFILED, "domU-spare"), counters);
    }

    NetworkSession(long sessionId) {
        this(sessionId, CYCLES_100000);
    }

    /** The samples of the table above, on counter {@code counter}. */
    SampleBatch batch(int counter) {
        return samples(new Batches(info.sessionId()), counter).build();
    }

    Batches samples(Batches b, int counter) {
        return b.add(30, DOM0, CpuMode.HYPERVISOR, counter, dom0Xen, findDomain0)
                .add(20, DOM0, CpuMode.HYPERVISOR, counter, dom0Xen, gnttabCopy)
                .add(25, DOM0, CpuMode.KERNEL, counter, e1000, e1000Intr)
                .add(15, DOM0, CpuMode.KERNEL, counter, dom0Kernel, netifRx)
                .add(10, DOM0, CpuMode.KERNEL, counter, dom0Kernel, -1)
                .add(10, DOMU, CpuMode.HYPERVISOR, counter, domUXen, findDomainU)
                .add(25, DOMU, CpuMode.KERNEL, counter, domUKernel, tcpRcv)
                .add(15, DOMU, CpuMode.USER, counter, rcv22, main);
    }

    static GroundTruth.Row truthRow(int domid, CpuMode mode, String image, ImageKind kind, String symbol,
            long cyclesMilli, long instructionsMilli) {
        long[] milli = new long[Signal.COUNT];
        milli[Signal.CYCLES.ordinal()] = cyclesMilli;
        milli[Signal.INSTRUCTIONS.ordinal()] = instructionsMilli;
        return new GroundTruth.Row(domid, 0, mode, image, kind, symbol, milli);
    }

    GroundTruth truth() {
        List<GroundTruth.Row> rows = new ArrayList<>(List.of(
                truthRow(DOM0, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "find_domain_by_id", 28000, 1000),
                truthRow(DOM0, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "gnttab_copy", 22000, 1000),
                truthRow(DOM0, CpuMode.KERNEL, "e1000", ImageKind.MODULE, "e1000_intr", 25000, 1000),
                truthRow(DOM0, CpuMode.KERNEL, "vmlinux-xen0", ImageKind.KERNEL, "netif_rx", 25000, 1000),
                truthRow(DOMU, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "find_domain_by_id", 12000, 1000),
                truthRow(DOMU, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "tcp_v4_rcv", 20000, 1000),
                truthRow(DOMU, CpuMode.USER, "rcv22", ImageKind.USER, "main", 18000, 4000),
                // Outside the population: Xen drops these samples before any buffer.
                truthRow(GroundTruth.IDLE_DOMAIN, CpuMode.HYPERVISOR, "xen-syms", ImageKind.HYPERVISOR, "idle_loop",
                        1_000_000, 0),
                truthRow(UNPROFILED, CpuMode.KERNEL, "vmlinux-xenU", ImageKind.KERNEL, "tcp_v4_rcv", 500_000, 0)));
        return new GroundTruth(rows);
    }

    List<BufferAccounting> buffers() {
        return List.of(
                new BufferAccounting(DOM0, 0, "active", new Accounting(60, 60, 0, 0, 0), 0, 30, 30, 60, 0),
                new BufferAccounting(DOM0, 1, "active", new Accounting(40, 40, 0, 0, 0), 0, 20, 20, 40, 0),
                new BufferAccounting(DOMU, 0, "active", new Accounting(52, 50, 2, 0, 0), 15, 25, 10, 50, 0));
    }

    static final Accounting SESSION_BOOKS = new Accounting(157, 150, 2, 5, 0);

    SessionSummary summary(GroundTruth truth, String endReason) {
        return new SessionSummary(info.sessionId(), SESSION_BOOKS, buffers(),
                List.of(new ConsumerAccounting("opreport", 150, 0, null)),
                new XenoprofStatistics(157, 150, 0, 2, 5, 5, 0, 0), truth, 1_000_000, endReason);
    }

    SessionSummary summary() {
        return summary(truth(), SessionSummary.COMPLETED);
    }

    /** A consumer that saw the whole session end to end. */
    OpreportConsumer completed() {
        OpreportConsumer consumer = new OpreportConsumer();
        consumer.sessionStarted(info);
        for (int c = 0; c < info.counters().size(); c++) {
            consumer.samples(batch(c));
        }
        consumer.sessionEnded(summary());
        return consumer;
    }
}
