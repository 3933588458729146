package org.hyperprof.vpmu.lazy;

import java.util.Arrays;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PmuContext;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.api.vpmu.VcpuSlots;

/**
 * The lazy (Xen vPMU) policy on one host.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>A vCPU gets a {@link PmuContext} at its first PMU access; until then it costs nothing.</li>
 * <li>"Running": some control register of the context differs from power-on.</li>
 * <li>Per physical CPU, {@code last vCPU}: whose context the hardware holds. Switch-out saves the
 * outgoing vCPU's context only if it is loaded there and running: the counter registers read (Xen
 * saves the counter MSRs only: the controls and LVTPC of the context are the guest's, recorded at
 * each intercepted write), then the power-on controls written ({@code vpmu_save}). A loaded
 * context that does not run stays on the hardware. A control another party rewrote on the hardware
 * meanwhile (Xenoprof's driver {@code setup} clears every event select) is thus put right at the
 * vCPU's next load.</li>
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
 * <li>{@code vpmu.freeze}, the PMU interrupt rule and the refusal while Xenoprof holds the PMU are
 * those of {@code saverestore}.</li>
 * </ul>
 *
 * <p>Hooks run on the simulation thread and do not allocate, except on a vCPU's first PMU access
 * (its slot and context). Statistics are volatile and may be read from any thread.
 */
final class LazySession implements PolicySession {
    static final String FREEZE_OPTION = "freeze";
    static final String FREEZE_RUNNING = "running";
    static final String FREEZE_EXIT = "exit";
    /** Physical reads and writes made to emulate trapped guest accesses, lazy loads included. */
    static final String STAT_GUEST_PHYSICAL_ACCESSES = "guest.physical-accesses";
    /** Contexts loaded at a PMU access rather than at a switch. */
    static final String STAT_LAZY_LOADS = "loads.lazy";
    /** Contexts another vCPU left on a CPU, saved before loading one there. */
    static final String STAT_FORCED_SAVES = "saves.forced";
    /** Guest counter accesses that went straight to the hardware. */
    static final String STAT_PASSED_THROUGH = "guest.passed-through";
    /** vCPUs with a context (that touched their PMU). */
    static final String STAT_CONTEXTS = "contexts";

    private final PolicyHost host;
    private final int pcpus;
    private final PhysicalPmu[] pmus;
    private final PhysicalPmu powerOn;
    private final PhysicalPmu scratch;
    private final PmuContext layout;
    private final boolean freezeAtExit;
    private final long readCost;
    private final long writeCost;
    private final long injectCost;
    private final long ipiCost;

    private final VcpuSlots slots = new VcpuSlots(64);
    /** Per slot: null until the vCPU's first PMU access. */
    private PmuContext[] contexts;
    /** Per slot: the physical CPU whose hardware holds the context ({@code last_pcpu} while loaded), or -1. */
    private int[] loadedOn;
    /** Per physical CPU: the slot whose context the hardware holds ({@code last_vcpu}), or -1. */
    private final int[] loaded;
    private final boolean[] frozen;
    /** Reads and writes of the last save or restore routine. */
    private int opReads;
    private int opWrites;

    private volatile boolean closed;
    private volatile long switches;
    private volatile long switchAccesses;
    private volatile long entryExitAccesses;
    private volatile long guestAccesses;
    private volatile long guestPhysicalAccesses;
    private volatile long passedThrough;
    private volatile long refused;
    private volatile long injected;
    private volatile long notGuest;
    private volatile long ipis;
    private volatile long lazyLoads;
    private volatile long forcedSaves;
    private volatile long contextCount;

    LazySession(PolicyHost host) {
        this.host = host;
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
        ipiCost = host.cost(PolicyHost.COST_IPI);
        pcpus = host.pcpuCount();
        if (pcpus <= 0) {
            throw new IllegalArgumentException("the host has " + pcpus + " physical CPUs; a policy needs at least one");
        }
        pmus = new PhysicalPmu[pcpus];
        for (int i = 0; i < pcpus; i++) {
            pmus[i] = host.pmu(i);
        }
        powerOn = host.newPmuContext();
        scratch = host.newPmuContext();
        layout = new PmuContext(powerOn);
        contexts = new PmuContext[slots.slotCapacity()];
        loadedOn = new int[slots.slotCapacity()];
        Arrays.fill(loadedOn, -1);
        loaded = new int[pcpus];
        Arrays.fill(loaded, -1);
        frozen = new boolean[pcpus];
    }

    // ------------------------------------------------------------------------------ switches

