package org.hyperprof.vpmu.kit;

import java.util.Arrays;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;

/**
 * The save/restore style of Xen's vPMU: each guest vCPU has a whole {@link PmuContext} of the
 * host's model, saved from a physical CPU's hardware and loaded into it. The policies differ in
 * when they save and load (the switch, the load at a PMU access, and which counter accesses pass
 * through); the rest is theirs in common:
 * <ul>
 * <li>A save reads only the counter registers: the context's control and interrupt registers are
 * the guest's own, recorded at each intercepted write, so a control another party rewrote on the
 * hardware meanwhile (Xenoprof's driver {@code setup} clears every event select) is put right at
 * the next load. A load writes counters first and controls last.</li>
 * <li>Host option {@code vpmu.freeze}: {@code running} (default) lets the guest's counters count
 * the hypervisor's work for it; {@code exit} writes the power-on controls at each hypervisor entry
 * of a vCPU whose controls count and its controls back at the exit. A load holds the controls back
 * until the exit for the same reason, and a guest's control write made while frozen reaches the
 * hardware at the exit.</li>
 * <li>Guest accesses: counters go to the hardware (the context is loaded first), controls and
 * interrupt registers to the context with the model's write semantics and to the hardware; control
 * and interrupt reads come from the context at no physical cost.</li>
 * <li>PMU interrupt: when the context loaded on the CPU counts, a virtual interrupt goes to its
 * vCPU and Xenoprof's handler is not run; otherwise it is not the guests'.</li>
 * <li>While Xenoprof holds the PMU ({@link PolicyHost#xenoprofOwnsPmu()}), the policy keeps off the
 * hardware: switches and exits touch nothing, guest writes are refused, guest reads see 0.</li>
 * </ul>
 */
public abstract class ContextSession extends VirtualPmuSession {
    /** Physical reads and writes made to emulate guest accesses (not at switches, entries or exits). */
    public static final String STAT_GUEST_PHYSICAL_ACCESSES = "guest.physical-accesses";
    private static final String FREEZE_OPTION = "freeze";
    private static final String FREEZE_RUNNING = "running";
    private static final String FREEZE_EXIT = "exit";

    protected final long readCost;
    protected final long writeCost;
    protected final long injectCost;
    private final boolean freezeAtExit;
    /** A register file no one writes: the power-on values of every new context. */
    private final PhysicalPmu powerOn;
    /** The register layout, for lookups before a vCPU has a context. */
    private final PmuContext layout;

    /** Per slot: null until the policy first needs the vCPU's context. */
    private PmuContext[] contexts = new PmuContext[0];
    /** Per slot: the physical CPU whose hardware holds the context ({@code last_pcpu}), or -1. */
    private int[] loadedOn = new int[0];
    /** Per physical CPU: the slot whose context the hardware holds ({@code last_vcpu}), or -1. */
    private final int[] loaded;
    /** Per physical CPU: the loaded context's controls are held back (power-on on the hardware) until the exit. */
    private final boolean[] frozen;

    protected volatile long guestPhysicalAccesses;
    /** Guest counter accesses that went straight to the hardware. */
    protected volatile long passedThrough;
    /** vCPUs with a context. */
    protected volatile long contextCount;

    protected ContextSession(PolicyHost host, String policy) {
        super(host, policy);
        String freeze = host.option(FREEZE_OPTION, FREEZE_RUNNING);
        if (FREEZE_EXIT.equals(freeze)) {
            freezeAtExit = true;
        } else if (FREEZE_RUNNING.equals(freeze)) {
            freezeAtExit = false;
        } else {
            throw new IllegalArgumentException("host option vpmu." + FREEZE_OPTION + "=" + freeze + " is not a freeze"
                    + " mode; allowed: " + FREEZE_RUNNING + " (guest counters also count the hypervisor's work for the"
                    + " guest) or " + FREEZE_EXIT + " (guest counters stop at every hypervisor entry)");
        }
        readCost = host.cost(PolicyHost.COST_PMU_READ);
        writeCost = host.cost(PolicyHost.COST_PMU_WRITE);
        injectCost = host.cost(PolicyHost.COST_INJECT);
        if (pcpus <= 0) {
            throw new IllegalArgumentException("the host has " + pcpus + " physical CPUs; a policy needs at least one");
        }
        powerOn = host.newPmuContext();
        layout = new PmuContext(powerOn);
        loaded = new int[pcpus];
        Arrays.fill(loaded, -1);
        frozen = new boolean[pcpus];
    }

