package org.hyperprof.profiler;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostListener;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;

/**
 * A host of PV domains: dom0 (hardware domain, 1 vCPU) and dom1 (2 vCPUs), and with
 * {@link #withGuests} dom2 (PV, 1 vCPU) and dom3 (HVM, 1 vCPU). Each has the xen image, a kernel, a
 * module and a user process in its memory map. {@link #run} executes a scripted workload that
 * writes samples into the fake buffers. Domains can be paused and destroyed as the API says; the
 * machine's counters are a settable map.
 */
final class FakeHost implements Host {
    static final long XEN = 0xffff830000000000L;
    static final long KERNEL = 0xffffffff80000000L;
    static final long MODULE = 0xffffffff88000000L;
    static final long USER = 0x400000L;

    /** What a run does. */
    @FunctionalInterface
    interface Workload {
        void run(FakeHost host, long micros) throws HostStoppedException;
    }

    final FakeXenoprof xenoprof;
    final PmuModel model = new FakeModel();
    final List<HostListener> listeners = new CopyOnWriteArrayList<>();
    final List<DomainInfo> domains = new ArrayList<>();
    Workload workload = (h, micros) -> { };
    long cycles;
    int groundTruthResets;
    String stopReason;
    final Map<Integer, DomainState> states = new HashMap<>();
    final Map<String, Long> counters = new TreeMap<>();
    /** The counter-virtualization policy the host reports. */
    String policy = "systemwide";
    /** Guests' own profilers: one ring per vCPU, and the counters they programmed. */
    final Map<Integer, List<FakeSharedBuffer>> guestRings = new TreeMap<>();
    final Map<Integer, List<CounterConfig>> guestCounters = new TreeMap<>();
    int guestRestarts;
    long guestEntriesDiscarded;
    /** The progress listener of the run under way, so that a workload can report progress mid-run. */
    ProgressListener progress = ProgressListener.NONE;

    FakeHost() {
        this("xen:1000 100 do_grant_table_op\n1100 100 evtchn_send\n", "kallsyms");
    }

    /** dom0, dom1, a PV dom2 and an HVM dom3. */
    static FakeHost withGuests() {
        return new FakeHost("xen:1000 100 do_grant_table_op\n1100 100 evtchn_send\n", "kallsyms", true);
    }

    FakeHost(String xenSymbols, String symbolFormat) {
        this(xenSymbols, symbolFormat, false);
    }

    private FakeHost(String xenSymbols, String symbolFormat, boolean guests) {
        xenoprof = new FakeXenoprof(0, guests ? Map.of(0, 1, 1, 2, 2, 1, 3, 1) : Map.of(0, 1, 1, 2));
        ImageSource xen = source("xen-syms", symbolFormat, xenSymbols.startsWith("xen:")
                ? shift(XEN, xenSymbols.substring(4)) : xenSymbols);
        ImageSource vmlinux = source("vmlinux", "kallsyms", shift(KERNEL, "0 100 netif_receive_skb\n100 80 br_handle_frame\n"));
        ImageSource netback = source("netback.ko", "kallsyms", shift(MODULE, "0 200 net_tx_action\n"));
        ImageSource tcp = source("tcp_receiver", "kallsyms", "100 50 main\n150 100 recv_loop\n");
        String[] names = {"Domain-0", "domU-rcv", "domU-pv", "domU-hvm"};
        for (int d = 0; d <= (guests ? 3 : 1); d++) {
            List<Mapping> map = List.of(
                    new Mapping(XEN, XEN + 0x100000, "xen-syms", ImageKind.HYPERVISOR, xen, 0),
                    new Mapping(KERNEL, KERNEL + 0x400000, d <= 1 ? "vmlinux" : "vmlinux-" + d, ImageKind.KERNEL,
                            vmlinux, 0),
                    new Mapping(MODULE, MODULE + 0x10000, "netback.ko", ImageKind.MODULE, netback, 0),
                    new Mapping(USER, USER + 0x100000, "tcp_receiver", ImageKind.USER, tcp, USER));
            domains.add(new DomainInfo(d, names[d], d == 3, d == 1 ? 2 : 1, d == 0, map));
            states.put(d, DomainState.RUNNING);
        }
        xenoprof.exists = id -> states.containsKey(id) && states.get(id) != DomainState.DESTROYED;
    }

    private static String shift(long base, String lines) {
        StringBuilder b = new StringBuilder();
        for (String l : lines.split("\n")) {
            String[] f = l.split(" ");
            b.append(Long.toHexString(base + Long.parseLong(f[0], 16))).append(' ').append(f[1]).append(' ')
                    .append(f[2]).append('\n');
        }
        return b.toString();
    }

