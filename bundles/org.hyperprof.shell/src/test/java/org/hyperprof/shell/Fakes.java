package org.hyperprof.shell;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostListener;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.output.Content;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.VirqHandler;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.api.xenoprof.XenoprofStatistics;
import org.hyperprof.command.kit.Console;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.EventTableReader;
import org.hyperprof.testing.xenoprof.FakeSharedBuffer;

/** Hand-written stand-ins for the services the shell talks to; each records what it was asked. */
final class Fakes {
    private Fakes() {
    }

    /** A small event table in OProfile's format, shaped like P6's. */
    static final String EVENTS = String.join("\n",
            "# test table",
            "event:0x79 counters:0,1 um:zero minimum:6000 name:CPU_CLK_UNHALTED signal:CYCLES : clocks processor is not halted",
            "event:0x29 counters:0,1 um:mesi minimum:500 name:L2_LD signal:L2_REQUESTS : number of L2 data loads",
            "event:0xc1 counters:0 um:zero minimum:3000 name:FLOPS signal:FP_OPERATIONS : number of computational FP operations");
    static final String UNIT_MASKS = String.join("\n",
            "name:zero type:mandatory default:0x0",
            "\t0x0 No unit mask",
            "name:mesi type:bitmask default:0x0f",
            "\t0x08 (M)odified cache state",
            "\t0x04 (E)xclusive cache state",
            "\t0x02 (S)hared cache state",
            "\t0x01 (I)nvalid cache state");

