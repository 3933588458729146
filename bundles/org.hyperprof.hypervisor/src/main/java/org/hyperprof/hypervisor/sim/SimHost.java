package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
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
import org.hyperprof.hypervisor.sim.scenario.PostponedHandling;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.xenoprof.Machine;
import org.hyperprof.hypervisor.xenoprof.OverflowRouter;
import org.hyperprof.hypervisor.xenoprof.XenoprofCore;
import org.hyperprof.hypervisor.xenoprof.XenoprofDiagnostics;

/**
 * A simulated Xen host built from a {@link Scenario}: the {@link Host} users drive, the
 * {@link Machine} Xenoprof runs on, and the {@link PolicyHost} the counter-virtualization policy
 * works on.
 *
 * <p>Plain Java: {@code new SimHost(scenario, model, "bundle", policy, "bundle")}. A host that
 * stops (its model or policy departed, it was replaced) stays readable: ground truth, domains and
 * Xenoprof's buffers remain, only {@link #run} refuses.
 *
 * <h2>Threads</h2>
 * {@link #run} advances the machine one quantum at a time, each under the machine lock. Pausing,
 * unpausing and destroying a domain are commands: the caller checks them against the state it
 * asked for last, queues them and returns at once; they are applied under the machine lock at the
 * next safe point, between two quanta (at once when no run is in progress). So a shell thread never
 * waits for a run, and a change never lands halfway through a slice, an NMI or a VIRQ handler.
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
    private final boolean anyGuestProfiler;
    /** Counts the PMU register files handed to the policy as contexts (each gets its own number). */
    private int contexts;
    private final List<HostListener> listeners = new CopyOnWriteArrayList<>();
    /** Held for a whole run: ground truth is read and reset between runs, never halfway through one. */
    private final Object runLock = new Object();
    /** Held for each quantum of a run and while queued commands are applied: the safe points. */
    private final ReentrantLock machineLock = new ReentrantLock();
    /** Pause, unpause and destroy commands waiting for the next safe point. */
    private final Queue<Runnable> pending = new ConcurrentLinkedQueue<>();
    /** Each domain's state as the machine and Xen see it, by index in the scenario; set when applied. */
    private final AtomicReferenceArray<DomainState> states;
    /** Each domain's state as last asked for (applied at the next safe point); guarded by itself. */
    private final DomainState[] requested;
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
        states = new AtomicReferenceArray<>(scenario.domains().size());
        requested = new DomainState[scenario.domains().size()];
        for (int i = 0; i < states.length(); i++) {
            states.set(i, DomainState.RUNNING);
            requested[i] = DomainState.RUNNING;
        }
        pmus = new PhysicalPmu[scenario.pcpus()];
        for (int p = 0; p < pmus.length; p++) {
            try {
                pmus[p] = model.createPmu(p, scenario.pmuOptions());
            } catch (IllegalArgumentException e) {
                throw new ScenarioException(scenario.where("pmu.option") + ": CPU model " + model.cpuType()
                        + " refuses the PMU options " + scenario.pmuOptions() + ": " + e.getMessage(), e);
            }
        }
        try {
            engine = new Engine(scenario, model, pmus);
        } catch (IllegalArgumentException e) {
            throw new ScenarioException(e.getMessage(), e);
        }
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
        anyGuestProfiler = !engine.guestProfilers.all().isEmpty();
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
        if (micros < 0 || micros > MAX_RUN_MICROS) {
            throw new IllegalArgumentException("cannot run " + micros + " microseconds: a run takes 0 to "
                    + MAX_RUN_MICROS + " simulated microseconds (one simulated hour); run again for longer");
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
                long total;
                try {
                    total = Math.multiplyExact(micros, scenario.mhz());
                } catch (ArithmeticException overflow) {
                    throw new IllegalArgumentException("cannot run " + micros + " microseconds at " + scenario.mhz()
                            + " MHz: the cycles to run do not fit a 64-bit count; run for less time");
                }
                long end = start + total;
                long quantum = engine.quantumCycles();
                long samplesBefore = engine.interruptPath.samples;
                long reportEvery = Math.max(quantum, total / 20);
                long nextReport = start + reportEvery;
                long t = start;
                // Asked once per quantum: a stop request ends the run between two quanta, with the
                // machine and the buffers as any run leaves them.
                while (t < end && !listener.stopRequested()) {
                    reason = stopReason;
                    if (reason != null) {
                        throw new HostStoppedException(reason);
                    }
                    t = Math.min(end, t + quantum);
                    machineLock.lock();
                    try {
                        // Asked again under the lock: stop() waits for the lock before it tells anyone, so
                        // no quantum runs after a listener has closed the books.
                        reason = stopReason;
                        if (reason != null) {
                            throw new HostStoppedException(reason);
                        }
                        applyPending();
                        engine.runUntil(t);
                    } finally {
                        machineLock.unlock();
                    }
                    if (t >= nextReport || t == end) {
                        listener.progress((t - start) / scenario.mhz(), micros,
                                engine.interruptPath.samples - samplesBefore);
                        nextReport += reportEvery;
                    }
                }
                return engine.interruptPath.samples - samplesBefore;
            } finally {
                running = false;
                applyPendingIfFree(); // commands that came during the last quantum
                if (stopReason != null) {
                    closeSession();
                }
            }
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Empty while Xenoprof is not profiling: no sample is taken then, and the state says why.
     */
    @Override
    public List<String> noSamplesExpected(long micros) {
        if (xenoprof.state() != XenoprofState.PROFILING) {
            return List.of();
        }
        List<DomainState> now = new ArrayList<>();
        for (int i = 0; i < states.length(); i++) {
            now.add(states.get(i));
        }
        return RunForecast.noSamples(scenario, engine.now(), micros, now, xenoprof.programmedCounters());
    }

    @Override
    public GroundTruth groundTruth() {
        synchronized (runLock) {
            return new GroundTruth(engine.ledger().snapshot().rows(), engine.behalf().snapshot().rows());
        }
    }

    @Override
    public void resetGroundTruth() {
        synchronized (runLock) {
            engine.ledger().reset();
            engine.behalf().reset();
        }
    }

    /**
     * The state the machine has the domain in. A change asked for while a run holds the machine
     * reaches it at the run's next safe point and shows here from then on, not before: a daemon
     * that saw a destroy before Xen freed the buffers would fix as undrained fewer entries than the
     * domain, still running to the end of the quantum, leaves there (and Xen counts). A second
     * request is still judged against the first ({@code xl destroy} twice is refused at once).
     */
    @Override
    public DomainState domainState(int domid) {
        return states.get(indexOf(domid));
    }

    /**
     * {@code xl pause}: the domain's vCPUs stop being scheduled (a running one leaves its CPU at
     * once); nothing else changes: its buffers, its place in Xenoprof's lists, its burst and credit.
     * Pausing a paused domain changes nothing (Xen's controller-pause flag is already set).
     *
     * @throws IllegalArgumentException for a domain the host lacks, or the hardware domain (Xen
     *                                  refuses to pause the domain its toolstack runs in)
     * @throws IllegalStateException    when the domain is destroyed
     */
    @Override
    public void pauseDomain(int domid) {
        int i = indexOf(domid);
        refuseHardwareDomain(domid, "pause");
        request(i, domid, DomainState.PAUSED, "paused", () -> engine.pause(domid));
    }

    /**
     * {@code xl unpause}: a paused domain's vCPUs may run again, resuming where they stood.
     * Unpausing a running domain changes nothing.
     *
     * @throws IllegalStateException when the domain is destroyed
     */
    @Override
    public void unpauseDomain(int domid) {
        request(indexOf(domid), domid, DomainState.RUNNING, "unpaused", () -> engine.unpause(domid));
    }

    /**
     * {@code xl destroy}, also in the middle of a run: the domain's vCPUs leave their CPUs and never
     * run again, Xenoprof frees its buffers and drops it from the active and passive lists
     * ({@link XenoprofCore#domainDestroyed}), and from then on Xen treats it as a domain that does
     * not exist: {@code set_active} or {@code set_passive} naming it get {@code -EINVAL}, and it can
     * issue no hypercall. Entries its daemon never drained are counted
     * ({@code xenoprof.destroyed.undrained} in {@link #counters()}). Its ground truth is kept.
     *
     * @throws IllegalArgumentException for a domain the host lacks, or the hardware domain
     * @throws IllegalStateException    when the domain is already destroyed
     */
    @Override
    public void destroyDomain(int domid) {
        int i = indexOf(domid);
        refuseHardwareDomain(domid, "destroy");
        request(i, domid, DomainState.DESTROYED, "destroyed", () -> {
            engine.destroy(domid);
            xenoprof.domainDestroyed(domid);
        });
    }

    /**
     * Checks a change against the state asked for last, records it, queues what applies it and
     * applies it now if no run holds the machine. A change to the state already asked for is none.
     * Applying it sets the domain's state before {@code change} runs: a destroyed domain is gone for
     * Xen (domainExists answers false) before Xenoprof frees its buffers.
     */
    private void request(int i, int domid, DomainState wanted, String what, Runnable change) {
        synchronized (requested) {
            if (requested[i] == DomainState.DESTROYED) {
                if (wanted == DomainState.DESTROYED) {
                    throw new IllegalStateException("domain " + domid + " (" + domains.get(i).name()
                            + ") is already destroyed");
                }
                throw destroyed(domid, what);
            }
            if (requested[i] == wanted) {
                return;
            }
            requested[i] = wanted;
            pending.add(() -> {
                states.set(i, wanted);
                change.run();
            });
        }
        applyPendingIfFree();
    }

    /** Applies the queued commands in order; the caller holds the machine lock. */
    private void applyPending() {
        Runnable command;
        while ((command = pending.poll()) != null) {
            command.run();
        }
    }

    /**
     * Applies the queued commands unless a run holds the machine; that run applies them at its next
     * quantum, or here once its last quantum is done. Whoever releases the lock looks again, so no
     * command is left behind.
     */
    private void applyPendingIfFree() {
        while (!pending.isEmpty() && machineLock.tryLock()) {
            try {
                applyPending();
            } finally {
                machineLock.unlock();
            }
        }
    }

    /**
     * Event counts of the machine, by stable dotted name. Counts since the host was loaded, except
     * the {@code virq.*}, {@code trace.*} and {@code overflows.guest} counts, which Xenoprof resets
     * when the primary's {@code enable_virq} starts a session (as it resets its statistics):
     * <ul>
     * <li>{@code interrupts.taken}: PMU interrupts (NMIs) the CPUs took; each ran Xenoprof's NMI callback</li>
     * <li>{@code interrupts.blocked}: PMU interrupts asserted while a running NMI handler blocked NMIs; each
     * was taken late, when the handler returned (x86 holds one NMI pending, never more)</li>
     * <li>{@code samples.taken}: overflows Xenoprof counted as samples (written, lost or dropped)</li>
     * <li>{@code overflows.guest}: overflows the counter-virtualization policy gave to a guest's own PMU</li>
     * <li>{@code interrupts.virtual}: virtual PMU interrupts the policy injected into vCPUs</li>
     * <li>{@code vcpu.switches}: vCPU context switches on all CPUs</li>
     * <li>{@code slices}: workload slices started; {@code slices.pieces}: stretches of code run between two
     * events (the engine's steps)</li>
     * <li>{@code halted.cycles}: cycles the CPUs spent halted, summed over the CPUs</li>
     * <li>{@code domains.paused}, {@code domains.unpaused}, {@code domains.destroyed}: state changes applied</li>
     * <li>{@code xenoprof.destroyed.undrained}: buffer entries destroyed domains left unread</li>
     * <li>{@code virq.raised}: VIRQ_XENOPROF notifications the NMI rule recorded; {@code virq.coalesced}: NMIs
     * that met the rule while one was already pending on the CPU; {@code virq.sent}: VIRQs that reached a
     * bound handler (NMI continuations and stop's flush); {@code virq.unbound}: VIRQs to a domain with no
     * handler; {@code virq.flush}: VIRQs sent by stop</li>
     * <li>{@code trace.entries.lost}, {@code trace.entries.corrupted}: call-trace entries a full or corrupted
     * ring refused (the sample itself was kept); {@code trace.escape.rejected}: return addresses equal to the
     * escape value, which end a walk</li>
     * <li>{@code xenoprof.ibs.blocks}: AMD IBS blocks the NMI callback found (each one sample);
     * {@code xenoprof.ibs.entries}: buffer entries the written blocks took</li>
     * </ul>
     * The PMU interrupt's fate, judged against who really ran when the PMU's alert latched (see
     * {@link PostponedHandling}; the postponement keys stay 0 on x86, whose NMI no MSR[EE] gates):
     * <ul>
     * <li>{@code interrupts.postponed.mode.ignore}, {@code .owner}, {@code .poll}: 1 for the host's
     * {@code ppc.postponed} handling, 0 for the others</li>
     * <li>{@code interrupts.postponed}: alerts that latched in code with MSR[EE]=0, so that their interrupt
     * waited; counted when a handler ran for them (taken or polled) or software withdrew them</li>
     * <li>{@code interrupts.postponed.dropped}: postponed interrupts whose handler re-armed the counters and
     * dropped the sample (ignore; poll for those no poll caught); {@code samples.postponed.dropped}: the
     * overflows those handlers dropped</li>
     * <li>{@code interrupts.postponed.reattributed}: postponed interrupts given to the vCPU that ran at the
     * alert (owner)</li>
     * <li>{@code interrupts.polled}: handlers run at a poll point because the alert was set (poll)</li>
     * <li>{@code interrupts.postponed.withdrawn}: postponed alerts that software cleared before any handler
     * saw them (a stop or start of the counters)</li>
     * <li>{@code interrupts.lost}: postponed alerts that delivered no sample (dropped plus withdrawn)</li>
     * <li>{@code interrupts.misattributed}: interrupts or polls whose sample went to another domain or mode
     * than the one that ran when the alert latched (a wrong MMCRA HV/PR reading, a poll in another vCPU's
     * context; on x86 an NMI that waited behind the NMI handler and was charged to the interrupted code)</li>
     * <li>{@code interrupts.postponed.delay.cycles}, {@code interrupts.postponed.delay.max}: cycles from the
     * alert to its handler, summed and at most, over postponed interrupts taken or polled</li>
     * </ul>
     */
    @Override
    public Map<String, Long> counters() {
        XenoprofDiagnostics d = xenoprof.diagnostics();
        InterruptPath interrupts = engine.interruptPath;
        GuestProfilers guests = engine.guestProfilers;
        Map<String, Long> c = new LinkedHashMap<>();
        // Read without the machine lock, so a shell never waits for a run: during a run the values
        // are those of a moment in the current quantum.
        c.put("interrupts.taken", interrupts.interrupts);
        c.put("interrupts.blocked", engine.interruptsBlocked);
        c.put("samples.taken", interrupts.samples);
        c.put("overflows.guest", d.guestRoutedOverflows());
        c.put("interrupts.virtual", guests.virtualInterruptsTotal());
        c.put("vcpu.switches", engine.switches);
        c.put("slices", engine.slices.workSlices);
        c.put("slices.pieces", engine.pieces);
        long halted = 0;
        for (int p = 0; p < pmus.length; p++) {
            halted += engine.haltedCycles(p);
        }
        c.put("halted.cycles", halted);
        c.put("domains.paused", engine.pauses);
        c.put("domains.unpaused", engine.unpauses);
        c.put("domains.destroyed", engine.destroys);
        c.put("xenoprof.destroyed.undrained", xenoprof.undrainedAtDestroy());
        c.put("virq.raised", d.virqsRaised());
        c.put("virq.coalesced", d.virqsCoalesced());
        c.put("virq.sent", d.virqsDelivered());
        c.put("virq.unbound", d.virqsUnbound());
        c.put("virq.flush", d.flushVirqs());
        c.put("trace.entries.lost", d.traceEntriesLost());
        c.put("trace.entries.corrupted", d.traceEntriesCorrupted());
        c.put("trace.escape.rejected", d.traceEscapeRejected());
        c.put("xenoprof.ibs.blocks", d.ibsBlocks());
        c.put("xenoprof.ibs.entries", d.ibsEntries());
        PostponedHandling handling = scenario.postponedHandling();
        for (PostponedHandling h : PostponedHandling.values()) {
            c.put("interrupts.postponed.mode." + h.optionValue(), h == handling ? 1L : 0L);
        }
        c.put("interrupts.postponed", interrupts.postponed);
        c.put("interrupts.postponed.dropped", interrupts.postponedDropped);
        c.put("samples.postponed.dropped", interrupts.samplesDropped);
        c.put("interrupts.postponed.reattributed", interrupts.postponedReattributed);
        c.put("interrupts.polled", interrupts.polled);
        c.put("interrupts.postponed.withdrawn", interrupts.postponedWithdrawn);
        c.put("interrupts.lost", interrupts.postponedDropped + interrupts.postponedWithdrawn);
        c.put("interrupts.misattributed", interrupts.misattributed);
        c.put("interrupts.postponed.delay.cycles", interrupts.postponedDelay);
        c.put("interrupts.postponed.delay.max", interrupts.postponedDelayMax);
        c.put("interrupts.policy", interrupts.policyInterrupts);
        c.put("scenario.seed", scenario.seed());
        c.put("vpmu.cycles.charged", engine.chargedCycles);
        c.put("guest.trap.cycles", guests.trapCycles);
        c.put("guest.handler.cycles", guests.guestHandlerCycles);
        c.put("vpmu.cycles", engine.chargedCycles + guests.trapCycles);
        long samples = 0;
        long lost = 0;
        long discarded = 0;
        long delivered = 0;
        long coalesced = 0;
        long spurious = 0;
        long accesses = 0;
        long trapped = 0;
        for (GuestPmu g : guests.all()) {
            samples += g.samples;
            lost += g.samplesLost;
            discarded += g.samplesDiscarded;
            delivered += g.interruptsDelivered;
            coalesced += g.interruptsCoalesced;
            spurious += g.interruptsSpurious;
            accesses += g.accesses;
            trapped += g.accessesTrapped;
        }
        c.put("guest.samples", samples);
        c.put("guest.samples.lost", lost);
        c.put("guest.samples.discarded", discarded);
        c.put("guest.interrupts.delivered", delivered);
        c.put("guest.interrupts.coalesced", coalesced);
        c.put("guest.interrupts.spurious", spurious);
        c.put("guest.interrupts.unhandled", guests.injectedUnhandled);
        c.put("guest.accesses", accesses);
        c.put("guest.accesses.trapped", trapped);
        c.put("guest.profilers.nopmu", guests.guestNoPmu);
        c.put("guest.profilers.refused", guests.guestRefusedProfilers);
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(session.statistics()).entrySet()) {
            c.put("vpmu." + e.getKey(), e.getValue());
        }
        return Collections.unmodifiableMap(c);
    }

    private int indexOf(int domid) {
        for (int i = 0; i < domains.size(); i++) {
            if (domains.get(i).domid() == domid) {
                return i;
            }
        }
        domain(domid); // throws, naming the domains that exist
        throw new IllegalArgumentException("no domain " + domid);
    }

    private void refuseHardwareDomain(int domid, String action) {
        if (hardwareDomain(domid)) {
            throw new IllegalArgumentException("domain " + domid + " is the hardware domain: Xen refuses to " + action
                    + " it (the toolstack and the profiler's coordinator run there); " + action + " a guest instead");
        }
    }

    private IllegalStateException destroyed(int domid, String what) {
        return new IllegalStateException("domain " + domid + " (" + domain(domid).name() + ") is destroyed and cannot"
                + " be " + what + "; it is gone for good (load the scenario again to get it back)");
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
     * next quantum, later runs are refused, and the listeners hear the reason once no quantum runs
     * (the books they read are final). Only the first reason counts. Callable from any thread.
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
        // A run in the middle of a quantum finishes it first: the listeners end sessions and read
        // Xen's statistics, which the NMI path must not be changing then (taken before delivered).
        machineLock.lock();
        machineLock.unlock();
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
        return engine.slices.workSlices;
    }

    /** Engine counters: how many times any CPU advanced (slice pieces between events). */
    public long piecesProcessed() {
        return engine.pieces;
    }

    /** PMU interrupts taken since load (each one calls Xenoprof's NMI callback). */
    public long interruptsTaken() {
        return engine.interruptPath.interrupts;
    }

    /** Samples Xenoprof took since load. */
    public long samplesTaken() {
        return engine.interruptPath.samples;
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
        return engine.guestProfilers.virtualInterrupts(domid, vcpu);
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

    /** A destroyed domain no longer exists for Xen. */
    @Override
    public boolean domainExists(int domid) {
        return spec(domid) != null && !destroyed(domid);
    }

    @Override
    public int vcpuCount(int domid) {
        DomainSpec d = spec(domid);
        return d == null || destroyed(domid) ? 0 : d.vcpus();
    }

    @Override
    public boolean hypervisorFramePointers() {
        return scenario.xenFramePointers();
    }

    private boolean destroyed(int domid) {
        List<DomainSpec> specs = scenario.domains();
        for (int i = 0; i < specs.size(); i++) {
            if (specs.get(i).domid() == domid) {
                return states.get(i) == DomainState.DESTROYED;
            }
        }
        return false;
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
     * The guests hold the counters when the policy offers them a PMU it does not share with
     * Xenoprof and a guest exists to use it: an HVM guest (Xen's vPMU acquires HVM ownership when
     * an HVM guest's context is allocated) or a guest running its own profiler.
     */
    @Override
    public String guestsHoldPmu() {
        if (!(anyHvm || anyGuestProfiler) || !session.guestsSeePmu() || session.sharesPmuWithXenoprof()) {
            return null;
        }
        List<String> users = new ArrayList<>();
        for (DomainSpec d : scenario.domains()) {
            String who = "domain " + d.domid() + " (" + d.name() + ")";
            if (d.profiler() != null) {
                users.add("the profiler of " + who + " uses its virtual counters");
            } else if (d.hvm()) {
                users.add("HVM guest " + who + " has a vPMU");
            }
        }
        return "the counter-virtualization policy " + policy.name() + " gives the guests the PMU: "
                + String.join(", ", users);
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
        engine.guestProfilers.inject(domid, vcpu);
    }

    @Override
    public PhysicalPmu newPmuContext() {
        synchronized (stateLock) {
            return model.createPmu(pmus.length + 4096 + contexts++, scenario.pmuOptions());
        }
    }

    @Override
    public long cost(String name) {
        Long c = scenario.effectiveVpmu().costs().get(name);
        if (c == null) {
            throw new IllegalArgumentException("scenario " + scenario.name() + " (" + scenario.location()
                    + ") prices no '" + name + "' for the counter-virtualization policy; add a line 'cost.vpmu " + name
                    + " <cycles>' with the source of the number (it prices: " + scenario.effectiveVpmu().costs().keySet() + ")");
        }
        return c;
    }

    @Override
    public String option(String key, String otherwise) {
        return scenario.policyOptions().getOrDefault(key, otherwise);
    }

    @Override
    public boolean xenoprofOwnsPmu() {
        return xenoprof.xenoprofOwnsPmu();
    }

    // ------------------------------------------------------------------ guests' own profilers (Host)

    @Override
    public List<org.hyperprof.api.xenoprof.SharedBuffer> guestProfilerBuffers(int domid) {
        indexOf(domid);
        return engine.guestProfilers.buffers(domid);
    }

    @Override
    public List<org.hyperprof.api.pmu.CounterConfig> guestProfilerCounters(int domid) {
        indexOf(domid);
        return engine.guestProfilers.counters(domid);
    }

    /** Under the machine lock: entries logged before now are dropped as a daemon starting now would skip them. */
    @Override
    public void restartGuestProfilerBuffers() {
        machineLock.lock();
        try {
            engine.guestProfilers.discardUnread();
        } finally {
            machineLock.unlock();
        }
    }

    @Override
    public List<String> guestProfilerNotes() {
        return engine.guestProfilers.notes(policy.name());
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
