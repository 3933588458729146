package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;

/** Wiring shared by the simulator tests: the real P6 model, the system-wide policy, a Xenoprof session. */
final class Fixtures {
    static final String P6_BUNDLE = "org.hyperprof.pmu.p6";
    static final String SYSTEMWIDE_BUNDLE = "org.hyperprof.vpmu.systemwide";
    /** CPU_CLK_UNHALTED on P6. */
    static final int CPU_CLK_UNHALTED = 0x79;

    private Fixtures() {
    }

    static HostServiceImpl service() {
        HostServiceImpl service = new HostServiceImpl();
        service.addModel(new P6PmuModel(), P6_BUNDLE);
        service.addPolicy(new SystemWidePolicy(), SYSTEMWIDE_BUNDLE);
        return service;
    }

    /**
     * {@code text} as a scenario file {@code mini.scenario} in {@code dir}, with the embedded symbol
     * files {@link #minimal} names copied next to it.
     */
    static java.nio.file.Path scenarioFile(java.nio.file.Path dir, byte[] text) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir.resolve("symbols"));
        for (String f : List.of("xen-syms-3.0.map", "vmlinux-syms-2.6.16-xen0.map", "rcv22.map")) {
            java.nio.file.Path to = dir.resolve("symbols").resolve(f);
            if (!java.nio.file.Files.exists(to)) {
                try (java.io.InputStream in = Fixtures.class.getClassLoader()
                        .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/symbols/" + f)) {
                    java.nio.file.Files.copy(in, to);
                }
            }
        }
        java.nio.file.Path file = dir.resolve("mini.scenario");
        java.nio.file.Files.write(file, text);
        return file;
    }

    /** The message of the {@link ScenarioException} that parsing {@code text} throws. */
    static String parseError(String text) {
        return org.junit.jupiter.api.Assertions.assertThrows(ScenarioException.class, () -> parse(text)).getMessage();
    }

    static final String PPC970_BUNDLE = "org.hyperprof.pmu.ppc970";
    static final String AMD_BUNDLE = "org.hyperprof.pmu.amd";

    /**
     * Every CPU model the project has (P6, the four AMD ones, PowerPC 970), the system-wide policy
     * and the ELF symbol resolver, as a launch with the 970 bundle installed has them.
     */
    static HostServiceImpl everyModel() {
        HostServiceImpl service = service();
        service.addModel(new org.hyperprof.pmu.amd.AthlonPmuModel(), AMD_BUNDLE);
        service.addModel(new org.hyperprof.pmu.amd.HammerPmuModel(), AMD_BUNDLE);
        service.addModel(new org.hyperprof.pmu.amd.Family10PmuModel(), AMD_BUNDLE);
        service.addModel(new org.hyperprof.pmu.amd.Family15hPmuModel(), AMD_BUNDLE);
        service.addModel(new org.hyperprof.pmu.ppc970.Ppc970PmuModel(), PPC970_BUNDLE);
        service.addResolver("elf", new org.hyperprof.symbols.elf.ElfResolver());
        return service;
    }

    static SimHost defaultHost() throws ScenarioException {
        return (SimHost) service().load(HostService.DEFAULT_SCENARIO, null);
    }

    /** A scenario given as text; the symbol files it names come from the embedded scenario folder. */
    static SimHost host(String text) throws ScenarioException {
        return new SimHost(parse(text), new P6PmuModel(), P6_BUNDLE, new SystemWidePolicy(), SYSTEMWIDE_BUNDLE);
    }

    static org.hyperprof.hypervisor.sim.scenario.Scenario parse(String text) throws ScenarioException {
        return org.hyperprof.hypervisor.sim.scenario.ScenarioParser.parse(ScenarioOrigin.text("test.scenario", text,
                Fixtures.class.getClassLoader(), HostServiceImpl.SCENARIO_FOLDER));
    }

    /** One paravirtualized domain with one vCPU, half busy: the domain line of most value tests. */
    static final String ONE_DOMAIN = "domain 0 d0 type=pv vcpus=1 load=0.5 hardware=yes";

    /** A minimal valid scenario: one PV domain with one region, plus whatever {@code extra} adds at the end. */
    static String minimal(String hostExtra, String domainLine, String extra) {
        return "scenario mini\n"
                + "cpu.type i386/p6\n"
                + "cpu.mhz 1000\n"
                + "cpu.count 1\n"
                + "seed 7\n"
                + hostExtra
                + "cost.halt default_idle\n"
                + "hypervisor xen-syms 0xff100000-0xff12a000 symbols/xen-syms-3.0.map\n"
                + domainLine + "\n"
                + "kernel vmlinux 0xc0100000-0xc0121000 symbols/vmlinux-syms-2.6.16-xen0.map\n"
                + "process rcv22 0x08048000-0x08049000 symbols/rcv22.map\n"
                + "region k kernel vmlinux weight=1\n"
                + "symbol tcp_v4_rcv 1\n"
                + extra;
    }

    /**
     * Sets up and starts a Xenoprof session as the real driver would, with every domain active,
     * sampling CPU_CLK_UNHALTED every {@code count} cycles in OS and/or USR mode, and a daemon per
     * domain that drains its buffers on each VIRQ into {@code sampled}.
     */
    static Sampled startProfiling(SimHost host, long count, boolean kernel, boolean user) {
        return startProfiling(host, count, kernel, user, 0);
    }

    /** As above, with call traces of up to {@code backtraceDepth} return addresses per sample. */
    static Sampled startProfiling(SimHost host, long count, boolean kernel, boolean user, long backtraceDepth) {
        Xenoprof x = host.xenoprof();
        Sampled sampled = new Sampled();
        List<Integer> domids = host.domains().stream().map(d -> d.domid()).toList();
        for (int domid : domids) {
            ok(x, domid, XenoprofOp.INIT, new XenoprofInit());
        }
        ok(x, 0, XenoprofOp.RESET_ACTIVE_LIST, null);
        for (int domid : domids) {
            ok(x, 0, XenoprofOp.SET_ACTIVE, domid);
        }
        for (int domid : domids) {
            ok(x, domid, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(2048));
            SharedBuffer[] buffers = x.mapBuffers(domid, domid);
            x.bindVirq(domid, vcpu -> sampled.drain(domid, buffers[vcpu]));
            sampled.buffers.put(domid, buffers);
        }
        if (backtraceDepth > 0) {
            ok(x, 0, XenoprofOp.SET_BACKTRACE, backtraceDepth);
        }
        ok(x, 0, XenoprofOp.RESERVE_COUNTERS, null);
        ok(x, 0, XenoprofOp.COUNTER, unhaltedCycles(count, kernel, user));
        ok(x, 0, XenoprofOp.SETUP_EVENTS, null);
        for (int domid : domids) {
            ok(x, domid, XenoprofOp.ENABLE_VIRQ, null);
        }
        ok(x, 0, XenoprofOp.START, null);
        return sampled;
    }

    /**
     * A multi-domain session as the real drivers set it up: dom0 primary; {@code active} (dom0
     * included or not) each get their buffers ({@code activeMaxSamples} slots) and a daemon that
     * drains them on its VIRQ; {@code passive} get buffers of 2048 slots shared with dom0, whose
     * daemon drains them after its own on every VIRQ (xenoprof_handle_passive). Sampling counter 0
     * on unhalted cycles every {@code count} cycles in OS and/or USR mode, with call traces of
     * {@code depth}. What every daemon drained is filed under the domain that owns the buffer.
     */
    static Sampled startSession(SimHost host, long count, boolean kernel, boolean user, long depth,
            int activeMaxSamples, List<Integer> active, List<Integer> passive) {
        return startSession(host, unhaltedCycles(count, kernel, user), depth, activeMaxSamples, active, passive);
    }

    /** Counter 0 sampling unhalted cycles every {@code count} cycles in OS and/or USR mode. */
    private static XenoprofCounter unhaltedCycles(long count, boolean kernel, boolean user) {
        XenoprofCounter c = new XenoprofCounter();
        c.ind = 0;
        c.count = count;
        c.enabled = 1;
        c.event = CPU_CLK_UNHALTED;
        c.kernel = kernel ? 1 : 0;
        c.user = user ? 1 : 0;
        return c;
    }

    /**
     * The host model's default event ({@code PmuModel.defaultEvent()}, a cycle count on every
     * model) with period {@code count}, allocated by the model, as Xenoprof's counter configuration.
     */
    static XenoprofCounter defaultEvent(PmuModel model, long count) {
        try {
            EventSpec spec = EventSpec.parse(model.defaultEvent());
            CounterConfig cc = model.allocate(List.of(new EventSpec(spec.eventName(), count, spec.unitMask(),
                    spec.kernel(), spec.user())))[0];
            XenoprofCounter c = new XenoprofCounter();
            c.ind = cc.counter();
            c.count = cc.count();
            c.enabled = 1;
            c.event = cc.event().code();
            c.unitMask = cc.unitMask();
            c.kernel = cc.kernel() ? 1 : 0;
            c.user = cc.user() ? 1 : 0;
            return c;
        } catch (EventSpecException e) {
            throw new AssertionError(model.cpuType() + " refuses its own default event: " + e.getMessage(), e);
        }
    }

    /** Every domain active, dom0 primary, sampling with counter configuration {@code c}. */
    static Sampled startProfiling(SimHost host, XenoprofCounter c) {
        return startSession(host, c, 0, 2048, host.domains().stream().map(d -> d.domid()).toList(), List.of());
    }

    /** As {@link #startSession(SimHost, long, boolean, boolean, long, int, List, List)} with any counter configuration. */
    static Sampled startSession(SimHost host, XenoprofCounter c, long depth, int activeMaxSamples, List<Integer> active,
            List<Integer> passive) {
        return startSession(host, c, null, depth, activeMaxSamples, active, passive);
    }

    /** As above, storing the AMD IBS configuration {@code ibs} (when not null) after the counter. */
    static Sampled startSession(SimHost host, XenoprofCounter c, org.hyperprof.api.xenoprof.XenoprofIbsCounter ibs,
            long depth, int activeMaxSamples, List<Integer> active, List<Integer> passive) {
        Xenoprof x = host.xenoprof();
        Sampled sampled = new Sampled();
        ok(x, 0, XenoprofOp.INIT, new XenoprofInit());
        ok(x, 0, XenoprofOp.RESET_ACTIVE_LIST, null);
        for (int domid : active) {
            ok(x, 0, XenoprofOp.SET_ACTIVE, domid);
        }
        ok(x, 0, XenoprofOp.RESET_PASSIVE_LIST, null);
        for (int domid : passive) {
            ok(x, 0, XenoprofOp.SET_PASSIVE, new org.hyperprof.api.xenoprof.XenoprofPassive(domid, 2048));
            sampled.buffers.put(domid, x.mapBuffers(0, domid));
        }
        for (int domid : active) {
            if (domid != 0) {
                ok(x, domid, XenoprofOp.INIT, new XenoprofInit());
            }
            ok(x, domid, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(activeMaxSamples));
            SharedBuffer[] own = x.mapBuffers(domid, domid);
            sampled.buffers.put(domid, own);
            x.bindVirq(domid, vcpu -> {
                sampled.drain(domid, own[vcpu]);
                if (domid == 0) {
                    for (int p : passive) {
                        for (SharedBuffer b : sampled.buffers.get(p)) {
                            sampled.drain(p, b);
                        }
                    }
                }
            });
        }
        if (depth > 0) {
            ok(x, 0, XenoprofOp.SET_BACKTRACE, depth);
        }
        ok(x, 0, XenoprofOp.RESERVE_COUNTERS, null);
        ok(x, 0, XenoprofOp.COUNTER, c);
        if (ibs != null) {
            ok(x, 0, XenoprofOp.IBS_COUNTER, ibs);
        }
        ok(x, 0, XenoprofOp.SETUP_EVENTS, null);
        for (int domid : active) {
            ok(x, domid, XenoprofOp.ENABLE_VIRQ, null);
        }
        ok(x, 0, XenoprofOp.START, null);
        return sampled;
    }

    /** A whole session of {@link #startProfiling}: started, run for {@code micros} of simulated time, stopped. */
    static Sampled profile(SimHost host, long count, boolean kernel, boolean user, long micros)
            throws HostStoppedException {
        Sampled sampled = startProfiling(host, count, kernel, user);
        host.run(micros, null);
        stopProfiling(host, sampled);
        return sampled;
    }

    static void stopProfiling(SimHost host, Sampled sampled) {
        ok(host.xenoprof(), 0, XenoprofOp.STOP, null);
        sampled.buffers.forEach((domid, buffers) -> {
            for (SharedBuffer b : buffers) {
                sampled.drain(domid, b);
            }
        });
    }

    static void ok(Xenoprof x, int caller, XenoprofOp op, Object arg) {
        long r = x.hypercall(caller, op, arg);
        assertEquals(0, r, () -> op + " by dom" + caller + ": " + x.explain(caller, op, r));
    }

    /** What the daemons drained: samples per domain, per mode and per PC. */
    static final class Sampled {
        final Map<Integer, SharedBuffer[]> buffers = new HashMap<>();
        /** Domains whose daemon stopped draining (it still runs, but reads nothing). */
        final java.util.Set<Integer> stalled = new java.util.HashSet<>();
        final Map<Integer, long[]> perMode = new HashMap<>();
        final Map<Integer, Map<Long, Integer>> perPc = new HashMap<>();
        /** Every entry in buffer order, escape records and trace entries included: {eip, mode, event}. */
        final Map<Integer, List<long[]>> entries = new HashMap<>();
        long total;

        void drain(int domid, SharedBuffer b) {
            int tail = b.tail();
            int head = b.head();
            if (stalled.contains(domid) || head < 0 || head >= b.size() || tail < 0 || tail >= b.size()) {
                return; // a careful daemon reads nothing through indices a guest has wrecked
            }
            while (tail != head) {
                entries.computeIfAbsent(domid, d -> new ArrayList<>())
                        .add(new long[] {b.eip(tail), b.mode(tail), b.event(tail)});
                if (b.eip(tail) == SharedBuffer.ESCAPE_CODE) {
                    tail = (tail + 1) % b.size();
                    continue;
                }
                perMode.computeIfAbsent(domid, d -> new long[3])[b.mode(tail)]++;
                perPc.computeIfAbsent(domid, d -> new HashMap<>()).merge(b.eip(tail), 1, Integer::sum);
                total++;
                tail = (tail + 1) % b.size();
            }
            b.writeTail(tail);
        }

        /**
         * The samples drained from a domain's buffers, {pc, mode, counter}, without escape records
         * and call-trace entries (each trace is an escape record, then the sample, then its frames).
         */
        List<long[]> mainSamples(int domid, boolean traced) {
            List<long[]> out = new ArrayList<>();
            List<long[]> all = entries.getOrDefault(domid, List.of());
            for (int i = 0; i < all.size(); i++) {
                long[] e = all.get(i);
                if (e[0] == SharedBuffer.ESCAPE_CODE) {
                    continue;
                }
                if (!traced || i > 0 && all.get(i - 1)[0] == SharedBuffer.ESCAPE_CODE) {
                    out.add(e);
                }
            }
            return out;
        }

        long samples(int domid) {
            long[] m = perMode.get(domid);
            return m == null ? 0 : m[0] + m[1] + m[2];
        }

        long samples(int domid, CpuMode mode) {
            long[] m = perMode.get(domid);
            return m == null ? 0 : m[mode.code()];
        }
    }

    /** Total of a signal over the rows of one domain (and mode, when not null), in whole events. */
    static double events(GroundTruth truth, int domid, CpuMode mode, Signal signal) {
        long milli = 0;
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == domid && (mode == null || r.mode() == mode)) {
                milli += r.milli(signal);
            }
        }
        return milli / 1000.0;
    }

    /** Cycles of one function of one domain. */
    static double cycles(GroundTruth truth, int domid, String symbol) {
        long milli = 0;
        for (GroundTruth.Row r : truth.rows()) {
            if (r.domid() == domid && r.symbol().equals(symbol)) {
                milli += r.milli(Signal.CYCLES);
            }
        }
        return milli / 1000.0;
    }

    static List<String> rowsOf(GroundTruth truth) {
        List<String> out = new ArrayList<>();
        for (GroundTruth.Row r : truth.rows()) {
            out.add(r.domid() + "/" + r.vcpu() + "/" + r.mode() + "/" + r.image() + "/" + r.symbol() + "="
                    + java.util.Arrays.toString(r.signalMilli()));
        }
        return out;
    }
}
