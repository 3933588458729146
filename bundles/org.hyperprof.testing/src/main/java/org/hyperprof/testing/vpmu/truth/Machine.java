package org.hyperprof.testing.vpmu.truth;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.vpmu.PolicySession;

/**
 * A small engine that drives a policy the way the brief says the hypervisor does, on real register
 * files, and keeps each guest's ground truth independently of the counters: the events of the
 * guest's own code (cpl 3) and of hypervisor work done for it (cpl 0) while it is current, from
 * the first hypervisor exit after its switch-in (after the work that exit charged) until the
 * switch that takes it off. Charged policy work runs right after the hook that charged it, as
 * hypervisor code; work of the switch path ({@link #switchPathCycles}) is nobody's.
 */
public final class Machine {
    public static final int HYPERVISOR_CPL = 0;
    public static final int USER_CPL = 3;

    public final CountingHost host;
    public final PolicySession session;
    public final SignalRates hypervisorRates;
    public long switchPathCycles = 5_000;
    public final Guest[] current;
    public final boolean[] inStint;
    /** Interrupts the policy left to Xenoprof (its NMI handler ran). */
    public int xenoprofChecks;
    /** Whether Xenoprof's NMI handler checks its counters on the physical PMU when the policy lets it. */
    public boolean xenoprofHandler;
    /** Overflows Xenoprof's handler found, by the route the policy gave them. */
    public final int[] routes = new int[3];

    public Machine(CountingHost host, PolicySession session, SignalRates hypervisorRates) {
        this.host = host;
        this.session = session;
        this.hypervisorRates = hypervisorRates;
        this.current = new Guest[host.pcpuCount()];
        this.inStint = new boolean[host.pcpuCount()];
    }

    public static SignalRates rates(long cycles, long instructions) {
        long[] r = new long[Signal.COUNT];
        r[Signal.CYCLES.ordinal()] = cycles;
        r[Signal.INSTRUCTIONS.ordinal()] = instructions;
        return SignalRates.of(r);
    }

    /** A guest vCPU with its own code's rates, its profiler's picture of its PMU, and its ground truth. */
    public final class Guest {
        public final int domid;
        public final int vcpu;
        public final SignalRates rates;
        public final long[] userEvents = new long[Signal.COUNT];
        public final long[] kernelEvents = new long[Signal.COUNT];
        private final long[] userResidue = new long[Signal.COUNT];
        private final long[] kernelResidue = new long[Signal.COUNT];
        public PhysicalPmu picture;
        public int refused;
        /** For every overflow its handler found: the counter and the guest's true user cycles then. */
        public final List<long[]> overflows = new ArrayList<>();

        Guest(int domid, int vcpu, SignalRates rates) {
            this.domid = domid;
            this.vcpu = vcpu;
            this.rates = rates;
        }

        public long user(Signal s) {
            return userEvents[s.ordinal()];
        }

        public long kernel(Signal s) {
            return kernelEvents[s.ordinal()];
        }

        public void count(long cycles, SignalRates r, int cpl) {
            long[] events = cpl == 0 ? kernelEvents : userEvents;
            long[] residue = cpl == 0 ? kernelResidue : userResidue;
            for (Signal s : Signal.values()) {
                events[s.ordinal()] += SignalRates.advance(r.perKilocycle(s), cycles, residue, s.ordinal());
            }
        }
    }

    public Guest guest(int domid, int vcpu, SignalRates rates) {
        return new Guest(domid, vcpu, rates);
    }

    /** The switch to {@code next} (null: idle), the switch path, and the exit into the guest. */
    public void switchTo(int pcpu, Guest next) {
        switchOnly(pcpu, next);
        runCharges(pcpu);
        hypervisor(pcpu, switchPathCycles);
        if (next != null) {
            session.hypervisorExit(pcpu, next.domid, next.vcpu);
            runCharges(pcpu);
            inStint[pcpu] = true;
            takePendingInjection(pcpu);
        }
    }

    /** The switch hook alone (no exit yet): for tests that look between switch and exit. */
    public void switchOnly(int pcpu, Guest next) {
        Guest prev = current[pcpu];
        inStint[pcpu] = false;
        session.vcpuSwitch(pcpu, prev == null ? -1 : prev.domid, prev == null ? 0 : prev.vcpu,
                next == null ? -1 : next.domid, next == null ? 0 : next.vcpu);
        current[pcpu] = next;
    }

    /** Runs what the policy charged on this CPU, as hypervisor code. */
    public void runCharges(int pcpu) {
        long cycles = host.pending[pcpu];
        host.pending[pcpu] = 0;
        hypervisor(pcpu, cycles);
    }

    /** Hypervisor code on this CPU (for the current guest while it is in its stint). */
    public void hypervisor(int pcpu, long cycles) {
        run(pcpu, cycles, hypervisorRates, HYPERVISOR_CPL);
    }

    /** The current guest's own code at user level. */
    public void guestCode(int pcpu, long cycles) {
        takePendingInjection(pcpu);
        run(pcpu, cycles, current[pcpu].rates, USER_CPL);
    }

