package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.PostponedHandling;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.xenoprof.OverflowRouter;
import org.hyperprof.hypervisor.xenoprof.XenoprofCore;

/**
 * The simulated machine at work: physical CPUs running slices, a credit-like scheduler placing vCPUs
 * on them, and the PMU interrupt path into Xenoprof. The engine keeps time, scheduling and the
 * ledgers; the slices are made by {@link SliceMaker}, the interrupt is taken by
 * {@link InterruptPath}, and guests' own profilers are driven by {@link GuestProfilers}.
 *
 * <h2>Time</h2>
 * Physical CPUs advance one after the other in short quanta, so they never drift apart by more than
 * a quantum. Within a quantum a CPU jumps from event to event: the end of a slice, the next counter
 * overflow (asked of the PMU model), the end of the quantum. It never steps cycle by cycle.
 *
 * <h2>Scheduling</h2>
 * Each vCPU alternates busy bursts and blocked periods whose mean lengths give its load; all
 * lengths are drawn from the vCPU's seeded stream. A vCPU prefers its home CPU; another CPU takes it
 * only while its home is busy. Among runnable vCPUs, BOOST (just woken with credit) beats UNDER
 * (credit left) beats OVER (credit spent), then the longest waiting. Credit is debited per cycle run
 * and refilled each accounting period, as in Xen's credit scheduler. A running vCPU is preempted at
 * the end of its time slice by an equal or better one, at any slice boundary by a better one. With
 * nothing to run, a CPU switches to its idle vCPU: a short unhalted stretch of the idle loop, then
 * halted time until a vCPU it may take wakes.
 *
 * <h2>Hypervisor work</h2>
 * A context switch, the NMI handler and policy charges are slices in the hypervisor image charged
 * to the vCPU current at the time (the scheduler's cost to the vCPU being switched out, since Xen
 * runs schedule() in its context). Around hypervisor work of a guest vCPU the policy hears
 * {@code hypervisorEntry} and {@code hypervisorExit}; work a policy charges from inside a hook is
 * part of that transition and triggers no hooks of its own.
 *
 * <h2>Pause and destroy</h2>
 * A paused vCPU is never picked; if it is running, its workload slice ends where it stands and the
 * CPU schedules something else at once (Xen's {@code vcpu_sleep_sync}). Its burst, credit and
 * wake-up time are left as they are, so unpausing resumes it. A destroyed vCPU is paused for good
 * and never wakes.
 *
 * <h2>The PMU interrupt</h2>
 * Before each stretch of code the PMU hears its program counter ({@code setProgramCounter}), so a
 * model that latches addresses (PowerPC SIAR, AMD IBS) has them. When the PMU's alert turns on
 * ({@code alertPending()}) the engine notes who ran: the vCPU, the mode, whether the code had
 * external interrupts enabled. That is the ground truth a sample is judged against: a sample logged
 * for another domain or mode is counted as misattributed. On x86 the interrupt is an NMI, taken at
 * once unless a running NMI handler blocks it. On a model whose interrupt is gated by MSR[EE]
 * (PowerPC 970), it is taken only while the code on top runs with EE=1 (the scenario marks EE=0
 * stretches; the handler itself runs with EE=0, as exception entry clears EE); an alert that
 * latched in EE=0 code is postponed, and the host option {@code ppc.postponed} says what happens to
 * it ({@link PostponedHandling}): dropped when taken, given to the vCPU that ran at the alert, or
 * caught by a poll of the alert at the end of a poll-point function. When the handler's work ends
 * the PMU hears the return from interrupt.
 *
 * <h2>Guests with their own profilers</h2>
 * A domain whose scenario block has a {@code profiler} line runs the host model's driver against its
 * virtual PMU ({@link GuestPmu}): at its first guest code it programs its counters register by
 * register through the policy; a virtual interrupt the policy injects is taken when the vCPU next
 * runs guest code: the handler reads its counters, logs a sample per overflowed counter at the PC
 * the guest could see when the interrupt was injected (the interrupted guest instruction; for an
 * overflow in hypervisor work, the guest instruction that entered the hypervisor), re-arms and writes
 * back. Every access the policy traps costs the scenario's {@code cost.trap.hvm} or
 * {@code cost.trap.pv} as hypervisor work ({@link Slice#TRAP}) with entry and exit like a VM exit.
 * The handler itself is guest kernel code ({@link Slice#GUEST_PMI}).
 *
 * <h2>Work on a guest's behalf</h2>
 * Every hypervisor cycle charged to a guest vCPU is also booked, in a second ledger, to a guest
 * function: the ground truth of "the guest plus the hypervisor's work on its behalf". Work of a
 * hypercall the domain's {@code callsite} lines name goes to the functions that make it; all other
 * work to the guest function that was running when the hypervisor was entered (the nearest guest
 * slice below on the stack, else where the vCPU last ran guest code). See {@link CallSites}.
 *
 * <p>Not thread-safe: one thread at a time runs the machine or changes it (the host serialises
 * them between quanta). The per-slice path does not allocate.
 */