    // ------------------------------------------------------------------------------ what the policies decide

    /** Saves and loads what the policy moves at a switch; Xenoprof does not hold the PMU. */
    protected abstract void switchContexts(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu);

    /**
     * Gets the context of {@code slot} onto {@code pcpu}'s hardware for a guest access, charging the
     * work; returns the accesses made.
     */
    protected abstract int loadForAccess(int pcpu, int slot);

    /** Whether the loaded context's counter registers reach the hardware without a trap. */
    protected abstract boolean passesThrough(PmuContext context);

    /** Why a guest's write is dropped while Xenoprof holds the PMU. */
    protected abstract String xenoprofRefusal(int domid, int vcpu, int register);

    // ------------------------------------------------------------------------------ the state the policies read

    protected final PmuContext context(int slot) {
        return contexts[slot];
    }

    /** The slot whose context {@code pcpu}'s hardware holds, or -1. */
    protected final int slotLoadedOn(int pcpu) {
        return loaded[pcpu];
    }

    /** The physical CPU whose hardware holds the context of {@code slot}, or -1. */
    protected final int cpuHolding(int slot) {
        return loadedOn[slot];
    }

    protected final int positionOf(int register) {
        return layout.positionOf(register);
    }

    // ------------------------------------------------------------------------------ save and load

    /** The guest vCPU's slot, with its context made at this, the policy's first need of it. */
    protected final int contextOf(int domid, int vcpu) {
        int slot = slotOf(domid, vcpu);
        if (contexts[slot] == null) {
            contexts[slot] = new PmuContext(powerOn);
            contextCount++;
        }
        return slot;
    }

    @Override
    protected final void growSlots(int from, int to) {
        contexts = Arrays.copyOf(contexts, to);
        loadedOn = Arrays.copyOf(loadedOn, to);
        Arrays.fill(loadedOn, from, to, -1);
    }

    /**
     * Reads {@code pcpu}'s counter registers into the context of {@code slot}, which leaves the
     * hardware; returns the reads.
     */
    protected final int saveCounters(int pcpu, int slot) {
        int reads = contexts[slot].saveCounters(pmus[pcpu]);
        loaded[pcpu] = -1;
        loadedOn[slot] = -1;
        frozen[pcpu] = false;
        return reads;
    }

    /** Writes the context of {@code slot} into {@code pcpu}'s hardware; returns the writes. */
    protected final int restore(int pcpu, int slot) {
        PmuContext c = contexts[slot];
        PhysicalPmu pmu = pmus[pcpu];
        boolean hold = freezeAtExit && c.controlsSet();
        for (int p = 0; p < c.size(); p++) {
            // Counters first, controls last: nothing counts with a half-written context. Held back,
            // the controls stay at power-on until the vCPU's first exit to guest code.
            pmu.write(c.register(p), hold && c.isControl(p) ? c.powerOn(p) : c.value(p));
        }
        loaded[pcpu] = slot;
        loadedOn[slot] = pcpu;
        frozen[pcpu] = hold;
        return c.size();
    }

    // ------------------------------------------------------------------------------ switches, entries and exits