    private void run(int pcpu, long cycles, SignalRates r, int cpl) {
        PhysicalPmu pmu = host.pmus[pcpu].real;
        long left = cycles;
        while (left > 0) {
            long step = Math.min(left, Math.max(1, pmu.cyclesUntilOverflow(r, cpl)));
            pmu.advance(step, r, cpl);
            if (inStint[pcpu]) {
                current[pcpu].count(step, r, cpl);
            }
            left -= step;
            if (pmu.interruptPending()) {
                takePmi(pcpu, cpl == 0 ? CpuMode.HYPERVISOR : CpuMode.USER);
            }
        }
    }

    private void takePmi(int pcpu, CpuMode mode) {
        host.pmus[pcpu].real.acknowledgeInterrupt();
        Guest g = current[pcpu];
        int d = g == null ? -1 : g.domid;
        int v = g == null ? 0 : g.vcpu;
        // An interrupt of guest code enters the hypervisor; one of hypervisor code is already in it.
        boolean fromGuest = mode != CpuMode.HYPERVISOR && g != null;
        if (fromGuest) {
            session.hypervisorEntry(pcpu, d, v);
        }
        if (session.pmuInterrupt(pcpu, d, v, mode)) {
            xenoprofChecks++;
            if (xenoprofHandler) {
                host.pmus[pcpu].real.checkCounters(c -> routes[session.overflow(pcpu, d, v, c, mode).ordinal()]++);
            }
        }
        runCharges(pcpu);
        if (fromGuest) {
            session.hypervisorExit(pcpu, d, v);
            runCharges(pcpu);
            takePendingInjection(pcpu);
        }
    }

    /** An injected interrupt is taken the next time the vCPU runs guest code: its profiler's handler. */
    private void takePendingInjection(int pcpu) {
        Guest g = current[pcpu];
        if (g == null || !host.injectionPending[g.domid * 16 + g.vcpu] || g.picture == null) {
            return;
        }
        host.injectionPending[g.domid * 16 + g.vcpu] = false;
        PhysicalPmu pic = g.picture;
        int[] counters = pic.counterRegisters();
        long[] before = new long[counters.length];
        for (int i = 0; i < counters.length; i++) {
            long value = read(pcpu, counters[i]);
            pic.write(counters[i], value);
            before[i] = pic.read(counters[i]);
        }
        long truth = g.user(Signal.CYCLES);
        pic.checkCounters(counter -> g.overflows.add(new long[] {counter, truth}));
        for (int i = 0; i < counters.length; i++) {
            if (pic.read(counters[i]) != before[i]) {
                write(pcpu, counters[i], pic.read(counters[i]));
            }
        }
        for (int reg : pic.interruptRegisters()) {
            write(pcpu, reg, pic.read(reg));
        }
    }

    /** A guest PMU read: a trap into the hypervisor. */
    public long read(int pcpu, int register) {
        Guest g = current[pcpu];
        session.hypervisorEntry(pcpu, g.domid, g.vcpu);
        long value = session.guestRead(pcpu, g.domid, g.vcpu, register);
        runCharges(pcpu);
        session.hypervisorExit(pcpu, g.domid, g.vcpu);
        runCharges(pcpu);
        return value;
    }

    /** A guest PMU write: a trap into the hypervisor; returns whether the policy took it. */
    public boolean write(int pcpu, int register, long value) {
        Guest g = current[pcpu];
        session.hypervisorEntry(pcpu, g.domid, g.vcpu);
        boolean taken = session.guestWrite(pcpu, g.domid, g.vcpu, register, value);
        if (!taken) {
            g.refused++;
        }
        runCharges(pcpu);
        session.hypervisorExit(pcpu, g.domid, g.vcpu);
        runCharges(pcpu);
        return taken;
    }

    /**
     * The current guest starts its profiler: the model's own driver (setup + start) on a private
     * copy, replayed register by register (counters, controls, interrupt registers).
     */
    public void startProfiler(int pcpu, String... specs) {
        Guest g = current[pcpu];
        List<EventSpec> list = new ArrayList<>();
        try {
            for (String s : specs) {
                list.add(EventSpec.parse(s));
            }
            CounterConfig[] configs = host.model.allocate(list);
            startProfiler(pcpu, configs);
        } catch (org.hyperprof.api.pmu.EventSpecException e) {
            throw new AssertionError(e);
        }
    }

    public void startProfiler(int pcpu, CounterConfig[] configs) {
        Guest g = current[pcpu];
        g.picture = host.model.createPmu(0, Map.of());
        g.picture.setup(configs);
        g.picture.start();
        for (int reg : g.picture.counterRegisters()) {
            write(pcpu, reg, g.picture.read(reg));
        }
        for (int reg : g.picture.controlRegisters()) {
            write(pcpu, reg, g.picture.read(reg));
        }
        for (int reg : g.picture.interruptRegisters()) {
            write(pcpu, reg, g.picture.read(reg));
        }
    }
}