final class Engine {
    private final Scenario scenario;
    private final long mhz;
    private final SymbolCatalog catalog;
    private final GroundTruthLedger ledger;
    /** Hypervisor cycles of guest vCPUs, by (vCPU slot, guest function they were done for). */
    private final GroundTruthLedger behalf;
    /** Which guest function hypervisor work was done for. */
    private final CallSites callSites;
    private final PhysicalCpu[] pcpus;
    private final VirtualCpu[] guests;
    /** The slices CPUs run; counts the workload slices. */
    final SliceMaker slices;
    /** The PMU interrupt into Xenoprof, with its books. */
    final InterruptPath interruptPath;
    /** Guests' own profilers, with their books. */
    final GuestProfilers guestProfilers;

    private final long timeslice;
    private final long accountingPeriod;
    private final long creditShare;
    private final CostTable contextSwitch;
    private final CostTable idleLoop;
    private final int haltFunction;
    private PolicySession session;

    private long nextWake = Long.MAX_VALUE;
    /**
     * Changes to what {@link #pick} reads (a vCPU's state, priority, waiting time or pause, the vCPU
     * current on a CPU): a CPU asks the scheduler again only after one, since every slice boundary
     * asks whether a better vCPU waits.
     */
    private long schedulingChanges;
    private long nextAccounting;

    long pieces;
    /** PMU interrupts asserted while a running NMI handler blocked NMIs (taken when it returned). */
    long interruptsBlocked;
    long switches;
    long pauses;
    long unpauses;
    long destroys;
    /** Cycles the policy charged through {@code chargeHypervisor}. */
    long chargedCycles;

