package org.hyperprof.study;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.NetworkExperiment;
import org.hyperprof.testing.sample.TestDictionary;

/** Sessions, batches and a host made by hand for the tally and measurement tests. */
final class Sessions {
    static final CounterConfig CYCLES = NetworkExperiment.CYCLES_100000;

    private Sessions() {
    }

    static SessionInfo session(long id, String source) {
        return new SessionInfo(id, source, "test-host", "i386/p6", "PIII", 2000, List.of(CYCLES),
                Map.of(0, "Domain-0", 1, "domU"), true, names());
    }

    /** Images 0 vmlinux, 1 xen-syms; symbols 0 schedule, 1 tcp_v4_rcv (vmlinux), 2 do_mmu_update (xen-syms). */
    private static TestDictionary names() {
        TestDictionary names = new TestDictionary();
        int vmlinux = names.image(0, "vmlinux", ImageKind.KERNEL);
        int xen = names.image(0, "xen-syms", ImageKind.HYPERVISOR);
        names.symbol(vmlinux, "schedule");
        names.symbol(vmlinux, "tcp_v4_rcv");
        names.symbol(xen, "do_mmu_update");
        return names;
    }

    /** A batch from quadruples (domain, mode, image, symbol), all on counter 0. */
    static SampleBatch batch(long session, int... quads) {
        int n = quads.length / 4;
        int[] domain = new int[n];
        byte[] mode = new byte[n];
        int[] image = new int[n];
        int[] symbol = new int[n];
        for (int i = 0; i < n; i++) {
            domain[i] = quads[4 * i];
            mode[i] = (byte) quads[4 * i + 1];
            image[i] = quads[4 * i + 2];
            symbol[i] = quads[4 * i + 3];
        }
        return new SampleBatch(session, n, domain, new int[n], mode, new byte[n], new long[n], image, symbol,
                new long[n], new long[n], new int[n], new int[n], new int[n], new byte[n], new int[n + 1],
                new long[0], new int[0],
                new int[0], new byte[0]);
    }

    static SessionSummary ended(long session, long lost, GroundTruth truth, Map<String, Long> counters) {
        return new SessionSummary(session, new Accounting(lost, 0, lost, 0, 0), List.of(),
                List.of(new ConsumerAccounting(StudyKeys.CONSUMER_NAME, 0, 0, null)), null, truth, 1000,
                SessionSummary.COMPLETED, counters, List.of());
    }

    /** A host with dom0 and domU (PV), answering only what the study asks after a run. */
    static Host host(GroundTruth truth) {
        List<DomainInfo> domains = List.of(new DomainInfo(0, "Domain-0", false, 1, true, List.of()),
                new DomainInfo(1, "domU", false, 1, false, List.of()));
        return (Host) Proxy.newProxyInstance(Host.class.getClassLoader(), new Class<?>[] {Host.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "domains" -> domains;
                    case "groundTruth" -> truth;
                    case "counters" -> Map.of();
                    case "guestProfilerCounters", "guestProfilerNotes" -> List.of();
                    case "name" -> "test-host";
                    case "toString" -> "test host";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