    @Override
    public final void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        check(pcpu);
        switches++;
        if (host.xenoprofOwnsPmu()) {
            // Xenoprof's counters are on the hardware. It saved what it found there when it reserved
            // the counters and writes it back when it releases them: the loaded context stays loaded.
            return;
        }
        switchContexts(pcpu, prevDomid, prevVcpu, nextDomid, nextVcpu);
    }

    @Override
    public final void hypervisorEntry(int pcpu, int domid, int vcpu) {
        check(pcpu);
        if (!freezeAtExit || domid < 0 || frozen[pcpu] || host.xenoprofOwnsPmu()) {
            return;
        }
        int slot = loaded[pcpu];
        if (slot < 0 || slot != slots.find(domid, vcpu) || !contexts[slot].controlsSet()) {
            return;
        }
        int writes = contexts[slot].quiet(pmus[pcpu]);
        frozen[pcpu] = true;
        entryExitAccesses += writes;
        charge(pcpu, writes * writeCost, SAVE);
    }

    @Override
    public final void hypervisorExit(int pcpu, int domid, int vcpu) {
        check(pcpu);
        if (!frozen[pcpu] || domid < 0 || host.xenoprofOwnsPmu()) {
            return;
        }
        int slot = loaded[pcpu];
        frozen[pcpu] = false;
        if (slot < 0 || !contexts[slot].controlsSet()) {
            return; // the hardware already holds power-on controls
        }
        int writes = contexts[slot].restoreControls(pmus[pcpu]);
        entryExitAccesses += writes;
        charge(pcpu, writes * writeCost, LOAD);
    }

    // ------------------------------------------------------------------------------ guest accesses

    @Override
    public final long guestRead(int pcpu, int domid, int vcpu, int register) {
        check(pcpu);
        int position = layout.positionOf(register);
        if (position < 0) {
            throw notARegister(register);
        }
        guestAccesses++;
        if (host.xenoprofOwnsPmu()) {
            return 0;
        }
        int slot = contextOf(domid, vcpu);
        ensureLoaded(pcpu, slot);
        PmuContext c = contexts[slot];
        if (!c.isCounter(position)) {
            return c.value(position);
        }
        if (passesThrough(c)) {
            passedThrough++; // RDMSR straight from the hardware
        } else {
            guestPhysicalAccesses++;
            charge(pcpu, readCost, RDMSR);
        }
        return pmus[pcpu].read(register);
    }

    @Override
    public final boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
        check(pcpu);
        int position = layout.positionOf(register);
        if (position < 0 || host.xenoprofOwnsPmu()) {
            refused++;
            return false;
        }
        guestAccesses++;
        int slot = contextOf(domid, vcpu);
        ensureLoaded(pcpu, slot);
        PmuContext c = contexts[slot];
        PhysicalPmu pmu = pmus[pcpu];
        if (c.isCounter(position)) {
            pmu.write(register, value);
            if (passesThrough(c)) {
                passedThrough++;
                return true;
            }
        } else {
            // The model's write semantics, so the context holds what the hardware would read back.
            c.set(position, model.written(register, value));
            if (c.isControl(position) && freezeAtExit) {
                frozen[pcpu] = true; // reaches the hardware at the exit
                return true;
            }
            pmu.write(register, c.value(position));
        }
        guestPhysicalAccesses++;
        charge(pcpu, writeCost, WRMSR);
        return true;
    }

    private void ensureLoaded(int pcpu, int slot) {
        if (loaded[pcpu] != slot) {
            int accesses = loadForAccess(pcpu, slot);
            guestPhysicalAccesses += accesses;
        }
    }

    @Override
    public final String refusal(int domid, int vcpu, int register) {
        if (host.xenoprofOwnsPmu()) {
            return xenoprofRefusal(domid, vcpu, register);
        }
        if (layout.positionOf(register) < 0) {
            return notARegister(register).getMessage();
        }
        return String.format("the %s policy accepts writes to register 0x%X", policy(), register);
    }

    private IllegalArgumentException notARegister(int register) {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < layout.size(); p++) {
            b.append(p == 0 ? "" : ", ").append(String.format("0x%X", layout.register(p)));
        }
        return new IllegalArgumentException(String.format("register 0x%X is not a PMU register of the host's %s"
                + " model; its PMU registers are %s", register, host.model().cpuType(), b));
    }

    // ------------------------------------------------------------------------------ interrupts and statistics

    @Override
    public final boolean pmuInterrupt(int pcpu, int domid, int vcpu, CpuMode mode) {
        check(pcpu);
        int slot = loaded[pcpu];
        if (slot >= 0 && !host.xenoprofOwnsPmu() && contexts[slot].controlsSet()) {
            host.injectVirtualInterrupt(slots.domid(slot), slots.vcpu(slot));
            injected++;
            charge(pcpu, injectCost, INTERRUPT);
            return false;
        }
        notGuest++;
        return true;
    }

    @Override
    public final OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode) {
        check(pcpu);
        if (host.xenoprofOwnsPmu()) {
            return OverflowRoute.XENOPROF;
        }
        int slot = loaded[pcpu];
        return slot >= 0 && contexts[slot].controlsSet() ? OverflowRoute.GUEST : OverflowRoute.DROP;
    }

    @Override
    protected void addStatistics(Map<String, Long> statistics) {
        statistics.put(STAT_GUEST_PHYSICAL_ACCESSES, guestPhysicalAccesses);
    }
}
