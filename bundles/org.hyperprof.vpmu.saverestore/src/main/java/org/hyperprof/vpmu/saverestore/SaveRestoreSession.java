package org.hyperprof.vpmu.saverestore;

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
 * The save/restore policy on one host.
 *
 * <h2>Rules</h2>
 * <ul>
 * <li>Every guest vCPU has a {@link PmuContext} from its first sight, holding the power-on values of
 * the host's model until the guest programs it.</li>
 * <li>At every switch on a physical CPU, the context loaded there is saved as Xen's vPMU saves it:
 * only the counter registers are read ({@link PmuContext#saveCounters}, charged as {@code vpmu_save});
 * the context's control and interrupt registers are those the guest wrote, recorded at each
 * (intercepted) write, so a control another party rewrote on the hardware meanwhile (Xenoprof's
 * driver {@code setup} clears every event select) is put right at the vCPU's next switch-in. A guest
 * coming in gets its whole context written (counters, then
 * controls, then interrupt registers, charged as {@code vpmu_load}); the idle vCPU gets the power-on
 * controls instead, so that nothing counts for no one.</li>
 * <li>Guest accesses: counters are read from and written to the hardware (the vCPU's context is on
 * it whenever it runs: {@code vpmu_do_rdmsr}/{@code vpmu_do_wrmsr}); control and interrupt registers
 * are written to the context and the hardware, and read from the context at no physical cost.</li>
 * <li>{@code vpmu.freeze=exit}: at a hypervisor entry of a vCPU whose controls count, the power-on
 * controls are written; at the exit its controls are written back. A switch-in restores the power-on
 * controls for the same reason (the incoming vCPU is in the hypervisor until its first exit), and a
 * guest control write made while frozen reaches the hardware at the exit. The writes at the exit
 * run just before the guest resumes, so their own cycles are the one piece of hypervisor work that
 * still counts, at {@code controls x pmu.write} cycles per exit.</li>
 * <li>PMU interrupt: when the context loaded on the CPU counts, a virtual interrupt goes to its vCPU
 * and Xenoprof's handler is not run; otherwise it is not the guests' ({@code interrupts.not-guest}).</li>
 * <li>While Xenoprof holds the PMU ({@link PolicyHost#xenoprofOwnsPmu()}), the policy keeps off
 * the hardware: switches and exits touch nothing, guest writes are refused, guest reads see 0.</li>
 * </ul>
 *
 * <p>Hooks run on the simulation thread and do not allocate, except on a vCPU's first sight (its
 * slot and context). Statistics are volatile and may be read from any thread.
 */
final class SaveRestoreSession implements PolicySession {
    static final String FREEZE_OPTION = "freeze";
    static final String FREEZE_RUNNING = "running";
    static final String FREEZE_EXIT = "exit";
    /** Physical reads and writes made to emulate guest accesses (not at switches, entries or exits). */
    static final String STAT_GUEST_PHYSICAL_ACCESSES = "guest.physical-accesses";

    private final PolicyHost host;
    private final int pcpus;
    private final PhysicalPmu[] pmus;
    /** A register file no one writes: the power-on values of every new context. */
    private final PhysicalPmu powerOn;
    /** A register file that gives a guest's control writes the model's write semantics, at no physical cost. */
    private final PhysicalPmu scratch;
    /** The register layout, for lookups before a vCPU has a context. */
    private final PmuContext layout;
    private final boolean freezeAtExit;
    private final long readCost;
    private final long writeCost;
    private final long injectCost;

    private final VcpuSlots slots = new VcpuSlots(64);
    private PmuContext[] contexts;
    /** Per slot: the physical CPU whose hardware holds the context, or -1. */
    private int[] loadedOn;
    /** Per physical CPU: the slot whose context the hardware holds, or -1. */
    private final int[] loaded;
    /** Per physical CPU: the loaded context's controls are held back (power-on on the hardware) until the exit. */
    private final boolean[] frozen;

    private volatile boolean closed;
    private volatile long switches;
    private volatile long switchAccesses;
    private volatile long entryExitAccesses;
    private volatile long guestAccesses;
    private volatile long guestPhysicalAccesses;
    private volatile long refused;
    private volatile long injected;
    private volatile long notGuest;
    private volatile long ipis;

    SaveRestoreSession(PolicyHost host) {
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
            // Xenoprof's counters are on the hardware. It saved what it found there when it reserved
            // the counters and writes it back when it releases them: the loaded context stays loaded.
            return;
        }
        PhysicalPmu pmu = pmus[pcpu];
        int out = loaded[pcpu];
        if (out >= 0) {
            int reads = save(pcpu, out);
            int writes = nextDomid < 0 ? contexts[out].quiet(pmu) : 0;
            switchAccesses += reads + writes;
            charge(pcpu, reads * readCost + writes * writeCost, "vpmu_save");
        }
        if (nextDomid >= 0) {
            int in = slotOf(nextDomid, nextVcpu);
            switchAccesses += remoteSave(pcpu, in);
            int writes = restore(pcpu, in);
            switchAccesses += writes;
            charge(pcpu, writes * writeCost, "vpmu_load");
        }
    }

    /**
     * Reads the counter registers of {@code pcpu} into the context of {@code slot}, which leaves the
     * hardware. Controls and interrupt registers are not read back: the context already holds them,
     * since every guest write to them is intercepted and recorded as it happens (frozen or not), and
     * what the hardware holds may not be the guest's (power-on while frozen, or rewritten by another
     * party such as Xenoprof's driver setup); the next restore puts the guest's back.
     */
    private int save(int pcpu, int slot) {
        int reads = contexts[slot].saveCounters(pmus[pcpu]);
        loaded[pcpu] = -1;
        loadedOn[slot] = -1;
        frozen[pcpu] = false;
        return reads;
    }

    /**
     * A vCPU coming in on {@code pcpu} whose context another CPU's hardware still holds (that CPU has
     * not switched it out yet): that CPU saves it and stops it, at its own cost.
     */
    private int remoteSave(int pcpu, int slot) {
        int other = loadedOn[slot];
        if (other < 0 || other == pcpu) {
            return 0;
        }
        ipis++;
        int reads = save(other, slot);
        int writes = contexts[slot].quiet(pmus[other]);
        charge(other, reads * readCost + writes * writeCost, "vpmu_save");
        return reads + writes;
    }

    /** Writes the context of {@code slot} into {@code pcpu}'s hardware: counters, controls, interrupt registers. */
    private int restore(int pcpu, int slot) {
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
            return; // the hardware already holds power-on controls
        }
        int writes = contexts[slot].restoreControls(pmus[pcpu]);
        entryExitAccesses += writes;
        charge(pcpu, writes * writeCost, "vpmu_load");
    }

    // ------------------------------------------------------------------------------ guest accesses

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
        int slot = slotOf(domid, vcpu);
        ensureLoaded(pcpu, slot);
        PmuContext c = contexts[slot];
        if (!c.isCounter(position)) {
            return c.value(position);
        }
        guestPhysicalAccesses++;
        charge(pcpu, readCost, "vpmu_do_rdmsr");
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
        int slot = slotOf(domid, vcpu);
        ensureLoaded(pcpu, slot);
        PmuContext c = contexts[slot];
        PhysicalPmu pmu = pmus[pcpu];
        if (c.isCounter(position)) {
            pmu.write(register, value);
        } else {
            // The model's write semantics (reserved bits dropped), so the context holds what the
            // hardware would read back.
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

    /** The vCPU's context is always loaded while it runs; after Xenoprof let the PMU go it may not be yet. */
    private void ensureLoaded(int pcpu, int slot) {
        if (loaded[pcpu] == slot) {
            return;
        }
        int accesses = 0;
        long cycles = 0;
        if (loaded[pcpu] >= 0) {
            int reads = save(pcpu, loaded[pcpu]);
            accesses += reads;
            cycles += reads * readCost;
        }
        accesses += remoteSave(pcpu, slot);
        int writes = restore(pcpu, slot);
        accesses += writes;
        cycles += writes * writeCost;
        guestPhysicalAccesses += accesses;
        charge(pcpu, cycles, "vpmu_load");
    }

    @Override
    public String refusal(int domid, int vcpu, int register) {
        if (host.xenoprofOwnsPmu()) {
            return String.format("Xenoprof holds the PMU (a system-wide profiling session is set up), and the"
                    + " saverestore policy cannot share it, as Xen's vPMU cannot: the write of domain %d vCPU %d to"
                    + " register 0x%X is dropped; stop the Xenoprof session (opcontrol --shutdown) before profiling"
                    + " inside the guest, or load the host with vpmu.policy=partitioned to run both at once",
                    domid, vcpu, register);
        }
        if (layout.positionOf(register) < 0) {
            return notARegister(register).getMessage();
        }
        return String.format("the saverestore policy accepts writes to register 0x%X", register);
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
                Map.entry(STAT_GUEST_REFUSED, refused),
                Map.entry(STAT_INJECTED, injected),
                Map.entry(STAT_INTERRUPTS_NOT_GUEST, notGuest),
                Map.entry(STAT_IPIS, ipis),
                Map.entry(STAT_REPROGRAM_SKIPPED, 0L),
                Map.entry(STAT_CYCLES_SUBTRACTED, 0L));
    }

    /** Ends the session; closing again does nothing. The hardware is left as it is. */
    @Override
    public void close() {
        closed = true;
    }

    private int slotOf(int domid, int vcpu) {
        int slot = slots.findOrAdd(domid, vcpu);
        if (slot >= contexts.length) {
            int capacity = slots.slotCapacity();
            contexts = Arrays.copyOf(contexts, capacity);
            loadedOn = Arrays.copyOf(loadedOn, capacity);
        }
        if (contexts[slot] == null) {
            contexts[slot] = new PmuContext(powerOn);
            loadedOn[slot] = -1;
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
            throw new IllegalStateException("the saverestore counter policy session is closed; "
                    + "open a new session with CounterVirtualizationPolicy.open(host)");
        }
    }
}
