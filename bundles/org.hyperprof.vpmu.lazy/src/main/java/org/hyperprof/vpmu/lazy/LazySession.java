package org.hyperprof.vpmu.lazy;

import java.util.Map;

import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.vpmu.kit.PmuContext;
import org.hyperprof.vpmu.kit.ContextSession;

/**
 * The lazy (Xen vPMU) policy on one host: the save/restore of {@link ContextSession}, made only
 * for vCPUs whose counters run.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>A vCPU gets a {@link PmuContext} at its first PMU access; until then it costs nothing.</li>
 * <li>"Running": some control register of the context differs from power-on.</li>
 * <li>Per physical CPU, {@code last vCPU}: whose context the hardware holds. Switch-out saves the
 * outgoing vCPU's context only if it is loaded there and running: the counter registers read, then
 * the power-on controls written ({@code vpmu_save}). A loaded context that does not run stays on
 * the hardware.</li>
 * <li>Switch-in loads only a running context: first the context another vCPU left on this CPU is
 * saved (counter reads, {@code vpmu_save}); if the incoming vCPU's context is still loaded on
 * another CPU, an IPI ({@code ipi} on this CPU) makes that CPU save it ({@code
 * smp_call_function_interrupt} there: counter reads, and the power-on controls if it runs); then every
 * register is written ({@code vpmu_load}). A vCPU whose context does not run is loaded the same way
 * at its next PMU access.</li>
 * <li>While a vCPU's context is loaded and running, its counter registers are not intercepted
 * ({@link #traps} false, Xen's MSR bitmap): such accesses reach the hardware at no hypervisor cost.
 * Other accesses trap and are emulated as in {@code saverestore} ({@code vpmu_do_rdmsr},
 * {@code vpmu_do_wrmsr}).</li>
 * </ul>
 *
 * <p>Hooks allocate only at a vCPU's first PMU access (its slot and context).
 */
final class LazySession extends ContextSession {
    /** Contexts loaded at a PMU access rather than at a switch. */
    static final String STAT_LAZY_LOADS = "loads.lazy";
    /** Contexts another vCPU left on a CPU, saved before loading one there. */
    static final String STAT_FORCED_SAVES = "saves.forced";
    /** Guest counter accesses that went straight to the hardware. */
    static final String STAT_PASSED_THROUGH = "guest.passed-through";
    /** vCPUs with a context (that touched their PMU). */
    static final String STAT_CONTEXTS = "contexts";

    private final long ipiCost;
    /** Reads and writes of the last save. */
    private int opReads;
    private int opWrites;

    private volatile long lazyLoads;
    private volatile long forcedSaves;

    LazySession(PolicyHost host, String policy) {
        super(host, policy);
        ipiCost = host.cost(PolicyHost.COST_IPI);
    }

    @Override
    protected void switchContexts(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        if (prevDomid >= 0) {
            int out = slots.find(prevDomid, prevVcpu);
            if (out >= 0 && slotLoadedOn(pcpu) == out && context(out).controlsSet()) {
                save(pcpu, out);
                switchAccesses += opReads + opWrites;
                charge(pcpu, opReads * readCost + opWrites * writeCost, SAVE);
            }
        }
        if (nextDomid >= 0) {
            int in = slots.find(nextDomid, nextVcpu);
            if (in >= 0 && context(in) != null && context(in).controlsSet() && slotLoadedOn(pcpu) != in) {
                switchAccesses += load(pcpu, in);
            }
        }
    }

    /**
     * Saves the counters of the context of {@code slot} from {@code pcpu} and, if it runs, writes the
     * power-on controls; sets {@link #opReads}/{@link #opWrites}.
     */
    private void save(int pcpu, int slot) {
        PmuContext c = context(slot);
        opReads = saveCounters(pcpu, slot);
        opWrites = c.controlsSet() ? c.quiet(pmus[pcpu]) : 0;
    }

    /** Makes the context of {@code slot} the one on {@code pcpu}'s hardware, charging each step; returns the accesses. */
    private int load(int pcpu, int slot) {
        int accesses = 0;
        int other = slotLoadedOn(pcpu);
        if (other >= 0) {
            save(pcpu, other);
            forcedSaves++;
            accesses += opReads + opWrites;
            charge(pcpu, opReads * readCost + opWrites * writeCost, SAVE);
        }
        int remote = cpuHolding(slot);
        if (remote >= 0 && remote != pcpu) {
            ipis++;
            charge(pcpu, ipiCost, LOAD);
            save(remote, slot);
            accesses += opReads + opWrites;
            charge(remote, opReads * readCost + opWrites * writeCost, "smp_call_function_interrupt");
        }
        int writes = restore(pcpu, slot);
        charge(pcpu, writes * writeCost, LOAD);
        return accesses + writes;
    }

    /** The lazy load: a vCPU whose context is not on this CPU's hardware gets it there at its PMU access. */
    @Override
    protected int loadForAccess(int pcpu, int slot) {
        lazyLoads++;
        return load(pcpu, slot);
    }

    /** Counter registers of a context loaded and running are passed through; everything else traps. */
    @Override
    public boolean traps(int domid, int vcpu, int register, boolean write) {
        checkOpen();
        if (domid < 0 || host.xenoprofOwnsPmu()) {
            return true;
        }
        int slot = slots.find(domid, vcpu);
        return slot < 0 || !untrapped(slot, positionOf(register));
    }

    private boolean untrapped(int slot, int position) {
        PmuContext c = context(slot);
        return c != null && c.isCounter(position) && cpuHolding(slot) >= 0 && c.controlsSet();
    }

    /** Once the context is loaded (at the access), its counters reach the hardware while it runs. */
    @Override
    protected boolean passesThrough(PmuContext context) {
        return context.controlsSet();
    }

    @Override
    protected String xenoprofRefusal(int domid, int vcpu, int register) {
        return String.format("Xenoprof holds the PMU (a system-wide profiling session is set up), and the lazy"
                + " policy (Xen's vPMU) cannot share it: the write of domain %d vCPU %d to register 0x%X is"
                + " dropped; stop the Xenoprof session (opcontrol --shutdown) before profiling inside the guest,"
                + " or load the host with vpmu.policy=partitioned to run both at once", domid, vcpu, register);
    }

    @Override
    protected void addStatistics(Map<String, Long> statistics) {
        super.addStatistics(statistics);
        statistics.put(STAT_PASSED_THROUGH, passedThrough);
        statistics.put(STAT_LAZY_LOADS, lazyLoads);
        statistics.put(STAT_FORCED_SAVES, forcedSaves);
        statistics.put(STAT_CONTEXTS, contextCount);
    }
}