    @Override
    public void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        check(pcpu);
        switches++;
        if (host.xenoprofOwnsPmu()) {
            return; // Xenoprof's counters are on the hardware; it gives back what it found there
        }
        if (prevDomid >= 0) {
            int out = slots.find(prevDomid, prevVcpu);
            if (out >= 0 && loaded[pcpu] == out && contexts[out].controlsSet()) {
                save(pcpu, out);
                switchAccesses += opReads + opWrites;
                charge(pcpu, opReads * readCost + opWrites * writeCost, "vpmu_save");
            }
        }
        if (nextDomid >= 0) {
            int in = slots.find(nextDomid, nextVcpu);
            if (in >= 0 && contexts[in] != null && contexts[in].controlsSet() && loaded[pcpu] != in) {
                switchAccesses += load(pcpu, in);
            }
        }
    }

    /**
     * Reads the counter registers of {@code pcpu} into the context of {@code slot} and, if it runs,
     * writes the power-on controls; the context leaves the hardware. Sets {@link #opReads}/{@link
     * #opWrites}. As Xen's vPMU, a save reads no control or interrupt register: the context holds
     * the guest's own, recorded at each intercepted write (frozen or not), while the hardware may
     * hold power-on controls (frozen) or another party's (Xenoprof's driver setup); the next load
     * writes the guest's back.
     */
    private void save(int pcpu, int slot) {
        PmuContext c = contexts[slot];
        PhysicalPmu pmu = pmus[pcpu];
        opReads = c.saveCounters(pmu);
        opWrites = c.controlsSet() ? c.quiet(pmu) : 0;
        loaded[pcpu] = -1;
        loadedOn[slot] = -1;
        frozen[pcpu] = false;
    }

    /** Makes the context of {@code slot} the one on {@code pcpu}'s hardware, charging each step; returns the accesses. */
    private int load(int pcpu, int slot) {
        int accesses = 0;
        int other = loaded[pcpu];
        if (other >= 0) {
            save(pcpu, other);
            forcedSaves++;
            accesses += opReads + opWrites;
            charge(pcpu, opReads * readCost + opWrites * writeCost, "vpmu_save");
        }
        int remote = loadedOn[slot];
        if (remote >= 0 && remote != pcpu) {
            ipis++;
            charge(pcpu, ipiCost, "vpmu_load");
            save(remote, slot);
            accesses += opReads + opWrites;
            charge(remote, opReads * readCost + opWrites * writeCost, "smp_call_function_interrupt");
        }
        PmuContext c = contexts[slot];
        PhysicalPmu pmu = pmus[pcpu];
        boolean hold = freezeAtExit && c.controlsSet();
        for (int p = 0; p < c.size(); p++) {
            // Counters first, controls last; held back until the exit under vpmu.freeze=exit.
            pmu.write(c.register(p), hold && c.isControl(p) ? c.powerOn(p) : c.value(p));
        }
        loaded[pcpu] = slot;
        loadedOn[slot] = pcpu;
        frozen[pcpu] = hold;
        charge(pcpu, c.size() * writeCost, "vpmu_load");
        return accesses + c.size();
    }

    // ------------------------------------------------------------------------------ entries and exits

    @Override
    public void hypervisorEntry(int pcpu, int domid, int vcpu) {
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
        charge(pcpu, writes * writeCost, "vpmu_save");
    }

    @Override
    public void hypervisorExit(int pcpu, int domid, int vcpu) {
        check(pcpu);
        if (!frozen[pcpu] || domid < 0 || host.xenoprofOwnsPmu()) {
            return;
        }
        int slot = loaded[pcpu];
        frozen[pcpu] = false;
        if (slot < 0 || !contexts[slot].controlsSet()) {
            return;
        }
        int writes = contexts[slot].restoreControls(pmus[pcpu]);
        entryExitAccesses += writes;
        charge(pcpu, writes * writeCost, "vpmu_load");
    }

    // ------------------------------------------------------------------------------ guest accesses

    /** Counter registers of a context loaded and running are passed through; everything else traps. */
    @Override
    public boolean traps(int domid, int vcpu, int register, boolean write) {
        checkOpen();
        if (domid < 0 || host.xenoprofOwnsPmu()) {
            return true;
        }
        int slot = slots.find(domid, vcpu);
        return slot < 0 || !passesThrough(slot, layout.positionOf(register));
    }

    private boolean passesThrough(int slot, int position) {
        PmuContext c = contexts[slot];
        return c != null && c.isCounter(position) && loadedOn[slot] >= 0 && c.controlsSet();
    }

    @Override
    public long guestRead(int pcpu, int domid, int vcpu, int register) {
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
        if (c.controlsSet()) {
            passedThrough++; // RDMSR straight from the hardware
        } else {
            guestPhysicalAccesses++;
            charge(pcpu, readCost, "vpmu_do_rdmsr");
        }
        return pmus[pcpu].read(register);
    }

    @Override
    public boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
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
            if (c.controlsSet()) {
                passedThrough++;
                return true;
            }
        } else {
            scratch.write(register, value);
            c.set(position, scratch.read(register));
            if (c.isControl(position) && freezeAtExit) {
                frozen[pcpu] = true; // reaches the hardware at the exit
                return true;
            }
            pmu.write(register, c.value(position));
        }
        guestPhysicalAccesses++;
        charge(pcpu, writeCost, "vpmu_do_wrmsr");
        return true;
    }

    /** The lazy load: a vCPU whose context is not on this CPU's hardware gets it there at its PMU access. */
    private void ensureLoaded(int pcpu, int slot) {
        if (loaded[pcpu] == slot) {
            return;
        }
        lazyLoads++;
        guestPhysicalAccesses += load(pcpu, slot);
    }

    @Override
    public String refusal(int domid, int vcpu, int register) {
        if (host.xenoprofOwnsPmu()) {
            return String.format("Xenoprof holds the PMU (a system-wide profiling session is set up), and the lazy"
                    + " policy (Xen's vPMU) cannot share it: the write of domain %d vCPU %d to register 0x%X is"
                    + " dropped; stop the Xenoprof session (opcontrol --shutdown) before profiling inside the guest,"
                    + " or load the host with vpmu.policy=partitioned to run both at once", domid, vcpu, register);
        }
        if (layout.positionOf(register) < 0) {
            return notARegister(register).getMessage();
        }
        return String.format("the lazy policy accepts writes to register 0x%X", register);
    }

    private IllegalArgumentException notARegister(int register) {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < layout.size(); p++) {
            b.append(p == 0 ? "" : ", ").append(String.format("0x%X", layout.register(p)));
        }
        return new IllegalArgumentException(String.format("register 0x%X is not a PMU register of the host's %s"
                + " model; its PMU registers are %s", register, host.model().cpuType(), b));
    }

    @Override
    public boolean guestsSeePmu() {
        checkOpen();
        return true;
    }

    // ------------------------------------------------------------------------------ interrupts

    @Override
    public boolean pmuInterrupt(int pcpu, int domid, int vcpu, CpuMode mode) {
        check(pcpu);
        int slot = loaded[pcpu];
        if (slot >= 0 && !host.xenoprofOwnsPmu() && contexts[slot].controlsSet()) {
            host.injectVirtualInterrupt(slots.domid(slot), slots.vcpu(slot));
            injected++;
            charge(pcpu, injectCost, "vpmu_do_interrupt");
            return false;
        }
        notGuest++;
        return true;
    }

    @Override
    public OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode) {
        check(pcpu);
        if (host.xenoprofOwnsPmu()) {
            return OverflowRoute.XENOPROF;
        }
        int slot = loaded[pcpu];
        return slot >= 0 && contexts[slot].controlsSet() ? OverflowRoute.GUEST : OverflowRoute.DROP;
    }

    // ------------------------------------------------------------------------------ bookkeeping

    @Override
    public Map<String, Long> statistics() {
        return Map.ofEntries(
                Map.entry(STAT_SWITCHES, switches),
                Map.entry(STAT_SWITCH_ACCESSES, switchAccesses),
                Map.entry(STAT_ENTRY_EXIT_ACCESSES, entryExitAccesses),
                Map.entry(STAT_GUEST_ACCESSES, guestAccesses),
                Map.entry(STAT_GUEST_PHYSICAL_ACCESSES, guestPhysicalAccesses),
                Map.entry(STAT_PASSED_THROUGH, passedThrough),
                Map.entry(STAT_GUEST_REFUSED, refused),
                Map.entry(STAT_INJECTED, injected),
                Map.entry(STAT_INTERRUPTS_NOT_GUEST, notGuest),
                Map.entry(STAT_IPIS, ipis),
                Map.entry(STAT_LAZY_LOADS, lazyLoads),
                Map.entry(STAT_FORCED_SAVES, forcedSaves),
                Map.entry(STAT_CONTEXTS, contextCount),
                Map.entry(STAT_REPROGRAM_SKIPPED, 0L),
                Map.entry(STAT_CYCLES_SUBTRACTED, 0L));
    }

    /** Ends the session; closing again does nothing. The hardware is left as it is. */
    @Override
    public void close() {
        closed = true;
    }

    /** The vCPU's slot, with its context allocated at this, its first PMU access. */
    private int contextOf(int domid, int vcpu) {
        int slot = slots.findOrAdd(domid, vcpu);
        if (slot >= contexts.length) {
            int capacity = slots.slotCapacity();
            contexts = Arrays.copyOf(contexts, capacity);
            int old = loadedOn.length;
            loadedOn = Arrays.copyOf(loadedOn, capacity);
            Arrays.fill(loadedOn, old, capacity, -1);
        }
        if (contexts[slot] == null) {
            contexts[slot] = new PmuContext(powerOn);
            loadedOn[slot] = -1;
            contextCount++;
        }
        return slot;
    }

    private void charge(int pcpu, long cycles, String symbol) {
        if (cycles > 0) {
            host.chargeHypervisor(pcpu, cycles, symbol);
        }
    }

    private void check(int pcpu) {
        checkOpen();
        if (pcpu < 0 || pcpu >= pcpus) {
            throw new IllegalArgumentException("physical CPU " + pcpu + " does not exist: the host has " + pcpus
                    + " (0 to " + (pcpus - 1) + ")");
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the lazy counter policy session is closed; "
                    + "open a new session with CounterVirtualizationPolicy.open(host)");
        }
    }
}
