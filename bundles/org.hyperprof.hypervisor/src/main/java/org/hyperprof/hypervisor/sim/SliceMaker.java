package org.hyperprof.hypervisor.sim;

import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.SymbolRef;

/**
 * Makes the slices a CPU runs and pushes them on its stack: a stretch of a vCPU's workload, a piece
 * of hypervisor work in one of its functions, a guest's own PMU handler. It knows where each
 * function lies (the PC is drawn inside it, return addresses inside the callers), the rates the
 * hypervisor's code emits, and which hypervisor functions run with MSR[EE]=0 or end at a poll
 * point. Every function id is allocated when it is made, so a ledger row is
 * {@code slot * functions + id}. The per-slice path does not allocate.
 */
final class SliceMaker {
    private final SymbolCatalog catalog;
    /** Functions of the catalog: ledger rows are {@code slot * functions + id}. */
    final int functions;
    private final long sliceMin;
    private final Divisor sliceSpan;
    private final SignalRates hypervisorRates;
    private final long[] hypervisorRateArray;
    /** Per function id: hypervisor functions that run with MSR[EE]=0 wherever they run. */
    private final boolean[] interruptsOff;
    /** Per function id: the hypervisor polls the PMU's alert when such a function's slice ends. */
    private final boolean[] pollPoint;

    /** Workload slices pushed. */
    long workSlices;

    SliceMaker(Scenario scenario, SymbolCatalog catalog, RateArrays rateArrays) {
        this.catalog = catalog;
        this.sliceMin = scenario.sliceMinCycles();
        this.sliceSpan = new Divisor(scenario.sliceMaxCycles() - scenario.sliceMinCycles() + 1);
        this.hypervisorRateArray = rateArrays.canonical(scenario.hypervisorRates());
        this.hypervisorRates = SignalRates.of(hypervisorRateArray);
        this.functions = catalog.size(); // every id is allocated by now: rows are slot * functions + id
        catalog.complete();
        this.interruptsOff = new boolean[functions];
        for (SymbolRef f : scenario.interruptsOff()) {
            interruptsOff[catalog.id(f)] = true;
        }
        this.pollPoint = new boolean[functions];
        for (SymbolRef f : scenario.pollPoints()) {
            pollPoint[catalog.id(f)] = true;
        }
    }

    /** Pushes a stretch of {@code v}'s workload: a function drawn by weight, at most the burst left. */
    void pushWork(PhysicalCpu p, VirtualCpu v) {
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
        long[] d = w.draws[e];
        s.pc = d[0] + rng.below(d[1], d[2]);
        // The callers are drawn only if a sample reads them; their draws are passed over here.
        s.callersFrom(d, w.callerDepth[e], rng.position());
        rng.skip(w.callerDraws[e]);
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

    /** Pushes hypervisor work in function {@code fn}, charged to vCPU {@code v}. */
    Slice pushHypervisor(PhysicalCpu p, int kind, int fn, long cycles, VirtualCpu v) {
        Slice s = push(p, kind, v, fn, 2, 0, p.rng, cycles);
        s.ee = !interruptsOff[fn];
        s.poll = pollPoint[fn];
        return s;
    }

    /** Pushes a guest's own PMU handler: guest kernel code in {@code fn}, with external interrupts enabled. */
    void pushGuestHandler(PhysicalCpu p, VirtualCpu v, int fn, long cycles) {
        Slice h = push(p, Slice.GUEST_PMI, v, fn, 1, v.kernelCpl, v.rng, cycles);
        h.ee = true;
        h.poll = false;
    }

    /** A slice of {@code cycles} in {@code fn} at a PC drawn from {@code rng}, emitting the hypervisor's rates. */
    private Slice push(PhysicalCpu p, int kind, VirtualCpu v, int fn, int mode, int cpl, Prng rng, long cycles) {
        Slice s = p.push();
        s.kind = kind;
        s.row = v.slot * functions + fn;
        s.mode = mode;
        s.cpl = cpl;
        s.rates = hypervisorRates;
        s.rateArray = hypervisorRateArray;
        s.pc = catalog.start(fn) + rng.below(catalog.size(fn), catalog.sizeReciprocal(fn));
        s.noCallers();
        s.remaining = cycles;
        s.switchTo = null;
        return s;
    }
}
