package org.hyperprof.vpmu.saverestore;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.vpmu.kit.PmuContext;
import org.hyperprof.vpmu.kit.ContextSession;

/**
 * The save/restore policy on one host: the save/restore of {@link ContextSession}, at every switch.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>Every guest vCPU has a {@link PmuContext} from its first sight, holding the power-on values of
 * the host's model until the guest programs it.</li>
 * <li>At every switch on a physical CPU, the context loaded there is saved (its counters read,
 * charged as {@code vpmu_save}). A guest coming in gets its whole context written (counters, then
 * controls, then interrupt registers, charged as {@code vpmu_load}); the idle vCPU gets the power-on
 * controls instead, so that nothing counts for no one.</li>
 * <li>Guest accesses always trap: counters are read from and written to the hardware (the vCPU's
 * context is on it whenever it runs: {@code vpmu_do_rdmsr}/{@code vpmu_do_wrmsr}).</li>
 * <li>{@code vpmu.freeze=exit}: the writes at the exit run just before the guest resumes, so their
 * own cycles are the one piece of hypervisor work that still counts, at {@code controls x
 * pmu.write} cycles per exit.</li>
 * </ul>
 *
 * <p>Hooks allocate only at a vCPU's first sight (its slot and context).
 */
final class SaveRestoreSession extends ContextSession {

    SaveRestoreSession(PolicyHost host, String policy) {
        super(host, policy);
    }

    @Override
    protected void switchContexts(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        PhysicalPmu pmu = pmus[pcpu];
        int out = slotLoadedOn(pcpu);
        if (out >= 0) {
            int reads = saveCounters(pcpu, out);
            int writes = nextDomid < 0 ? context(out).quiet(pmu) : 0;
            switchAccesses += reads + writes;
            charge(pcpu, reads * readCost + writes * writeCost, SAVE);
        }
        if (nextDomid >= 0) {
            int in = contextOf(nextDomid, nextVcpu);
            switchAccesses += remoteSave(pcpu, in);
            int writes = restore(pcpu, in);
            switchAccesses += writes;
            charge(pcpu, writes * writeCost, LOAD);
        }
    }

    /**
     * A vCPU coming in on {@code pcpu} whose context another CPU's hardware still holds (that CPU has
     * not switched it out yet): that CPU saves it and stops it, at its own cost.
     */
    private int remoteSave(int pcpu, int slot) {
        int other = cpuHolding(slot);
        if (other < 0 || other == pcpu) {
            return 0;
        }
        ipis++;
        int reads = saveCounters(other, slot);
        int writes = context(slot).quiet(pmus[other]);
        charge(other, reads * readCost + writes * writeCost, SAVE);
        return reads + writes;
    }

    /** The vCPU's context is always loaded while it runs; after Xenoprof let the PMU go it may not be yet. */
    @Override
    protected int loadForAccess(int pcpu, int slot) {
        int accesses = 0;
        long cycles = 0;
        int other = slotLoadedOn(pcpu);
        if (other >= 0) {
            int reads = saveCounters(pcpu, other);
            accesses += reads;
            cycles += reads * readCost;
        }
        accesses += remoteSave(pcpu, slot);
        int writes = restore(pcpu, slot);
        accesses += writes;
        cycles += writes * writeCost;
        charge(pcpu, cycles, LOAD);
        return accesses;
    }

    /** Every guest access traps. */
    @Override
    protected boolean passesThrough(PmuContext context) {
        return false;
    }

    @Override
    protected String xenoprofRefusal(int domid, int vcpu, int register) {
        return String.format("Xenoprof holds the PMU (a system-wide profiling session is set up), and the"
                + " saverestore policy cannot share it, as Xen's vPMU cannot: the write of domain %d vCPU %d to"
                + " register 0x%X is dropped; stop the Xenoprof session (opcontrol --shutdown) before profiling"
                + " inside the guest, or load the host with vpmu.policy=partitioned to run both at once",
                domid, vcpu, register);
    }
}
