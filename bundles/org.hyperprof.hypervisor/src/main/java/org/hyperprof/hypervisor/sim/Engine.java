package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.GuestProfilerSpec;
import org.hyperprof.hypervisor.sim.scenario.HypervisorCost;
import org.hyperprof.hypervisor.sim.scenario.PostponedHandling;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.SymbolRef;
import org.hyperprof.hypervisor.sim.scenario.VirtualPmuSpec;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;
import org.hyperprof.hypervisor.xenoprof.OverflowRouter;
import org.hyperprof.hypervisor.xenoprof.XenoprofCore;

/**
 * The simulated machine at work: physical CPUs running slices, a credit-like scheduler placing vCPUs
 * on them, and the PMU interrupt path into Xenoprof.
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
 * Every hypervisor cycle charged to a guest vCPU is also booked, in a second ledger, to the guest
 * function that was running when the hypervisor was entered (the nearest guest slice below on the
 * stack, else where the vCPU last ran guest code): the ground truth of "the guest plus the
 * hypervisor's work on its behalf".
 *
 * <p>Not thread-safe: one thread at a time runs the machine or changes it (the host serialises
 * them between quanta). The per-slice path does not allocate.
 */
final class Engine {
    private final Scenario scenario;
    private final long mhz;
    private final SymbolCatalog catalog;
    private final GroundTruthLedger ledger;
    /** Hypervisor cycles of guest vCPUs, by (vCPU slot, guest function that entered the hypervisor). */
    private final GroundTruthLedger behalf;
    private final int trapHvmFunction;
    private final long trapHvmCycles;
    private final int trapPvFunction;
    private final long trapPvCycles;
    private final PhysicalCpu[] pcpus;
    private final VirtualCpu[] guests;
    private final int functions;

    private final long sliceMin;
    private final long sliceSpan;
    private final long timeslice;
    private final long accountingPeriod;
    private final long creditShare;
    private final SignalRates hypervisorRates;
    private final long[] hypervisorRateArray;
    private final CostTable contextSwitch;
    private final CostTable nmiHandler;
    private final CostTable idleLoop;
    private final int haltFunction;
    /** Per function id: hypervisor functions that run with MSR[EE]=0 wherever they run. */
    private final boolean[] interruptsOff;
    /** Per function id: the hypervisor polls the PMU's alert when such a function's slice ends. */
    private final boolean[] pollPoint;
    private final PostponedHandling handling;

    private XenoprofCore xenoprof;
    private PolicySession session;
    private OverflowRouter router;

    private long nextWake = Long.MAX_VALUE;
    private long nextAccounting;

    long pieces;
    long workSlices;
    long interrupts;
    /** PMU interrupts asserted while a running NMI handler blocked NMIs (taken when it returned). */
    long interruptsBlocked;
    long samples;
    long switches;
    long pauses;
    long unpauses;
    long destroys;
    /** Alerts latched in EE=0 code on a gated PMU, once handled (taken, polled) or withdrawn. */
    long postponed;
    /** Postponed interrupts whose samples the handler dropped (ignore, and poll when no poll caught them). */
    long postponedDropped;
    /** Postponed interrupts given to the vCPU that ran at the alert (owner). */
    long postponedReattributed;
    /** Postponed alerts software cleared before they were taken or polled (no handler saw them). */
    long postponedWithdrawn;
    /** Handlers run at poll points (poll). */
    long polled;
    /** Overflows the dropping handlers re-armed without logging. */
    long samplesDropped;
    /** Interrupts (or polls) that logged a sample for another domain or mode than ran at the alert. */
    long misattributed;
    /** Cycles from alert to handler, summed and at most, over postponed interrupts taken or polled. */
    long postponedDelay;
    long postponedDelayMax;
    /** Cycles the policy charged through {@code chargeHypervisor}. */
    long chargedCycles;
    /** Cycles of trapped guest PMU accesses. */
    long trapCycles;
    /** Cycles of guests' own PMU handlers. */
    long guestHandlerCycles;
    /** PMU interrupts the policy took for guests without Xenoprof's callback. */
    long policyInterrupts;
    /** Guest profilers that found no PMU (the policy offers none). */
    long guestNoPmu;
    /** Guest profilers stopped by a refused write. */
    long guestRefusedProfilers;
    /** Virtual interrupts injected into a vCPU with no active profiler of its own. */
    long injectedUnhandled;
    /** Traps of the delivery in progress (charged once it is done). */
    private int pendingTraps;

