package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostListener;
import org.hyperprof.api.host.HostStoppedException;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.ImageSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.xenoprof.Machine;
import org.hyperprof.hypervisor.xenoprof.OverflowRouter;
import org.hyperprof.hypervisor.xenoprof.XenoprofCore;

/**
 * A simulated Xen host built from a {@link Scenario}: the {@link Host} users drive, the
 * {@link Machine} Xenoprof runs on, and the {@link PolicyHost} the counter-virtualization policy
 * works on.
 *
 * <p>Plain Java: {@code new SimHost(scenario, model, "bundle", policy, "bundle")}. A host that
 * stops (its model or policy departed, it was replaced) stays readable: ground truth, domains and
 * Xenoprof's buffers remain, only {@link #run} refuses.
 */
public final class SimHost implements Host, Machine, PolicyHost {
    private final Scenario scenario;
    private final PmuModel model;
    private final String modelBundle;
    private final CounterVirtualizationPolicy policy;
    private final String policyBundle;
    private final PhysicalPmu[] pmus;
    private final Engine engine;
    private final XenoprofCore xenoprof;
    private final PolicySession session;
    /** The policy's overflow decision, made once so that the NMI path allocates nothing. */
    private final OverflowRouter router;
    private final List<DomainInfo> domains;
    private final boolean anyHvm;
    private final List<HostListener> listeners = new CopyOnWriteArrayList<>();
    /** Held for a whole run: ground truth is read and reset between runs, never halfway through one. */
    private final Object runLock = new Object();
    /** Guards the one-time transitions: stopping and closing the policy session. */
    private final Object stateLock = new Object();

    /** Set from any thread when the host stops; checked by the running thread once per quantum. */
    private volatile String stopReason;
    private volatile boolean running;
    private boolean sessionClosed;

    /**
     * Builds the host: one PMU of {@code model} per physical CPU (with the scenario's options), the
     * machine, Xenoprof on top of it, and a session of {@code policy}.
     *
     * @param modelBundle  symbolic name of the bundle providing the model (named when it departs)
     * @param policyBundle symbolic name of the bundle providing the policy
     * @throws ScenarioException when the model refuses the scenario's PMU options
     */
    public SimHost(Scenario scenario, PmuModel model, String modelBundle, CounterVirtualizationPolicy policy,
            String policyBundle) throws ScenarioException {
        this.scenario = Objects.requireNonNull(scenario, "scenario");
        this.model = Objects.requireNonNull(model, "model");
        this.modelBundle = Objects.requireNonNull(modelBundle, "modelBundle");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.policyBundle = Objects.requireNonNull(policyBundle, "policyBundle");
        pmus = new PhysicalPmu[scenario.pcpus()];
        for (int p = 0; p < pmus.length; p++) {
            try {
                pmus[p] = model.createPmu(p, scenario.pmuOptions());
            } catch (IllegalArgumentException e) {
                throw new ScenarioException(scenario.where("pmu.option") + ": CPU model " + model.cpuType()
                        + " refuses the PMU options " + scenario.pmuOptions() + ": " + e.getMessage(), e);
            }
        }
        engine = new Engine(scenario, model.cpuType(), pmus);
        xenoprof = new XenoprofCore(this);
        session = policy.open(this);
        router = session::overflow;
        engine.attach(xenoprof, session, router);

        List<DomainInfo> infos = new ArrayList<>();
        boolean hvm = false;
        for (DomainSpec d : scenario.domains()) {
            List<Mapping> map = new ArrayList<>();
            map.add(scenario.hypervisor().mapping());
            for (ImageSpec image : d.images()) {
                map.add(image.mapping());
            }
            infos.add(new DomainInfo(d.domid(), d.name(), d.hvm(), d.vcpus(), d.hardwareDomain(), map));
            hvm |= d.hvm();
        }
        domains = List.copyOf(infos);
        anyHvm = hvm;
    }

    // ------------------------------------------------------------------------------------------ Host

    @Override
    public String name() {
        return scenario.name();
    }

    @Override
    public String description() {
        return scenario.description();
    }

    @Override
    public PmuModel model() {
        return model;
    }

    @Override
    public long mhz() {
        return scenario.mhz();
    }

    @Override
    public int pcpuCount() {
        return pmus.length;
    }

    @Override
    public String policy() {
        return policy.name();
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
        throw new IllegalArgumentException("host " + name() + " has no domain " + domid + "; its domains are "
                + domains.stream().map(d -> d.domid() + " (" + d.name() + ")").toList());
    }

    @Override
    public Xenoprof xenoprof() {
        return xenoprof;
    }

    /** The Xenoprof core itself (the engine's NMI path and domain bookkeeping use it). */
    public XenoprofCore xenoprofCore() {
        return xenoprof;
    }

    @Override
    public long cycles() {
        return engine.now();
    }

    @Override
    public long run(long micros, ProgressListener progress) throws HostStoppedException {
        if (micros < 0) {
            throw new IllegalArgumentException("cannot run " + micros + " microseconds; give a positive time");
        }
        ProgressListener listener = progress == null ? ProgressListener.NONE : progress;
        synchronized (runLock) {
            // running is published before stopReason is read, and stop() publishes stopReason before it
            // reads running: one of the two always sees the other, so the session is never closed
            // under a run that goes on.
            running = true;
            try {
                String reason = stopReason;
                if (reason != null) {
                    throw new HostStoppedException(reason);
                }
                long start = engine.now();
                long total = Math.multiplyExact(micros, scenario.mhz());
                long end = start + total;
                long quantum = engine.quantumCycles();
                long samplesBefore = engine.samples;
                long reportEvery = Math.max(quantum, total / 20);
                long nextReport = start + reportEvery;
                long t = start;
                while (t < end) {
                    reason = stopReason;
                    if (reason != null) {
                        throw new HostStoppedException(reason);
                    }
                    t = Math.min(end, t + quantum);
                    engine.runUntil(t);
                    if (t >= nextReport || t == end) {
                        listener.progress((t - start) / scenario.mhz(), micros, engine.samples - samplesBefore);
                        nextReport += reportEvery;
                    }
                }
                return engine.samples - samplesBefore;
            } finally {
                running = false;
                if (stopReason != null) {
                    closeSession();
                }
            }
        }
    }