    Engine(Scenario scenario, PmuModel model, PhysicalPmu[] pmus) {
        this.scenario = scenario;
        this.mhz = scenario.mhz();
        this.catalog = new SymbolCatalog(scenario.hypervisor());
        String cpuType = model.cpuType();
        RateArrays rateArrays = new RateArrays();
        List<Workload> workloads = new ArrayList<>();
        for (DomainSpec d : scenario.domains()) {
            workloads.add(new Workload(d.regions(), catalog, rateArrays));
        }
        this.timeslice = Math.multiplyExact(scenario.timesliceMicros(), mhz);
        this.accountingPeriod = Math.multiplyExact(scenario.accountingMicros(), mhz);
        this.contextSwitch = new CostTable(scenario.contextSwitch(), catalog);
        CostTable nmiHandler = new CostTable(scenario.nmiHandler(), catalog);
        this.idleLoop = new CostTable(scenario.idleLoop(), catalog);
        this.haltFunction = catalog.id(scenario.halt());
        this.guestProfilers = new GuestProfilers(scenario, catalog);
        this.callSites = new CallSites(scenario, catalog);
        this.slices = new SliceMaker(scenario, catalog, rateArrays); // sizes the ledger rows: every id is allocated by now
        this.interruptPath = new InterruptPath(slices, nmiHandler, scenario.postponedHandling());

        int pvCpl = scenario.pvKernelCpl(cpuType);
        int guestCount = 0;
        for (DomainSpec d : scenario.domains()) {
            guestCount += d.vcpus();
        }
        int n = pmus.length;
        int[] slotDomid = new int[guestCount + n];
        int[] slotVcpu = new int[guestCount + n];
        guests = new VirtualCpu[guestCount];
        int slot = 0;
        for (int di = 0; di < scenario.domains().size(); di++) {
            DomainSpec d = scenario.domains().get(di);
            long burstMean = Math.multiplyExact(d.burstMicros(), mhz);
            long blockMean;
            if (d.loadPpm() >= 1_000_000) {
                blockMean = 0;
            } else if (d.loadPpm() == 0) {
                blockMean = VirtualCpu.FOREVER;
            } else {
                // busy / (busy + blocked) = load, so blocked = busy * (1 - load) / load
                blockMean = Math.max(1, (long) ((double) burstMean * (1_000_000 - d.loadPpm()) / d.loadPpm()));
            }
            for (int v = 0; v < d.vcpus(); v++, slot++) {
                guests[slot] = new VirtualCpu(slot, d.domid(), v, false, slot % n, workloads.get(di),
                        d.hvm() ? 0 : pvCpl, d.hvm(), burstMean, blockMean, Prng.stream(scenario.seed(), slot));
                slotDomid[slot] = d.domid();
                slotVcpu[slot] = v;
            }
        }
        pcpus = new PhysicalCpu[n];
        for (int p = 0; p < n; p++) {
            int idleSlot = guestCount + p;
            VirtualCpu idle = new VirtualCpu(idleSlot, GroundTruth.IDLE_DOMAIN, p, true, p, null, 0, false, 0, 0,
                    Prng.stream(scenario.seed(), idleSlot));
            slotDomid[idleSlot] = GroundTruth.IDLE_DOMAIN;
            slotVcpu[idleSlot] = p;
            pcpus[p] = new PhysicalCpu(p, pmus[p], Prng.stream(scenario.seed(), -1 - p), idle);
            pcpus[p].idleFresh = true;
        }
        ledger = new GroundTruthLedger(catalog, slotDomid, slotVcpu);
        behalf = new GroundTruthLedger(catalog, slotDomid, slotVcpu);
        guestProfilers.equip(model, n, guests, pcpus, slices);
        creditShare = guestCount == 0 ? 0 : accountingPeriod * n / guestCount;
        nextAccounting = accountingPeriod;
        for (VirtualCpu v : guests) {
            v.credit = creditShare;
            if (v.blockMean == VirtualCpu.FOREVER) {
                v.state = VirtualCpu.BLOCKED;
                v.wakeAt = VirtualCpu.FOREVER;
            } else {
                v.state = VirtualCpu.RUNNABLE;
                v.burstLeft = v.drawBurst();
            }
        }
    }

    /** Connects the interrupt path and the policy; done once, before the first run. */
    void attach(XenoprofCore xenoprof, PolicySession session, OverflowRouter router) {
        this.session = session;
        interruptPath.attach(xenoprof, session, router);
        guestProfilers.attach(session);
    }

    long now() {
        return pcpus[0].now;
    }

    long quantumCycles() {
        return Math.multiplyExact(scenario.quantumMicros(), mhz);
    }

    /** Runs every physical CPU up to {@code target} cycles, one after the other. */
    void runUntil(long target) {
        for (PhysicalCpu p : pcpus) {
            run(p, target);
        }
        while (nextAccounting <= target) {
            account();
            nextAccounting += accountingPeriod;
        }
    }

