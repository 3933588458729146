package org.hyperprof.report.opreport;

import org.hyperprof.testing.sample.TestDictionary;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.XenoprofStatistics;

/**
 * A session with the primary (dom0, active) and two passive domains whose samples its daemon
 * drained: domain 1, a PV guest given no image, is seen only through the pseudo-images
 * {@code domain1-xen}, {@code domain1-kernel}, {@code domain1-modules} and {@code domain1-apps};
 * domain 2, an HVM guest whose kernel was given with --passive-images, has its kernel resolved and
 * its userland as {@code domain2-apps}.
 *
 * <pre>
 * dom0  xen-syms schedule 10
 * dom1  domain1-xen 5, domain1-kernel 20, domain1-modules 3, domain1-apps 12   (40)
 * dom2  vmlinux-hvm tcp_v4_rcv 6, domain2-apps 4                              (10)
 * </pre>
 */
final class PassiveSession {
    static final int DOM0 = 0;
    static final int PV = 1;
    static final int HVM = 2;

    final TestDictionary dictionary = new TestDictionary();
    final int xen = dictionary.image(DOM0, "xen-syms", ImageKind.HYPERVISOR);
    final int schedule = dictionary.symbol(xen, "schedule");
    final int pvXen = dictionary.image(DOM0, "domain1-xen", ImageKind.HYPERVISOR);
    final int pvKernel = dictionary.image(DOM0, "domain1-kernel", ImageKind.KERNEL);
    final int pvModules = dictionary.image(DOM0, "domain1-modules", ImageKind.MODULE);
    final int pvApps = dictionary.image(DOM0, "domain1-apps", ImageKind.USER);
    final int hvmKernel = dictionary.image(DOM0, "vmlinux-hvm", ImageKind.KERNEL);
    final int tcpRcv = dictionary.symbol(hvmKernel, "tcp_v4_rcv");
    final int hvmApps = dictionary.image(DOM0, "domain2-apps", ImageKind.USER);

    final SessionInfo info = new SessionInfo(60, "simulator", "h", "i386/p6", "PIII", 2800,
            List.of(NetworkSession.CYCLES_100000), Map.of(DOM0, "Domain-0", PV, "domU-pv", HVM, "domU-hvm"), false,
            dictionary);

    OpreportConsumer completed(Map<String, Long> hostCounters, List<String> notes) {
        OpreportConsumer c = new OpreportConsumer();
        c.sessionStarted(info);
        c.samples(new Batches(60).add(10, DOM0, CpuMode.HYPERVISOR, 0, xen, schedule)
                .add(5, PV, CpuMode.HYPERVISOR, 0, pvXen, -1)
                .add(20, PV, CpuMode.KERNEL, 0, pvKernel, -1)
                .add(3, PV, CpuMode.KERNEL, 0, pvModules, -1)
                .add(12, PV, CpuMode.USER, 0, pvApps, -1)
                .add(6, HVM, CpuMode.KERNEL, 0, hvmKernel, tcpRcv)
                .add(4, HVM, CpuMode.USER, 0, hvmApps, -1).build());
        c.sessionEnded(new SessionSummary(60, new Accounting(60, 60, 0, 0, 0), List.of(
                new BufferAccounting(DOM0, 0, "active", new Accounting(10, 10, 0, 0, 0), 0, 0, 10, 10, 0),
                new BufferAccounting(PV, 0, "passive", new Accounting(40, 40, 0, 0, 0), 12, 23, 5, 40, 0),
                new BufferAccounting(HVM, 0, "passive", new Accounting(10, 10, 0, 0, 0), 4, 6, 0, 10, 0)),
                List.of(new ConsumerAccounting("opreport", 60, 0, null)),
                new XenoprofStatistics(60, 10, 50, 0, 0, 0, 0, 0), null, 1000, SessionSummary.COMPLETED, hostCounters,
                notes));
        return c;
    }

    OpreportConsumer completed() {
        return completed(Map.of(), List.of());
    }
}