    /** Waits for a run in progress on another thread to end. */
    @Override
    public GroundTruth groundTruth() {
        synchronized (runLock) {
            return engine.ledger().snapshot();
        }
    }

    @Override
    public void resetGroundTruth() {
        synchronized (runLock) {
            engine.ledger().reset();
        }
    }

    @Override
    public String stopReason() {
        return stopReason;
    }

    @Override
    public void addListener(HostListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(HostListener listener) {
        listeners.remove(listener);
    }

    /**
     * Stops the host for good: a running {@link #run} ends with {@link HostStoppedException} at its
     * next quantum, later runs are refused, and the listeners hear the reason. Only the first reason
     * counts. Callable from any thread.
     */
    public void stop(String reason) {
        Objects.requireNonNull(reason, "reason");
        synchronized (stateLock) {
            if (stopReason != null) {
                return;
            }
            stopReason = reason;
        }
        if (!running) {
            closeSession();
        }
        for (HostListener l : listeners) {
            l.hostStopped(this, reason);
        }
    }

    private void closeSession() {
        synchronized (stateLock) {
            if (sessionClosed) {
                return;
            }
            sessionClosed = true;
        }
        session.close();
    }

    // --------------------------------------------------------------------------------- for the shell

    /** The scenario the host was built from. */
    public Scenario scenario() {
        return scenario;
    }

    /** Symbolic name of the bundle that provides the CPU model. */
    public String modelBundle() {
        return modelBundle;
    }

    /** Symbolic name of the bundle that provides the policy. */
    public String policyBundle() {
        return policyBundle;
    }

    boolean uses(PmuModel m) {
        return model == m;
    }

    boolean uses(CounterVirtualizationPolicy p) {
        return policy == p;
    }

    /** Engine counters: slices of workload code started since load. */
    public long workSlices() {
        return engine.workSlices;
    }

    /** Engine counters: how many times any CPU advanced (slice pieces between events). */
    public long piecesProcessed() {
        return engine.pieces;
    }

    /** PMU interrupts taken since load (each one calls Xenoprof's NMI callback). */
    public long interruptsTaken() {
        return engine.interrupts;
    }

    /** Samples Xenoprof took since load. */
    public long samplesTaken() {
        return engine.samples;
    }

    /** vCPU switches since load. */
    public long vcpuSwitches() {
        return engine.switches;
    }

    /** Cycles physical CPU {@code pcpu} spent halted since load. */
    public long haltedCycles(int pcpu) {
        return engine.haltedCycles(pcpu);
    }

    /** Virtual PMU interrupts a policy injected into a vCPU since load. */
    public long virtualInterrupts(int domid, int vcpu) {
        return engine.virtualInterrupts(domid, vcpu);
    }

    // --------------------------------------------------------------------------------------- Machine

    @Override
    public PhysicalPmu pmu(int pcpu) {
        if (pcpu < 0 || pcpu >= pmus.length) {
            throw new IllegalArgumentException("pCPU " + pcpu + " does not exist; host " + name() + " has "
                    + pmus.length + " (0-" + (pmus.length - 1) + ")");
        }
        return pmus[pcpu];
    }

    @Override
    public boolean domainExists(int domid) {
        return spec(domid) != null;
    }

    @Override
    public int vcpuCount(int domid) {
        DomainSpec d = spec(domid);
        return d == null ? 0 : d.vcpus();
    }

    @Override
    public boolean hardwareDomain(int domid) {
        DomainSpec d = spec(domid);
        return d != null && d.hardwareDomain();
    }

    @Override
    public boolean hvm(int domid) {
        DomainSpec d = spec(domid);
        return d != null && d.hvm();
    }

    /**
     * The HVM vPMU owns the counters when the policy offers guests a PMU and an HVM guest exists to
     * use it (Xen's vPMU acquires HVM ownership when an HVM guest's context is allocated).
     */
    @Override
    public boolean hvmVpmuOwnsPmu() {
        return anyHvm && session.guestsSeePmu();
    }

    private DomainSpec spec(int domid) {
        for (DomainSpec d : scenario.domains()) {
            if (d.domid() == domid) {
                return d;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------ PolicyHost

    @Override
    public void chargeHypervisor(int pcpu, long cycles, String symbol) {
        engine.charge(pcpu, cycles, symbol);
    }

    @Override
    public void injectVirtualInterrupt(int domid, int vcpu) {
        engine.injectVirtualInterrupt(domid, vcpu);
    }

    @Override
    public boolean xenoprofProfiling() {
        return xenoprof.state() == XenoprofState.PROFILING;
    }

    @Override
    public String toString() {
        return "SimHost[" + name() + ", " + model.cpuType() + " x" + pmus.length + " @" + mhz() + " MHz, policy "
                + policy.name() + (stopReason == null ? "" : ", stopped") + "]";
    }
}