    private void run(PhysicalCpu p, long target) {
        PhysicalPmu pmu = p.pmu;
        while (p.now < target) {
            if (p.depth == 0) {
                nextSlice(p, target);
                continue;
            }
            Slice s = p.top();
            if (p.latched && !pmu.alertPending()) {
                interruptPath.alertWithdrawn(p);
            }
            // An overflow is taken at the slice during which it happened, even one that just ended:
            // the interrupt is checked before a finished slice gives way to the next.
            if (p.gated) {
                // Taken only while the code on top has MSR[EE]=1; until then it stays pending (postponed).
                if (s.ee && !p.interruptJustTaken && pmu.interruptPending()) {
                    interruptPath.take(p);
                    continue;
                }
            } else if (p.nmiHandlerAt < 0) {
                if (!p.interruptJustTaken && pmu.interruptPending()) {
                    interruptPath.take(p);
                    continue;
                }
            } else if (!p.blockedNoted && pmu.interruptPending()) {
                p.blockedNoted = true; // asserted behind the handler: taken when it returns
                interruptsBlocked++;
            }
            if (s.remaining == 0) {
                finish(p, s);
                continue;
            }
            VirtualCpu v = p.current;
            if (!v.idle && s.kind != Slice.CHARGE && s.hypervisor() != p.inHypervisor) {
                p.inHypervisor = s.hypervisor();
                if (p.inHypervisor) {
                    session.hypervisorEntry(p.index, v.domid, v.vcpu);
                } else {
                    session.hypervisorExit(p.index, v.domid, v.vcpu);
                }
                continue; // the hook may have charged work that runs first
            }
            if (s.kind == Slice.WORK && !s.hypervisor() && v.guestPmu != null) {
                GuestPmu g = v.guestPmu;
                if (g.state == GuestPmu.NEW) {
                    guestProfilers.start(p, v, g);
                    continue;
                }
                if (g.pending) {
                    guestProfilers.deliverVirtualInterrupt(p, v, g);
                    continue;
                }
            }
            long step = Math.min(s.remaining, target - p.now);
            long untilOverflow = pmu.cyclesUntilOverflow(s.rates, s.cpl);
            if (untilOverflow > 0 && untilOverflow < step) {
                step = untilOverflow;
            }
            pmu.setProgramCounter(s.pc);
            pmu.advance(step, s.rates, s.cpl);
            ledger.add(s.row, step, s.rateArray);
            if (s.mode == 2 && !v.idle) {
                callSites.book(behalf, p, v, s, step);
            }
            p.now += step;
            s.remaining -= step;
            p.interruptJustTaken = false;
            if (!p.latched && pmu.alertPending()) {
                interruptPath.latch(p, s, v);
            }
            pieces++;
            if (!v.idle) {
                v.credit -= step;
                if (s.kind == Slice.WORK) {
                    v.burstLeft -= step;
                }
            } else if (s.kind == Slice.HALT) {
                p.haltedCycles += step;
            }
        }
    }

    private void finish(PhysicalCpu p, Slice s) {
        p.depth--;
        if (p.depth == p.nmiHandlerAt) {
            p.nmiHandlerAt = -1; // the handler returned: NMIs are unblocked
        }
        // The slice's slot is free now: a handler pushed by a poll reuses it, so read it first.
        int kind = s.kind;
        VirtualCpu switchTo = s.switchTo;
        if (kind == Slice.NMI) {
            p.pmu.returnFromInterrupt();
        }
        if (s.poll) {
            interruptPath.pollPointReached(p, s.pc);
        }
        if (kind == Slice.SWITCH) {
            completeSwitch(p, switchTo);
        }
    }

    // ------------------------------------------------------------------------------------ scheduling

    /** The stack is empty: decide what the CPU does next and push its slice (or switch). */
    private void nextSlice(PhysicalCpu p, long target) {
        wakeDue(p.now);
        VirtualCpu cur = p.current;
        if (!cur.idle) {
            if (cur.paused) {
                VirtualCpu next = pick(p);
                switchTo(p, next == null ? p.idleVcpu : next);
                return;
            }
            if (cur.burstLeft <= 0) {
                VirtualCpu next = pick(p);
                switchTo(p, next == null ? p.idleVcpu : next);
                return;
            }
            VirtualCpu rival = pick(p);
            boolean sliceOver = p.now >= p.timesliceEnd;
            if (rival != null && (rival.priority < cur.priority || (sliceOver && rival.priority <= cur.priority))) {
                switchTo(p, rival);
                return;
            }
            if (sliceOver) {
                p.timesliceEnd = p.now + timeslice;
            }
            slices.pushWork(p, cur);
            return;
        }
        VirtualCpu next = pick(p);
        if (next != null) {
            switchTo(p, next);
        } else if (p.idleFresh && idleLoop.cycles > 0) {
            p.idleFresh = false;
            slices.pushHypervisor(p, Slice.IDLE, idleLoop.pick(p.rng), idleLoop.cycles, cur);
        } else {
            p.idleFresh = false;
            long until = Math.min(target, haltUntil(p));
            Slice s = slices.pushHypervisor(p, Slice.HALT, haltFunction, until - p.now, cur);
            s.rates = SignalRates.HALTED;
            s.rateArray = HALTED_RATES;
            s.ee = true; // a CPU waits for an interrupt with interrupts enabled
        }
    }