    static EventTable table() {
        try {
            return EventTableReader.parse("test/p6", new StringReader(EVENTS), new StringReader(UNIT_MASKS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Collects what a command prints on its two streams. */
    /**
     * Runs a command that must fail as commands fail: it prints why, then throws {@link CommandFailure}.
     *
     * @return the exit status the failure carries (1, or 2 for a usage error)
     */
    static int fails(Runnable command) {
        return org.junit.jupiter.api.Assertions.assertThrows(CommandFailure.class, command::run).status();
    }

    static final class Captured {
        final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        final Console console = Console.of(new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));

        String out() {
            return outBytes.toString(StandardCharsets.UTF_8);
        }

        String err() {
            return errBytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** A CPU model the shell lists and reads events from, and never allocates on. */
    static final class Model extends AbstractPmuModel {
        Model(String cpuType) {
            this(cpuType, "PIII", 2, 40, table(), "CPU_CLK_UNHALTED:100000:0:1:1");
        }

        Model(String cpuType, String cpuName, int counters, int counterWidth, EventTable events,
                String defaultEvent) {
            super(cpuType, cpuName, counters, counterWidth, events, defaultEvent);
        }

        @Override
        public CounterConfig[] allocate(List<EventSpec> specs) {
            throw new UnsupportedOperationException("the shell never allocates counters");
        }

        @Override
        protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
            throw new UnsupportedOperationException("the shell never creates a PMU");
        }
    }

    /** One recorded hypercall. */
    record Call(int caller, int op, Object arg) {
    }

    static final class FakeXenoprof implements Xenoprof {
        final List<Call> calls = new ArrayList<>();
        final Map<Integer, Long> results = new HashMap<>();
        XenoprofState state = XenoprofState.IDLE;
        int primary = -1;
        int[] activeList = new int[0];
        int[] passiveList = new int[0];
        int activated;
        final Map<Integer, DomainType> types = new HashMap<>();
        XenoprofStatistics statistics = new XenoprofStatistics(0, 0, 0, 0, 0, 0, 0, 0);

        @Override
        public long hypercall(int callerDomid, int op, Object arg) {
            calls.add(new Call(callerDomid, op, arg));
            if (op < 0 || op > XenoprofOp.LAST_OP) {
                return Errno.EINVAL.ret();
            }
            long r = results.getOrDefault(op, 0L);
            if (r >= 0 && arg instanceof XenoprofInit init) {
                init.numEvents = 2;
                init.isPrimary = callerDomid == 0 ? 1 : 0;
                init.cpuType = "i386/p6";
            }
            if (r >= 0 && arg instanceof XenoprofGetBuffer b) {
                b.nbuf = 1;
                b.bufsize = 4096;
                b.bufGmaddr = 0x1f000L;
            }
            return r;
        }

        @Override
        public String explain(int callerDomid, XenoprofOp op, long result) {
            return "explained: " + op.cName() + " by dom" + callerDomid + " = " + result;
        }

        @Override
        public XenoprofState state() {
            return state;
        }

        @Override
        public int primary() {
            return primary;
        }

        @Override
        public DomainType domainType(int domid) {
            return types.getOrDefault(domid, DomainType.IGNORED);
        }

        @Override
        public int activeListSize() {
            return activeList.length;
        }

        @Override
        public int activated() {
            return activated;
        }

        @Override
        public int[] activeList() {
            return activeList.clone();
        }

        @Override
        public int[] passiveList() {
            return passiveList.clone();
        }

        int backtraceDepth;

        @Override
        public int backtraceDepth() {
            return backtraceDepth;
        }

        /** Buffers each domain got with get_buffer, shared with itself. */
        final Map<Integer, FakeSharedBuffer[]> ownBuffers = new HashMap<>();
        /** Why mapping a domain's buffers fails, as Xen would say it (e.g. shared with the primary). */
        final Map<Integer, String> mapRefusals = new HashMap<>();
        final List<String> maps = new ArrayList<>();

        @Override
        public SharedBuffer[] mapBuffers(int mapperDomid, int ownerDomid) {
            maps.add(mapperDomid + " maps " + ownerDomid);
            String refusal = mapRefusals.get(ownerDomid);
            if (refusal != null) {
                throw new IllegalStateException(refusal);
            }
            FakeSharedBuffer[] buffers = mapperDomid == ownerDomid ? ownBuffers.get(ownerDomid) : null;
            if (buffers == null) {
                throw new IllegalStateException("domain " + ownerDomid + " has no Xenoprof buffers to map: domain "
                        + ownerDomid + " must call get_buffer first");
            }
            return buffers.clone();
        }

        @Override
        public void bindVirq(int domid, VirqHandler handler) {
            throw new UnsupportedOperationException("the shell never binds VIRQs");
        }

        @Override
        public void unbindVirq(int domid) {
            throw new UnsupportedOperationException("the shell never binds VIRQs");
        }

        @Override
        public XenoprofStatistics statistics() {
            return statistics;
        }
    }

    static final class FakeHost implements Host {
        final String name;
        final Model model = new Model("i386/p6");
        final FakeXenoprof xenoprof = new FakeXenoprof();
        /** Set by a test that needs more domains (a passive PV, an HVM guest). */
        List<DomainInfo> domains = List.of(
                new DomainInfo(0, "Domain-0", false, 1, true, List.of(
                        new Mapping(0xff000000L, 0xff100000L, "xen-syms", ImageKind.HYPERVISOR, null, 0),
                        new Mapping(0xc0000000L, 0xc0400000L, "vmlinux", ImageKind.KERNEL, null, 0),
                        new Mapping(0xd0000000L, 0xd0010000L, "e1000", ImageKind.MODULE, null, 0))),
                new DomainInfo(1, "domU-rcv", false, 1, false, List.of(
                        new Mapping(0xc0000000L, 0xc0400000L, "vmlinux", ImageKind.KERNEL, null, 0),
                        new Mapping(0x08048000L, 0x08050000L, "tcp_recv", ImageKind.USER, null, 0))));
        final Map<Integer, DomainState> states = new HashMap<>();
        final Map<String, Long> counters = new TreeMap<>();
        final List<String> domainCalls = new ArrayList<>();
        long cycles;
        long samplesPerRun = 420;
        HostStoppedException runFailure;
        String stopReason;
        final List<Long> runs = new ArrayList<>();
        /** Called with the report's number (1 to 4) after each report of a run: where a test presses Ctrl-C. */
        java.util.function.IntConsumer afterReport = report -> { };

        FakeHost(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return "dom0 drives the NIC, dom1 receives one TCP stream";
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
            return 1;
        }

        @Override
        public String policy() {
            return "systemwide";
        }

        @Override
        public List<DomainInfo> domains() {
            return domains;
        }

        @Override
        public DomainInfo domain(int domid) {
            return domains.stream().filter(d -> d.domid() == domid).findFirst().orElseThrow(
                    () -> new IllegalArgumentException("no domain " + domid + "; the host has dom0, dom1"));
        }

        @Override
        public Xenoprof xenoprof() {
            return xenoprof;
        }

        @Override
        public long cycles() {
            return cycles;
        }

        /** What {@link #noSamplesExpected} answers. */
        List<String> noSamples = List.of();

        @Override
        public List<String> noSamplesExpected(long micros) {
            return noSamples;
        }

        @Override
        public long run(long micros, ProgressListener progress) throws HostStoppedException {
            runs.add(micros);
            if (runFailure != null) {
                throw runFailure;
            }
            // Four steps with a progress report each, as a simulation jumping between events would give;
            // a stop request ends the run before its next step, as the simulator's does.
            for (int i = 1; i <= 4; i++) {
                if (progress.stopRequested()) {
                    cycles += micros * (i - 1) / 4 * mhz();
                    return samplesPerRun * (i - 1) / 4;
                }
                progress.progress(micros * i / 4, micros, samplesPerRun * i / 4);
                afterReport.accept(i);
            }
            cycles += micros * mhz();
            return samplesPerRun;
        }

        @Override
        public GroundTruth groundTruth() {
            return new GroundTruth(List.of());
        }

        @Override
        public void resetGroundTruth() {
        }

        @Override
        public DomainState domainState(int domid) {
            domain(domid);
            return states.getOrDefault(domid, DomainState.RUNNING);
        }

        @Override
        public void pauseDomain(int domid) {
            refuseHardwareDomain(domid, "pause");
            requireAlive(domid, "pause");
            domainCalls.add("pause " + domid);
            states.put(domid, DomainState.PAUSED);
        }

        @Override
        public void unpauseDomain(int domid) {
            requireAlive(domid, "unpause");
            domainCalls.add("unpause " + domid);
            states.put(domid, DomainState.RUNNING);
        }

        @Override
        public void destroyDomain(int domid) {
            refuseHardwareDomain(domid, "destroy");
            requireAlive(domid, "destroy");
            domainCalls.add("destroy " + domid);
            states.put(domid, DomainState.DESTROYED);
            // As Xen does: the destroyed domain leaves both lists.
            xenoprof.activeList = java.util.Arrays.stream(xenoprof.activeList).filter(id -> id != domid).toArray();
            xenoprof.passiveList = java.util.Arrays.stream(xenoprof.passiveList).filter(id -> id != domid).toArray();
        }

        /** As the simulator does: Xen will not pause or destroy the domain its toolstack runs in. */
        private void refuseHardwareDomain(int domid, String what) {
            if (domain(domid).hardwareDomain()) {
                throw new IllegalArgumentException("domain " + domid + " is the hardware domain: Xen refuses to "
                        + what + " it");
            }
        }

        private void requireAlive(int domid, String what) {
            if (domainState(domid) == DomainState.DESTROYED) {
                throw new IllegalStateException("cannot " + what + " domain " + domid + ": it was destroyed");
            }
        }

        @Override
        public Map<String, Long> counters() {
            return counters;
        }

        @Override
        public String stopReason() {
            return stopReason;
        }

        @Override
        public void addListener(HostListener listener) {
        }

        @Override
        public void removeListener(HostListener listener) {
        }
    }

    static final class FakeHostService implements HostService {
        FakeHost current;
        final List<String> loads = new ArrayList<>();
        ScenarioException loadFailure;

        @Override
        public List<String> scenarios() {
            return List.of(DEFAULT_SCENARIO, "two-domus");
        }

        @Override
        public Host load(String scenario, String cpuTypeOverride) throws ScenarioException {
            loads.add(scenario + (cpuTypeOverride == null ? "" : " --cpu " + cpuTypeOverride));
            if (loadFailure != null) {
                throw loadFailure;
            }
            current = new FakeHost(scenario);
            return current;
        }

        @Override
        public Optional<Host> current() {
            return Optional.ofNullable(current);
        }
    }

    static final class FakeProfiler implements Profiler {
        final List<String> opcontrols = new ArrayList<>();
        final List<ProfileRequest> profiles = new ArrayList<>();
        OpcontrolResult opcontrolResult = new OpcontrolResult(true, "Daemon started.");
        ProfileException profileFailure;
        SessionSummary summary = summary(7, new Accounting(100, 90, 4, 5, 1), SessionSummary.COMPLETED);
        /** Called halfway through a profile: where a test presses Ctrl-C. */
        Runnable halfway = () -> { };
        /** Whether the profile's listener asked to stop, at each profile's halfway point. */
        final List<Boolean> stopRequestsHeard = new ArrayList<>();

        static SessionSummary summary(long id, Accounting accounting, String endReason) {
            return new SessionSummary(id, accounting, List.of(), List.of(new ConsumerAccounting("opreport", 90, 0, null)),
                    null, null, 2_800_000_000L, endReason);
        }

        @Override
        public OpcontrolResult opcontrol(int domid, List<String> args) {
            opcontrols.add(domid + " " + String.join(" ", args));
            return opcontrolResult;
        }

        @Override
        public SessionSummary profile(ProfileRequest request, ProgressListener progress) throws ProfileException {
            profiles.add(request);
            if (profileFailure != null) {
                throw profileFailure;
            }
            progress.progress(request.micros() / 2, request.micros(), 45);
            halfway.run();
            stopRequestsHeard.add(progress.stopRequested());
            progress.progress(request.micros(), request.micros(), 90);
            return summary;
        }

        @Override
        public Optional<SessionSummary> lastSummary() {
            return Optional.of(summary);
        }

        @Override
        public List<String> consumers() {
            return List.of("opreport");
        }
    }

    static final class FakeRenderer implements ReportRenderer {
        final List<ReportRequest> requests = new ArrayList<>();
        ReportException failure;
        List<String> options = List.of("symbols - one row per symbol", "top=N - the N largest rows");

        @Override
        public List<Long> sessions() {
            return List.of(6L, 7L);
        }

        @Override
        public List<String> options() {
            return options;
        }

        @Override
        public void render(ReportRequest request, Appendable out) throws IOException, ReportException {
            requests.add(request);
            out.append("CPU: PIII, speed 2800 MHz (estimated)\n");
            if (failure != null) {
                throw failure;
            }
            out.append("samples  %        image\n");
            out.append("60       66.67    xen-syms\n");
        }
    }

    /** A file writer whose content is one line naming the request and the format, or that fails as told. */
    static final class FakeWriter implements ReportFileWriter {
        final List<ReportRequest> requests = new ArrayList<>();
        final List<String> formats;
        ReportException failure;
        IOException ioFailure;

        FakeWriter(String... formats) {
            this.formats = List.of(formats);
        }

        @Override
        public List<Long> sessions() {
            return List.of(7L);
        }

        @Override
        public List<String> formats() {
            return formats;
        }

        @Override
        public Content content(ReportRequest request, String format) throws ReportException {
            requests.add(request);
            if (failure != null) {
                throw failure;
            }
            IOException io = ioFailure;
            byte[] line = (format + " of session " + request.sessionId() + "\n").getBytes(StandardCharsets.UTF_8);
            return out -> {
                if (io != null) {
                    throw io;
                }
                out.write(line);
            };
        }
    }
}
