package org.hyperprof.study;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;

/** Sessions, batches and a host made by hand for the tally and measurement tests. */
final class Sessions {
    static final UnitMask NO_MASK = new UnitMask("zero", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "No unit mask")));
    static final CounterConfig CYCLES = new CounterConfig(0,
            new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 0b11, 6000, NO_MASK, Signal.CYCLES, "cycles"), 100000, 0,
            true, true);

    /** Images 0 vmlinux, 1 xen-syms; symbols 0 schedule, 1 tcp_v4_rcv (vmlinux), 2 do_mmu_update (xen-syms). */
    static final SessionDictionary NAMES = new SessionDictionary() {
        private final String[] images = {"vmlinux", "xen-syms"};
        private final String[] symbols = {"schedule", "tcp_v4_rcv", "do_mmu_update"};
        private final int[] symbolImage = {0, 0, 1};
        @Override public int imageCount() { return images.length; }
        @Override public String imageName(int image) { return images[image]; }
        @Override public ImageKind imageKind(int image) { return image == 1 ? ImageKind.HYPERVISOR : ImageKind.KERNEL; }
        @Override public int imageDomain(int image) { return 0; }
        @Override public int symbolCount() { return symbols.length; }
        @Override public String symbolName(int symbol) { return symbols[symbol]; }
        @Override public int symbolImage(int symbol) { return symbolImage[symbol]; }
        @Override public String processName(int domain, int pid) { return null; }
    };

    private Sessions() {
    }

    static SessionInfo session(long id, String source) {
        return new SessionInfo(id, source, "test-host", "i386/p6", "PIII", 2000, List.of(CYCLES),
                Map.of(0, "Domain-0", 1, "domU"), true, NAMES);
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