    private static final long[] HALTED_RATES = SignalRates.HALTED.toArray();

    /** The best runnable vCPU this CPU may take, or null. */
    private VirtualCpu pick(PhysicalCpu p) {
        if (p.pickedAt == schedulingChanges) {
            return p.picked;
        }
        VirtualCpu best = null;
        for (VirtualCpu v : guests) {
            if (v.state != VirtualCpu.RUNNABLE || v.paused) {
                continue;
            }
            if (v.home != p.index && pcpus[v.home].current.idle) {
                continue; // its idle home CPU takes it
            }
            if (best == null || v.priority < best.priority
                    || (v.priority == best.priority && v.runnableSince < best.runnableSince)) {
                best = v;
            }
        }
        p.picked = best;
        p.pickedAt = schedulingChanges;
        return best;
    }

    private void switchTo(PhysicalCpu p, VirtualCpu next) {
        if (next == p.current) {
            return;
        }
        if (!next.idle) {
            next.state = VirtualCpu.RUNNING; // claimed now, so that no other CPU takes it during the switch
            schedulingChanges++;
        }
        if (contextSwitch.cycles > 0) {
            Slice s = slices.pushHypervisor(p, Slice.SWITCH, contextSwitch.pick(p.rng), contextSwitch.cycles,
                    p.current);
            s.switchTo = next;
        } else {
            completeSwitch(p, next);
        }
    }

    private void completeSwitch(PhysicalCpu p, VirtualCpu next) {
        schedulingChanges++;
        VirtualCpu prev = p.current;
        if (!prev.idle) {
            if (prev.destroyed) {
                prev.state = VirtualCpu.BLOCKED;
                prev.wakeAt = VirtualCpu.FOREVER;
            } else if (prev.burstLeft <= 0) {
                prev.state = VirtualCpu.BLOCKED;
                prev.wakeAt = p.now + prev.drawBlocked();
                nextWake = Math.min(nextWake, prev.wakeAt);
            } else {
                prev.state = VirtualCpu.RUNNABLE;
                prev.runnableSince = p.now;
            }
            if (prev.priority == VirtualCpu.BOOST) {
                prev.priority = VirtualCpu.UNDER;
            }
        }
        p.current = next;
        p.inHypervisor = true; // the new vCPU starts in Xen and leaves it at its first guest slice
        p.timesliceEnd = p.now + timeslice;
        p.idleFresh = next.idle;
        switches++;
        session.vcpuSwitch(p.index, prev.policyDomid(), prev.policyVcpu(), next.policyDomid(), next.policyVcpu());
    }

    private void wakeDue(long now) {
        if (now < nextWake) {
            return;
        }
        long earliest = Long.MAX_VALUE;
        for (VirtualCpu v : guests) {
            if (v.state != VirtualCpu.BLOCKED) {
                continue;
            }
            if (v.wakeAt <= now) {
                schedulingChanges++;
                v.state = VirtualCpu.RUNNABLE;
                v.runnableSince = v.wakeAt;
                v.burstLeft = v.drawBurst();
                v.priority = v.credit > 0 ? VirtualCpu.BOOST : VirtualCpu.OVER;
            } else {
                earliest = Math.min(earliest, v.wakeAt);
            }
        }
        nextWake = earliest;
    }