    Engine(Scenario scenario, PmuModel model, PhysicalPmu[] pmus) {
        this.scenario = scenario;
        this.mhz = scenario.mhz();
        this.catalog = new SymbolCatalog(scenario.hypervisor());
        String cpuType = model.cpuType();
        List<Workload> workloads = new ArrayList<>();
        for (DomainSpec d : scenario.domains()) {
            workloads.add(new Workload(d.regions(), catalog));
        }
        this.sliceMin = scenario.sliceMinCycles();
        this.sliceSpan = scenario.sliceMaxCycles() - scenario.sliceMinCycles() + 1;
        this.timeslice = Math.multiplyExact(scenario.timesliceMicros(), mhz);
        this.accountingPeriod = Math.multiplyExact(scenario.accountingMicros(), mhz);
        this.hypervisorRateArray = scenario.hypervisorRates();
        this.hypervisorRates = SignalRates.of(hypervisorRateArray);
        this.contextSwitch = new CostTable(scenario.contextSwitch());
        this.nmiHandler = new CostTable(scenario.nmiHandler());
        this.idleLoop = new CostTable(scenario.idleLoop());
        this.haltFunction = catalog.id(scenario.halt());
        VirtualPmuSpec vpmu = scenario.vpmu();
        this.trapHvmFunction = vpmu.hvm() == null ? -1 : catalog.id(vpmu.hvm().function());
        this.trapHvmCycles = vpmu.hvm() == null ? 0 : vpmu.hvm().cycles();
        this.trapPvFunction = vpmu.pv() == null ? -1 : catalog.id(vpmu.pv().function());
        this.trapPvCycles = vpmu.pv() == null ? 0 : vpmu.pv().cycles();
        int[] handlerIds = new int[scenario.domains().size()];
        for (int di = 0; di < handlerIds.length; di++) {
            GuestProfilerSpec gp = scenario.domains().get(di).profiler();
            handlerIds[di] = gp == null ? -1 : catalog.id(gp.handler());
        }
        this.functions = catalog.size(); // every id is allocated by now: rows are slot * functions + id
        this.interruptsOff = new boolean[functions];
        for (SymbolRef f : scenario.interruptsOff()) {
            interruptsOff[catalog.id(f)] = true;
        }
        this.pollPoint = new boolean[functions];
        for (SymbolRef f : scenario.pollPoints()) {
            pollPoint[catalog.id(f)] = true;
        }
        this.handling = scenario.postponedHandling();

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
        int pictures = 0;
        for (VirtualCpu v : guests) {
            DomainSpec d = domainOf(v.domid);
            GuestProfilerSpec gp = d.profiler();
            if (gp == null) {
                continue;
            }
            String problem = null;
            CounterConfig[] configs = new CounterConfig[0];
            PhysicalPmu picture = model.createPmu(n + pictures++, scenario.pmuOptions());
            if (trapHvmFunction < 0 && d.hvm() || trapPvFunction < 0 && !d.hvm()) {
                problem = "the scenario prices no trapped PMU access for " + (d.hvm() ? "HVM" : "PV")
                        + " guests; add 'cost.trap." + (d.hvm() ? "hvm" : "pv") + " <cycles> <hypervisor function>'";
            } else {
                try {
                    configs = model.allocate(List.of(EventSpec.parse(gp.event())));
                } catch (EventSpecException e) {
                    problem = "it asks for " + gp.event() + ", which " + cpuType + " refuses: " + e.getMessage();
                }
            }
            if (problem == null && gp.counter() >= 0) {
                if (gp.counter() >= picture.counterRegisters().length) {
                    problem = "it asks for counter " + gp.counter() + " but " + cpuType + " has "
                            + picture.counterRegisters().length + " (0 to " + (picture.counterRegisters().length - 1)
                            + ")";
                } else {
                    CounterConfig c = configs[0];
                    configs = new CounterConfig[] {
                            new CounterConfig(gp.counter(), c.event(), c.count(), c.unitMask(), c.kernel(), c.user())};
                }
            }
            v.guestPmu = new GuestPmu(picture, configs, v.vcpu, gp.bufferSlots(), handlerIds[indexOf(d)],
                    gp.handlerCycles());
            if (problem != null) {
                v.guestPmu.state = GuestPmu.REFUSED;
                v.guestPmu.refusal = scenario.location() + ":" + gp.line() + ": the profiler of domain " + d.domid()
                        + " vCPU " + v.vcpu + " cannot start: " + problem;
                guestRefusedProfilers++;
            }
        }
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

    private DomainSpec domainOf(int domid) {
        for (DomainSpec d : scenario.domains()) {
            if (d.domid() == domid) {
                return d;
            }
        }
        throw new IllegalArgumentException("no domain " + domid);
    }

    private int indexOf(DomainSpec d) {
        return scenario.domains().indexOf(d);
    }

    /** Connects the interrupt path and the policy; done once, before the first run. */
    void attach(XenoprofCore xenoprof, PolicySession session, OverflowRouter router) {
        this.xenoprof = xenoprof;
        this.session = session;
        this.router = router;
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
                alertWithdrawn(p);
            }
            // An overflow is taken at the slice during which it happened, even one that just ended:
            // the interrupt is checked before a finished slice gives way to the next.
            if (p.gated) {
                // Taken only while the code on top has MSR[EE]=1; until then it stays pending (postponed).
                if (s.ee && !p.interruptJustTaken && pmu.interruptPending()) {
                    takeInterrupt(p);
                    continue;
                }
            } else if (p.nmiHandlerAt < 0) {
                if (!p.interruptJustTaken && pmu.interruptPending()) {
                    takeInterrupt(p);
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
                    startGuestProfiler(p, v, g);
                    continue;
                }
                if (g.pending) {
                    deliverVirtualInterrupt(p, v, g);
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
                int fn = guestFunctionBelow(p, v);
                if (fn >= 0) {
                    behalf.add(v.slot * functions + fn, step, s.rateArray);
                }
            }
            p.now += step;
            s.remaining -= step;
            p.interruptJustTaken = false;
            if (!p.latched && pmu.alertPending()) {
                latch(p, s, v);
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
        if (s.poll && p.gated && handling == PostponedHandling.POLL && p.pmu.alertPending()
                && xenoprof.nmiCallbackInstalled()) {
            poll(p, s.pc);
        }
        if (kind == Slice.SWITCH) {
            completeSwitch(p, switchTo);
        }
    }

    /** The PMU's alert turned on while {@code s} ran on {@code v}: note who ran, for the handler's books. */
    private void latch(PhysicalCpu p, Slice s, VirtualCpu v) {
        p.latched = true;
        p.latchAt = p.now;
        p.latchVcpu = v;
        p.latchMode = xenoprofMode(s, v);
        p.latchPostponed = p.gated && !s.ee;
    }

    /** Software cleared an alert before any handler ran for it (a stop or start of the counters). */
    private void alertWithdrawn(PhysicalCpu p) {
        if (p.latchPostponed) {
            postponed++;
            postponedWithdrawn++;
        }
        p.latched = false;
    }

    /** A postponed alert reaches a handler (taken or polled): count it and its delay. */
    private void postponedHandled(PhysicalCpu p) {
        postponed++;
        long delay = p.now - p.latchAt;
        postponedDelay += delay;
        postponedDelayMax = Math.max(postponedDelayMax, delay);
    }

    /** Xenoprof's mode of code in slice {@code s} of {@code v}. */
    private static int xenoprofMode(Slice s, VirtualCpu v) {
        int mode = s.mode;
        if (v.hvm && mode != XenoprofCore.MODE_XEN) {
            // xenoprofile_get_mode for an HVM vCPU: kernel unless the guest was at CPL 3 (protected mode).
            mode = s.cpl != 3 ? XenoprofCore.MODE_KERNEL : XenoprofCore.MODE_USER;
        }
        return mode;
    }

    /**
     * What {@code PhysicalPmu.sampledAddress()} answers when the PMU latched no address. Addresses
     * are unsigned 64-bit values: a 64-bit PowerPC kernel runs at 0xc000..., negative as a Java
     * long, so only this exact value means "none", never the sign.
     */
    private static final long NO_SAMPLED_ADDRESS = -1;

    /**
     * The mode the PMU's latched privilege gives ({@code sampledCpl()}: 0 hypervisor, 3 problem
     * state, else supervisor), or {@code otherwise} when the PMU latched none.
     */
    private static int latchedMode(int cpl, int otherwise) {
        if (cpl < 0) {
            return otherwise;
        }
        return cpl == 0 ? XenoprofCore.MODE_XEN : cpl == 3 ? XenoprofCore.MODE_USER : XenoprofCore.MODE_KERNEL;
    }

    /** The PMU interrupt (an NMI on x86, the perfmon exception on PowerPC) is taken at the PC of the slice on top. */
    private void takeInterrupt(PhysicalCpu p) {
        Slice at = p.top();
        VirtualCpu v = p.current;
        boolean wasPostponed = p.latched && p.latchPostponed;
        p.pmu.acknowledgeInterrupt();
        p.interruptJustTaken = true;
        interrupts++;
        if (!v.idle && !p.inHypervisor) {
            p.inHypervisor = true;
            session.hypervisorEntry(p.index, v.domid, v.vcpu);
        }
        VirtualCpu owner = v;
        int mode = xenoprofMode(at, v);
        long pc = at.pc;
        boolean xenoprofToo = session.pmuInterrupt(p.index, v.policyDomid(), v.policyVcpu(), CpuMode.ofCode(mode));
        int depth = at.depth;
        long[] stack = at.stack;
        if (nmiHandler.cycles > 0) {
            // Pushed before the handler body runs so that work charged from inside it is under NMI block
            // too (on a gated PMU: runs with EE=0, as exception entry leaves it).
            Slice h = pushHypervisor(p, Slice.NMI, nmiHandler.pick(p.rng), nmiHandler.cycles, v);
            h.ee = false;
            h.poll = false;
            if (!p.gated) {
                p.nmiHandlerAt = p.depth - 1;
                p.blockedNoted = false;
            }
        }
        if (!xenoprofToo) {
            // The policy took the interrupt for a guest's counters (vpmu_do_interrupt): no Xenoprof sample.
            policyInterrupts++;
            p.latched = false;
            if (nmiHandler.cycles == 0) {
                p.pmu.returnFromInterrupt();
            }
            return;
        }
        if (wasPostponed) {
            postponedHandled(p);
            if (handling == PostponedHandling.OWNER) {
                // Xen-PPC's "pass it to the domain it belongs to": the vCPU that ran at the alert, the mode
                // MMCRA's sampled bits give, the address SIAR holds; the interrupted stack is not the
                // sampled code's, so no call trace.
                postponedReattributed++;
                owner = p.latchVcpu;
                mode = latchedMode(p.pmu.sampledCpl(), mode);
                long siar = p.pmu.sampledAddress();
                if (siar != NO_SAMPLED_ADDRESS) {
                    pc = siar;
                }
                depth = 0;
            } else {
                // ignore (and poll, for what no poll caught): re-arm and re-enable the alert, drop the sample.
                postponedDropped++;
                samplesDropped += xenoprof.discardNmi(p.index);
                p.latched = false;
                if (nmiHandler.cycles == 0) {
                    p.pmu.returnFromInterrupt();
                }
                return;
            }
        }
        int taken = xenoprof.nmi(p.index, owner.xenoprofDomid(), owner.vcpu, mode, pc, stack, depth, router);
        samples += taken;
        judge(p, owner, mode, taken);
        if (nmiHandler.cycles == 0) {
            p.pmu.returnFromInterrupt();
        }
        xenoprof.nmiContinuation(p.index);
    }

    /**
     * The hypervisor polls the PMU's alert at the end of a poll-point function and finds it set: it
     * runs the handler there, without an interrupt (no acknowledge, no return from interrupt), for
     * the vCPU current at the poll point, in the mode the PMU's latched privilege gives (Xen's own
     * when none), at the latched address (else the poll point's).
     */
    private void poll(PhysicalCpu p, long pollPc) {
        VirtualCpu v = p.current;
        polled++;
        if (p.latched && p.latchPostponed) {
            postponedHandled(p);
        }
        int mode = latchedMode(p.pmu.sampledCpl(), XenoprofCore.MODE_XEN);
        long siar = p.pmu.sampledAddress();
        long pc = siar != NO_SAMPLED_ADDRESS ? siar : pollPc;
        if (nmiHandler.cycles > 0) {
            Slice h = pushHypervisor(p, Slice.POLL, nmiHandler.pick(p.rng), nmiHandler.cycles, v);
            h.ee = false;
            h.poll = false;
        }
        int taken = xenoprof.nmi(p.index, v.xenoprofDomid(), v.vcpu, mode, pc, null, 0, router);
        samples += taken;
        judge(p, v, mode, taken);
        xenoprof.nmiContinuation(p.index);
    }

    /** Counts a logged sample that went to another domain or mode than ran when the alert latched. */
    private void judge(PhysicalCpu p, VirtualCpu owner, int mode, int taken) {
        if (taken > 0 && p.latched
                && (owner.xenoprofDomid() != p.latchVcpu.xenoprofDomid() || mode != p.latchMode)) {
            misattributed++;
        }
        p.latched = false;
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
            pushWork(p, cur);
            return;
        }
        VirtualCpu next = pick(p);
        if (next != null) {
            switchTo(p, next);
        } else if (p.idleFresh && idleLoop.cycles > 0) {
            p.idleFresh = false;
            pushHypervisor(p, Slice.IDLE, idleLoop.pick(p.rng), idleLoop.cycles, cur);
        } else {
            p.idleFresh = false;
            long until = Math.min(target, haltUntil(p));
            Slice s = pushHypervisor(p, Slice.HALT, haltFunction, until - p.now, cur);
            s.rates = SignalRates.HALTED;
            s.rateArray = HALTED_RATES;
            s.ee = true; // a CPU waits for an interrupt with interrupts enabled
        }
    }

    private static final long[] HALTED_RATES = SignalRates.HALTED.toArray();

    /** The best runnable vCPU this CPU may take, or null. */
    private VirtualCpu pick(PhysicalCpu p) {
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
        return best;
    }

    private void switchTo(PhysicalCpu p, VirtualCpu next) {
        if (next == p.current) {
            return;
        }
        if (!next.idle) {
            next.state = VirtualCpu.RUNNING; // claimed now, so that no other CPU takes it during the switch
        }
        if (contextSwitch.cycles > 0) {
            Slice s = pushHypervisor(p, Slice.SWITCH, contextSwitch.pick(p.rng), contextSwitch.cycles, p.current);
            s.switchTo = next;
        } else {
            completeSwitch(p, next);
        }
    }

    private void completeSwitch(PhysicalCpu p, VirtualCpu next) {
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

    private void pushWork(PhysicalCpu p, VirtualCpu v) {
        Workload w = v.workload;
        Prng rng = v.rng;
        int e = w.pick(rng);
        int fn = w.symbol[e];
        long length = sliceMin + rng.below(sliceSpan);
        if (length > v.burstLeft) {
            length = v.burstLeft;
        }
        Slice s = p.push();
        s.kind = Slice.WORK;
        s.row = v.slot * functions + fn;
        s.mode = w.mode[e];
        s.cpl = s.mode == 2 ? 0 : s.mode == 1 ? v.kernelCpl : 3;
        s.rates = w.rates[e];
        s.rateArray = w.rateArrays[e];
        s.pc = catalog.start(fn) + rng.below(catalog.size(fn));
        int[] callers = w.callers[e];
        for (int i = 0; i < callers.length; i++) {
            s.stack[i] = returnAddress(callers[i], rng);
        }
        s.depth = callers.length;
        s.remaining = length;
        s.switchTo = null;
        s.ee = w.interruptsEnabled[e];
        s.poll = pollPoint[fn];
        if (s.mode != 2) {
            v.lastGuestPc = s.pc;
            v.lastGuestMode = s.mode;
            v.lastGuestFn = fn;
        }
        workSlices++;
    }

    /** A return address: inside the caller, past its first byte (a call instruction precedes it). */
    private long returnAddress(int fn, Prng rng) {
        long size = catalog.size(fn);
        return size > 1 ? catalog.start(fn) + 1 + rng.below(size - 1) : catalog.start(fn);
    }

    /** Pushes hypervisor work in function {@code fn}, charged to vCPU {@code v}. */
    private Slice pushHypervisor(PhysicalCpu p, int kind, int fn, long cycles, VirtualCpu v) {
        Slice s = p.push();
        s.kind = kind;
        s.row = v.slot * functions + fn;
        s.mode = 2;
        s.cpl = 0;
        s.rates = hypervisorRates;
        s.rateArray = hypervisorRateArray;
        s.pc = catalog.start(fn) + p.rng.below(catalog.size(fn));
        s.depth = 0;
        s.remaining = cycles;
        s.switchTo = null;
        s.ee = !interruptsOff[fn];
        s.poll = pollPoint[fn];
        return s;
    }

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
        pushHypervisor(p, Slice.CHARGE, fn, cycles, p.current);
        chargedCycles += cycles;
    }

    /**
     * {@code PolicyHost.injectVirtualInterrupt}: counted per vCPU; a vCPU whose own profiler runs
     * takes it at its next guest code, with the PC the guest can see now. One waits at most.
     */
    void injectVirtualInterrupt(int domid, int vcpu) {
        VirtualCpu v = find(domid, vcpu);
        v.virtualInterrupts++;
        GuestPmu g = v.guestPmu;
        if (g == null || g.state != GuestPmu.ACTIVE) {
            injectedUnhandled++;
            return;
        }
        if (g.pending) {
            g.interruptsCoalesced++;
            return;
        }
        g.pending = true;
        g.pendingPc = v.lastGuestPc;
        g.pendingMode = v.lastGuestMode;
        for (PhysicalCpu p : pcpus) {
            if (p.current != v) {
                continue;
            }
            for (int i = p.depth - 1; i >= 0; i--) {
                Slice s = p.stack[i];
                if (s.guestCode()) {
                    g.pendingPc = s.pc;
                    g.pendingMode = s.mode;
                    break;
                }
            }
        }
    }

    /** The guest function the hypervisor was entered from on {@code p}: the nearest guest slice below, else where {@code v} last ran. */
    private int guestFunctionBelow(PhysicalCpu p, VirtualCpu v) {
        for (int i = p.depth - 1; i >= 0; i--) {
            Slice s = p.stack[i];
            if (s.guestCode()) {
                return s.row - v.slot * functions;
            }
        }
        return v.lastGuestFn;
    }

    // ------------------------------------------------------------------------ guests' own profilers

    /** The hypervisor is entered for a guest's trapped access (if it is not in already). */
    private void enterForGuest(PhysicalCpu p, VirtualCpu v) {
        if (!p.inHypervisor) {
            p.inHypervisor = true;
            session.hypervisorEntry(p.index, v.domid, v.vcpu);
        }
    }

    /**
     * The guest's driver starts: with no PMU offered (CPUID leaf 0xA empty) the profiler gives up
     * without touching a register; otherwise the model's driver programs the picture and every
     * counter, control and interrupt register is written through the policy.
     */
    private void startGuestProfiler(PhysicalCpu p, VirtualCpu v, GuestPmu g) {
        if (!session.guestsSeePmu()) {
            g.state = GuestPmu.NO_PMU;
            guestNoPmu++;
            return;
        }
        enterForGuest(p, v);
        pendingTraps = 0;
        g.program();
        g.state = GuestPmu.ACTIVE;
        if (!writeAll(p, v, g, g.counterRegisters) || !writeAll(p, v, g, g.controlRegisters)
                || !writeAll(p, v, g, g.interruptRegisters)) {
            g.state = GuestPmu.REFUSED;
            guestRefusedProfilers++;
        }
        chargeTraps(p, v);
    }

    private boolean writeAll(PhysicalCpu p, VirtualCpu v, GuestPmu g, int[] registers) {
        for (int r : registers) {
            if (!guestWrite(p, v, g, r, g.picture.read(r))) {
                return false;
            }
        }
        return true;
    }

    private boolean guestWrite(PhysicalCpu p, VirtualCpu v, GuestPmu g, int register, long value) {
        g.accesses++;
        if (session.traps(v.domid, v.vcpu, register, true)) {
            g.accessesTrapped++;
            pendingTraps++;
        }
        if (session.guestWrite(p.index, v.domid, v.vcpu, register, value)) {
            return true;
        }
        if (g.refusal == null) {
            g.refusal = "domain " + v.domid + " vCPU " + v.vcpu + ": its profiler's write of 0x"
                    + Long.toHexString(value) + " to PMU register 0x" + Integer.toHexString(register) + " was refused: "
                    + session.refusal(v.domid, v.vcpu, register);
        }
        return false;
    }

    private long guestRead(PhysicalCpu p, VirtualCpu v, GuestPmu g, int register) {
        g.accesses++;
        if (session.traps(v.domid, v.vcpu, register, false)) {
            g.accessesTrapped++;
            pendingTraps++;
        }
        return session.guestRead(p.index, v.domid, v.vcpu, register);
    }

    /**
     * The guest takes its virtual PMU interrupt: its handler reads its counters, finds by the
     * model's rule what overflowed, logs a sample for each at the PC it saw, re-arms, writes back
     * what changed and the interrupt routing. Its handler runs as guest kernel code, after the traps.
     */
    private void deliverVirtualInterrupt(PhysicalCpu p, VirtualCpu v, GuestPmu g) {
        g.pending = false;
        g.interruptsDelivered++;
        enterForGuest(p, v);
        pendingTraps = 0;
        int[] counters = g.counterRegisters;
        for (int i = 0; i < counters.length; i++) {
            long value = guestRead(p, v, g, counters[i]);
            g.noteRead(i, value);
            g.picture.write(counters[i], value);
            g.noteRead(i, g.picture.read(counters[i])); // what the picture holds, so an unchanged re-arm writes nothing
        }
        g.overflowCount = 0;
        g.picture.checkCounters(g);
        if (g.overflowCount == 0) {
            g.interruptsSpurious++;
        }
        for (int k = 0; k < g.overflowCount; k++) {
            g.log(g.pendingPc, g.pendingMode, g.overflowed[k]);
        }
        boolean ok = true;
        for (int i = 0; i < counters.length && ok; i++) {
            long now = g.picture.read(counters[i]);
            if (now != g.readValue(i)) {
                ok = guestWrite(p, v, g, counters[i], now);
            }
        }
        if (ok) {
            ok = writeAll(p, v, g, g.interruptRegisters);
        }
        if (!ok) {
            g.state = GuestPmu.REFUSED;
            guestRefusedProfilers++;
        }
        if (g.handlerCycles > 0 && g.handlerFunction >= 0) {
            Slice h = p.push();
            h.kind = Slice.GUEST_PMI;
            h.row = v.slot * functions + g.handlerFunction;
            h.mode = 1;
            h.cpl = v.kernelCpl;
            h.rates = hypervisorRates;
            h.rateArray = hypervisorRateArray;
            h.pc = catalog.start(g.handlerFunction) + v.rng.below(catalog.size(g.handlerFunction));
            h.depth = 0;
            h.remaining = g.handlerCycles;
            h.switchTo = null;
            h.ee = true;
            h.poll = false;
            guestHandlerCycles += g.handlerCycles;
        }
        chargeTraps(p, v);
    }

    /** Pushes the hypervisor work of the traps just counted, in the scenario's trap function. */
    private void chargeTraps(PhysicalCpu p, VirtualCpu v) {
        int n = pendingTraps;
        pendingTraps = 0;
        long each = v.hvm ? trapHvmCycles : trapPvCycles;
        int fn = v.hvm ? trapHvmFunction : trapPvFunction;
        if (n == 0 || each == 0 || fn < 0) {
            return;
        }
        long cycles = n * each;
        pushHypervisor(p, Slice.TRAP, fn, cycles, v);
        trapCycles += cycles;
    }

    /** The guest profiler of every vCPU of a domain, in vCPU order (empty when it runs none). */
    List<GuestPmu> guestProfilers(int domid) {
        List<GuestPmu> out = new ArrayList<>();
        for (VirtualCpu v : guests) {
            if (v.domid == domid && v.guestPmu != null) {
                out.add(v.guestPmu);
            }
        }
        return out;
    }

    List<GuestPmu> allGuestProfilers() {
        List<GuestPmu> out = new ArrayList<>();
        for (VirtualCpu v : guests) {
            if (v.guestPmu != null) {
                out.add(v.guestPmu);
            }
        }
        return out;
    }

    GroundTruthLedger behalf() {
        return behalf;
    }

    long virtualInterrupts(int domid, int vcpu) {
        return find(domid, vcpu).virtualInterrupts;
    }

    long virtualInterruptsTotal() {
        long n = 0;
        for (VirtualCpu v : guests) {
            n += v.virtualInterrupts;
        }
        return n;
    }

    private VirtualCpu find(int domid, int vcpu) {
        for (VirtualCpu v : guests) {
            if (v.domid == domid && v.vcpu == vcpu) {
                return v;
            }
        }
        throw new IllegalArgumentException("domain " + domid + " has no vCPU " + vcpu);
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

    /** The weighted functions of an inserted kind of hypervisor work, compiled. */
    private final class CostTable {
        final long cycles;
        final int[] functionIds;
        final WeightedChoice choice;

        CostTable(HypervisorCost cost) {
            cycles = cost.cycles();
            functionIds = new int[cost.functions().size()];
            long[] weights = new long[functionIds.length];
            for (int i = 0; i < functionIds.length; i++) {
                WeightedSymbol ws = cost.functions().get(i);
                functionIds[i] = catalog.id(ws.symbol());
                weights[i] = ws.weight();
            }
            choice = functionIds.length == 0 ? null : new WeightedChoice(weights);
        }

        int pick(Prng rng) {
            return functionIds[choice.pick(rng)];
        }
    }
}
