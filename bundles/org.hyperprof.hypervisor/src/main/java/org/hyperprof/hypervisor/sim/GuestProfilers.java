package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.hypervisor.sim.scenario.DomainSpec;
import org.hyperprof.hypervisor.sim.scenario.GuestProfilerSpec;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.VirtualPmuSpec;

/**
 * Guests with profilers of their own: a domain whose scenario block has a {@code profiler} line runs
 * the host model's driver against its virtual PMU ({@link GuestPmu}), through the policy. At its
 * first guest code it programs its counters register by register; a virtual interrupt the policy
 * injects is taken when the vCPU next runs guest code: the handler reads its counters, logs a sample
 * per overflowed counter at the PC the guest could see when the interrupt was injected, re-arms and
 * writes back. Every access the policy traps costs the scenario's {@code cost.trap.hvm} or
 * {@code cost.trap.pv} as hypervisor work ({@link Slice#TRAP}); the handler itself is guest kernel
 * code ({@link Slice#GUEST_PMI}).
 *
 * <p>Made in two steps, as the engine allocates function ids before it sizes its ledger rows: the
 * trap and handler functions first, then, with the vCPUs, each guest's virtual PMU ({@link #equip}).
 */
final class GuestProfilers {
    private final Scenario scenario;
    private final int trapHvmFunction;
    private final long trapHvmCycles;
    private final int trapPvFunction;
    private final long trapPvCycles;
    /** Per domain, in scenario order: its profiler's handler function, or -1. */
    private final int[] handlerIds;
    private VirtualCpu[] guests;
    private PhysicalCpu[] pcpus;
    private SliceMaker slices;
    private PolicySession session;
    /** Traps of the delivery in progress (charged once it is done). */
    private int pendingTraps;

    /** Cycles of trapped guest PMU accesses. */
    long trapCycles;
    /** Cycles of guests' own PMU handlers. */
    long guestHandlerCycles;
    /** Guest profilers that found no PMU (the policy offers none). */
    long guestNoPmu;
    /** Guest profilers stopped by a refused write. */
    long guestRefusedProfilers;
    /** Virtual interrupts injected into a vCPU with no active profiler of its own. */
    long injectedUnhandled;

    /** Allocates the ids of the trap functions and of each domain's profiler handler in {@code catalog}. */
    GuestProfilers(Scenario scenario, SymbolCatalog catalog) {
        this.scenario = scenario;
        VirtualPmuSpec vpmu = scenario.effectiveVpmu();
        this.trapHvmFunction = vpmu.hvm() == null ? -1 : catalog.id(vpmu.hvm().function());
        this.trapHvmCycles = vpmu.hvm() == null ? 0 : vpmu.hvm().cycles();
        this.trapPvFunction = vpmu.pv() == null ? -1 : catalog.id(vpmu.pv().function());
        this.trapPvCycles = vpmu.pv() == null ? 0 : vpmu.pv().cycles();
        this.handlerIds = new int[scenario.domains().size()];
        for (int di = 0; di < handlerIds.length; di++) {
            GuestProfilerSpec gp = scenario.domains().get(di).profiler();
            handlerIds[di] = gp == null ? -1 : catalog.id(gp.handler());
        }
    }

    /**
     * Gives every vCPU of a domain with a {@code profiler} line its virtual PMU: a picture of the host
     * model (numbered from {@code firstPicture}, after the physical PMUs) and the counters its event
     * asks for, or the reason it cannot start.
     */
    void equip(PmuModel model, int firstPicture, VirtualCpu[] guests, PhysicalCpu[] pcpus, SliceMaker slices) {
        this.guests = guests;
        this.pcpus = pcpus;
        this.slices = slices;
        String cpuType = model.cpuType();
        int pictures = 0;
        for (VirtualCpu v : guests) {
            DomainSpec d = domainOf(v.domid);
            GuestProfilerSpec gp = d.profiler();
            if (gp == null) {
                continue;
            }
            String problem = null;
            CounterConfig[] configs = new CounterConfig[0];
            PhysicalPmu picture = model.createPmu(firstPicture + pictures++, scenario.pmuOptions());
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
    }

    /** Connects the policy; done once, before the first run. */
    void attach(PolicySession session) {
        this.session = session;
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

    /**
     * {@code PolicyHost.injectVirtualInterrupt}: counted per vCPU; a vCPU whose own profiler runs
     * takes it at its next guest code, with the PC the guest can see now. One waits at most.
     */
    void inject(int domid, int vcpu) {
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
    void start(PhysicalCpu p, VirtualCpu v, GuestPmu g) {
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
            g.refusal = "the profiler of domain " + v.domid + " (" + domainOf(v.domid).name() + ") vCPU " + v.vcpu
                    + " stopped: the policy refused its write of 0x" + Long.toHexString(value) + " to PMU register 0x"
                    + Integer.toHexString(register) + ": " + session.refusal(v.domid, v.vcpu, register);
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
    void deliverVirtualInterrupt(PhysicalCpu p, VirtualCpu v, GuestPmu g) {
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
            slices.pushGuestHandler(p, v, g.handlerFunction, g.handlerCycles);
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
        slices.pushHypervisor(p, Slice.TRAP, fn, cycles, v);
        trapCycles += cycles;
    }

    /** The guest profiler of every vCPU of a domain, in vCPU order (empty when it runs none). */
    List<GuestPmu> of(int domid) {
        List<GuestPmu> out = new ArrayList<>();
        for (VirtualCpu v : guests) {
            if (v.domid == domid && v.guestPmu != null) {
                out.add(v.guestPmu);
            }
        }
        return out;
    }

    List<GuestPmu> all() {
        List<GuestPmu> out = new ArrayList<>();
        for (VirtualCpu v : guests) {
            if (v.guestPmu != null) {
                out.add(v.guestPmu);
            }
        }
        return out;
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

    /** The buffers of a domain's profilers that run or will (none when the policy offers guests no PMU). */
    List<SharedBuffer> buffers(int domid) {
        if (!session.guestsSeePmu()) {
            return List.of();
        }
        List<SharedBuffer> out = new ArrayList<>();
        for (GuestPmu g : of(domid)) {
            if (g.state == GuestPmu.NEW || g.state == GuestPmu.ACTIVE) {
                out.add(g.buffer);
            }
        }
        return List.copyOf(out);
    }

    /** The counters a domain's profiler programs (every vCPU's are the same), or none. */
    List<CounterConfig> counters(int domid) {
        List<GuestPmu> gs = of(domid);
        return gs.isEmpty() ? List.of() : List.of(gs.get(0).configs);
    }

    /** Drops the entries logged so far, as a daemon starting now would skip them; they count as discarded. */
    void discardUnread() {
        for (GuestPmu g : all()) {
            g.samplesDiscarded += g.buffer.unread();
            g.buffer.writeTail(g.buffer.head());
        }
    }

    /** Why profilers did not start: each refusal, and those that found no PMU under {@code policyName}. */
    List<String> notes(String policyName) {
        List<String> notes = new ArrayList<>();
        for (GuestPmu g : all()) {
            if (g.refusal != null) {
                notes.add(g.refusal);
            }
        }
        if (guestNoPmu > 0) {
            notes.add(guestNoPmu + " guest vCPU(s) run a profiler of their own but the policy " + policyName
                    + " offers guests no PMU (CPUID leaf 0xA reads empty), so they never started");
        }
        return notes;
    }
}
