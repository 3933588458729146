package org.hyperprof.vpmu.kit;

import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.PolicyHost;

/**
 * A policy's session on one host that offers guests a PMU of the host's model: it works the
 * physical CPUs' register files, keeps per-vCPU state in arrays indexed by a slot each guest vCPU
 * gets at first sight, charges its work to Xen's vPMU functions and reports the statistics every
 * policy reports.
 *
 * <p>Hooks run on the simulation thread and allocate only when a vCPU is first seen (the per-slot
 * arrays grow); statistics are volatile and may be read from any thread.
 */
public abstract class VirtualPmuSession extends SessionOnHost {
    // The hypervisor functions the policies' work is charged to (Xen's vPMU).
    protected static final String SAVE = "vpmu_save";
    protected static final String LOAD = "vpmu_load";
    protected static final String RDMSR = "vpmu_do_rdmsr";
    protected static final String WRMSR = "vpmu_do_wrmsr";
    protected static final String INTERRUPT = "vpmu_do_interrupt";

    /** Per physical CPU: its register file. */
    protected final PhysicalPmu[] pmus;
    protected final ModelRegisters model;
    protected final VcpuSlots slots = new VcpuSlots(64);
    /** How many slots the per-slot arrays hold. */
    private int slotCapacity;

    // The statistics of PolicySession.STAT_*, those a policy does not do staying 0.
    protected volatile long switches;
    protected volatile long switchAccesses;
    protected volatile long entryExitAccesses;
    protected volatile long guestAccesses;
    protected volatile long refused;
    protected volatile long injected;
    protected volatile long notGuest;
    protected volatile long ipis;
    protected volatile long reprogramSkipped;
    protected volatile long cyclesSubtracted;

    protected VirtualPmuSession(PolicyHost host, String policy) {
        super(host, policy);
        // A host without CPUs is for the policy to refuse in its own words, not for an array.
        pmus = new PhysicalPmu[Math.max(pcpus, 0)];
        for (int p = 0; p < pcpus; p++) {
            pmus[p] = host.pmu(p);
        }
        model = new ModelRegisters(host);
    }

    @Override
    public final boolean guestsSeePmu() {
        checkOpen();
        return true;
    }

    /** The guest vCPU's slot, assigned at its first sight, when the per-slot arrays grow. */
    protected final int slotOf(int domid, int vcpu) {
        int slot = slots.findOrAdd(domid, vcpu);
        if (slot >= slotCapacity) {
            int from = slotCapacity;
            slotCapacity = slots.slotCapacity();
            growSlots(from, slotCapacity);
        }
        return slot;
    }

    /** A guest's access to a PMU register: checks the CPU, counts the access and gives the vCPU's slot. */
    protected final int guestAccess(int pcpu, int domid, int vcpu) {
        check(pcpu);
        int slot = slotOf(domid, vcpu);
        guestAccesses++;
        return slot;
    }

    /** Makes the per-slot arrays hold {@code to} slots, slots {@code from} and above fresh. */
    protected abstract void growSlots(int from, int to);

    /** Charges the hypervisor for work of the policy; no work, no charge. */
    protected final void charge(int pcpu, long cycles, String symbol) {
        if (cycles > 0) {
            host.chargeHypervisor(pcpu, cycles, symbol);
        }
    }

    @Override
    public final Map<String, Long> statistics() {
        Map<String, Long> statistics = new HashMap<>();
        statistics.put(STAT_SWITCHES, switches);
        statistics.put(STAT_SWITCH_ACCESSES, switchAccesses);
        statistics.put(STAT_ENTRY_EXIT_ACCESSES, entryExitAccesses);
        statistics.put(STAT_GUEST_ACCESSES, guestAccesses);
        statistics.put(STAT_GUEST_REFUSED, refused);
        statistics.put(STAT_INJECTED, injected);
        statistics.put(STAT_INTERRUPTS_NOT_GUEST, notGuest);
        statistics.put(STAT_IPIS, ipis);
        statistics.put(STAT_REPROGRAM_SKIPPED, reprogramSkipped);
        statistics.put(STAT_CYCLES_SUBTRACTED, cyclesSubtracted);
        addStatistics(statistics);
        return Map.copyOf(statistics);
    }

    /** Adds the statistics of the policy's own to those every policy reports. */
    protected void addStatistics(Map<String, Long> statistics) {
    }
}