    /** When the next vCPU that only this CPU would take wakes. */
    private long haltUntil(PhysicalCpu p) {
        long until = Long.MAX_VALUE;
        for (VirtualCpu v : guests) {
            if (v.state == VirtualCpu.BLOCKED && v.home == p.index && !v.paused) {
                until = Math.min(until, v.wakeAt);
            }
        }
        return until;
    }

    /** Credit accounting: refill, cap at one period's share, recompute priorities. */
    private void account() {
        schedulingChanges++;
        for (VirtualCpu v : guests) {
            v.credit = Math.min(v.credit + creditShare, creditShare);
            if (v.priority == VirtualCpu.BOOST && v.state == VirtualCpu.RUNNING) {
                v.priority = VirtualCpu.UNDER;
            }
            if (v.priority != VirtualCpu.BOOST) {
                v.priority = v.credit > 0 ? VirtualCpu.UNDER : VirtualCpu.OVER;
            }
        }
    }

    // --------------------------------------------------------------------------------------- slices

    /** {@code PolicyHost.chargeHypervisor}: work of a policy on {@code pcpu}, charged to its current vCPU. */
    void charge(int pcpu, long cycles, String function) {
        if (pcpu < 0 || pcpu >= pcpus.length) {
            throw new IllegalArgumentException("pCPU " + pcpu + " does not exist; the host has " + pcpus.length);
        }
        if (cycles < 0) {
            throw new IllegalArgumentException("a policy cannot charge " + cycles + " cycles; charges are positive");
        }
        int fn = catalog.hypervisorFunction(function);
        if (fn < 0) {
            throw new IllegalArgumentException("'" + function + "' is not a function of the hypervisor image "
                    + scenario.hypervisor().name() + " (" + scenario.hypervisor().source().location()
                    + "); charge work to one of its functions, e.g. vpmu_save or do_nmi");
        }
        if (cycles == 0) {
            return;
        }
        PhysicalCpu p = pcpus[pcpu];
        slices.pushHypervisor(p, Slice.CHARGE, fn, cycles, p.current);
        chargedCycles += cycles;
    }

    GroundTruthLedger behalf() {
        callSites.flush(behalf); // hypercall work is split among its callers when the ledger is read
        return behalf;
    }

    long haltedCycles(int pcpu) {
        return pcpus[pcpu].haltedCycles;
    }

    // ------------------------------------------------------------------------------ pause, destroy

    /**
     * {@code xl pause}: the domain's vCPUs are no longer picked, and one that is running leaves its
     * CPU at once. Called between quanta.
     */
    void pause(int domid) {
        for (VirtualCpu v : guests) {
            if (v.domid == domid) {
                v.paused = true;
            }
        }
        schedulingChanges++;
        evict(domid);
        pauses++;
    }

    /** {@code xl unpause}: the vCPUs may be picked again, with the burst and credit they had. */
    void unpause(int domid) {
        for (VirtualCpu v : guests) {
            if (v.domid == domid && !v.destroyed) {
                v.paused = false;
            }
        }
        schedulingChanges++;
        unpauses++;
    }

    /** {@code xl destroy}: the vCPUs leave their CPUs and never run or wake again. */
    void destroy(int domid) {
        for (VirtualCpu v : guests) {
            if (v.domid == domid) {
                v.paused = true;
                v.destroyed = true;
                if (v.state != VirtualCpu.RUNNING) {
                    v.state = VirtualCpu.BLOCKED;
                }
                v.wakeAt = VirtualCpu.FOREVER;
            }
        }
        schedulingChanges++;
        evict(domid);
        destroys++;
    }

    /**
     * Ends the workload slice of a CPU running a vCPU of {@code domid}, so the CPU reschedules when
     * the hypervisor work above it (an NMI handler, a switch) is done. A CPU switching to such a
     * vCPU completes the switch and then leaves it at once.
     */
    private void evict(int domid) {
        for (PhysicalCpu p : pcpus) {
            if (p.current.idle || p.current.domid != domid) {
                continue;
            }
            for (int i = 0; i < p.depth; i++) {
                if (p.stack[i].kind == Slice.WORK) {
                    p.stack[i].remaining = 0;
                }
            }
        }
    }

    GroundTruthLedger ledger() {
        return ledger;
    }
}