    static ImageSource source(String image, String format, String text) {
        return new ImageSource(image, format, "mem:" + image,
                () -> new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    HostService service() {
        FakeHost self = this;
        return new HostService() {
            @Override
            public List<String> scenarios() {
                return List.of("fake");
            }

            @Override
            public Host load(String scenario, String cpuTypeOverride) {
                return self;
            }

            @Override
            public Optional<Host> current() {
                return Optional.of(self);
            }
        };
    }

    /** The host stops for good: listeners hear it. */
    void stop(String reason) {
        stopReason = reason;
        for (HostListener l : listeners) {
            l.hostStopped(this, reason);
        }
    }

    @Override
    public String name() {
        return "fake-host";
    }

    @Override
    public String description() {
        return "two domains for the profiler's tests";
    }

    @Override
    public PmuModel model() {
        return model;
    }

    @Override
    public long mhz() {
        return 2800;
    }

    @Override
    public int pcpuCount() {
        return 2;
    }

    @Override
    public String policy() {
        return policy;
    }

    /** Domain {@code domid} runs a profiler of its own: one ring of {@code ringSize} slots per vCPU. */
    List<FakeSharedBuffer> guestProfiler(int domid, int ringSize, CounterConfig... programmed) {
        List<FakeSharedBuffer> rings = new ArrayList<>();
        for (int v = 0; v < domain(domid).vcpus(); v++) {
            rings.add(new FakeSharedBuffer(v, ringSize));
        }
        guestRings.put(domid, rings);
        guestCounters.put(domid, List.of(programmed));
        return rings;
    }

    /** A counter a guest programmed: number {@code n} counting {@code event} every {@code count}. */
    CounterConfig counter(int n, String event, long count) {
        return new CounterConfig(n, model.events().find(event).orElseThrow(), count, 0, true, true);
    }

    @Override
    public List<org.hyperprof.api.xenoprof.SharedBuffer> guestProfilerBuffers(int domid) {
        return List.copyOf(guestRings.getOrDefault(domid, List.of()));
    }

    @Override
    public List<CounterConfig> guestProfilerCounters(int domid) {
        return guestCounters.getOrDefault(domid, List.of());
    }

    @Override
    public void restartGuestProfilerBuffers() {
        guestRestarts++;
        for (List<FakeSharedBuffer> rings : guestRings.values()) {
            for (FakeSharedBuffer r : rings) {
                guestEntriesDiscarded += r.discard();
            }
        }
    }

    @Override
    public List<DomainInfo> domains() {
        return domains;
    }

    @Override
    public DomainInfo domain(int domid) {
        for (DomainInfo d : domains) {
            if (d.domid() == domid) {
                return d;
            }
        }
        throw new IllegalArgumentException("no domain " + domid + "; the domains are " + domains.stream()
                .map(d -> d.domid() + " (" + d.name() + ")").collect(java.util.stream.Collectors.joining(", ")));
    }

    @Override
    public DomainState domainState(int domid) {
        DomainState s = states.get(domid);
        if (s == null) {
            domain(domid);
        }
        return s;
    }

    @Override
    public void pauseDomain(int domid) {
        if (domainState(domid) == DomainState.DESTROYED) {
            throw new IllegalStateException("domain " + domid + " is destroyed");
        }
        states.put(domid, DomainState.PAUSED);
        counters.merge("domains.paused", 1L, Long::sum);
    }

    @Override
    public void unpauseDomain(int domid) {
        if (domainState(domid) == DomainState.DESTROYED) {
            throw new IllegalStateException("domain " + domid + " is destroyed");
        }
        states.put(domid, DomainState.RUNNING);
    }

    /** As Xen does: the domain is gone, Xenoprof drops its buffers, its lists entry and its VIRQ binding. */
    @Override
    public void destroyDomain(int domid) {
        if (domainState(domid) == DomainState.DESTROYED) {
            throw new IllegalStateException("domain " + domid + " is already destroyed");
        }
        states.put(domid, DomainState.DESTROYED);
        xenoprof.destroyed(domid);
        counters.merge("domains.destroyed", 1L, Long::sum);
    }

    @Override
    public Map<String, Long> counters() {
        return new TreeMap<>(counters);
    }

    @Override
    public FakeXenoprof xenoprof() {
        return xenoprof;
    }

    @Override
    public long cycles() {
        return cycles;
    }

    @Override
    public long run(long micros, ProgressListener progress) throws HostStoppedException {
        if (stopReason != null) {
            throw new HostStoppedException(stopReason);
        }
        this.progress = progress;
        try {
            workload.run(this, micros);
        } finally {
            this.progress = ProgressListener.NONE;
        }
        cycles += micros * mhz();
        progress.progress(micros, micros, 0);
        return 0;
    }

    @Override
    public GroundTruth groundTruth() {
        return new GroundTruth(List.of());
    }

    @Override
    public void resetGroundTruth() {
        groundTruthResets++;
    }

    @Override
    public String stopReason() {
        return stopReason;
    }

    @Override
    public void addListener(HostListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(HostListener listener) {
        listeners.remove(listener);
    }
}
