package org.hyperprof.testing.vpmu;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.api.vpmu.PolicySession;

/**
 * A small engine that drives a policy as the brief says the real one does: switches, hypervisor
 * entries and exits around hypervisor work, the policy's charges run as hypervisor code right after
 * the hook that made them, guest code advanced to each overflow, PMU interrupts, guest profilers'
 * handlers when a virtual interrupt waits. It keeps its own ledger of what ran while each guest
 * vCPU was current, so tests compute expected counts without asking the policy.
 */
public final class Rig {
    /** Hypervisor code: 1 cycle and 2 instructions per cycle (distinct from every guest's rates). */
    public static final SignalRates HYPERVISOR = TestedModel.rates(1000, 2000);

    public final FakeHost host;
    public final PolicySession session;
    public final int[] curDom;
    public final int[] curVcpu;
    public final boolean[] inHypervisor;
    /** Per vCPU key: hypervisor cycles that ran on its CPU while it was current (its charges included). */
    public final long[] hypervisorWhileCurrent = new long[1024];
    /** Per vCPU key: cycles of charges made by hypervisorExit (they run after counting resumed). */
    public final long[] exitChargeCycles = new long[1024];
    /** Per vCPU key: cycles of guest code it ran. */
    public final long[] guestCycles = new long[1024];
    public final GuestProfiler[] profilers = new GuestProfiler[1024];
    public long toXenoprof;
    /** The ledger of the reading vCPU at the moment the policy answered the last trapped guest read. */
    public long readGuestCycles;
    public long readHypervisorCycles;
    public long readExitChargeCycles;

    public Rig(FakeHost host, PolicySession session) {
        this.host = host;
        this.session = session;
        int n = host.pcpuCount();
        curDom = new int[n];
        curVcpu = new int[n];
        inHypervisor = new boolean[n];
        Arrays.fill(curDom, -1);
        Arrays.fill(inHypervisor, true);
    }

    public PhysicalPmu pmu(int pcpu) {
        return host.pmus[pcpu].real;
    }

    public int key(int pcpu) {
        return FakeHost.key(curDom[pcpu], curVcpu[pcpu]);
    }

    public void switchTo(int pcpu, int domid, int vcpu) {
        session.vcpuSwitch(pcpu, curDom[pcpu], curVcpu[pcpu], domid, vcpu);
        curDom[pcpu] = domid;
        curVcpu[pcpu] = domid < 0 ? 0 : vcpu;
        inHypervisor[pcpu] = true;
        runCharges(pcpu, false);
    }

    /** The CPU switches to the vCPU and leaves the hypervisor for its guest code: switch, exit. */
    public void runGuest(int pcpu, int domid, int vcpu) {
        switchTo(pcpu, domid, vcpu);
        exit(pcpu);
    }

    /** The CPU leaves its guest for another vCPU: entry, switch, exit. */
    public void reschedule(int pcpu, int domid, int vcpu) {
        enter(pcpu);
        runGuest(pcpu, domid, vcpu);
    }

    public void enter(int pcpu) {
        check(!inHypervisor[pcpu], "entry while in the hypervisor");
        inHypervisor[pcpu] = true;
        session.hypervisorEntry(pcpu, curDom[pcpu], curVcpu[pcpu]);
        runCharges(pcpu, false);
    }

    public void exit(int pcpu) {
        check(inHypervisor[pcpu] && curDom[pcpu] >= 0, "exit while not in the hypervisor for a guest");
        session.hypervisorExit(pcpu, curDom[pcpu], curVcpu[pcpu]);
        inHypervisor[pcpu] = false;
        runCharges(pcpu, true);
    }

    /** Hypervisor work for the current vCPU (or idle), at CPL 0. */
    public void hypervisor(int pcpu, long cycles) {
        check(inHypervisor[pcpu], "hypervisor work outside the hypervisor");
        run(pcpu, cycles, HYPERVISOR, 0, CpuMode.HYPERVISOR);
        if (curDom[pcpu] >= 0) {
            hypervisorWhileCurrent[key(pcpu)] += cycles;
        }
    }

    /** A trap: entry, {@code cycles} of hypervisor work, exit. */
    public void trap(int pcpu, long cycles) {
        enter(pcpu);
        hypervisor(pcpu, cycles);
        exit(pcpu);
    }

    /** Guest code of the current vCPU. */
    public void guest(int pcpu, long cycles, SignalRates rates, int cpl) {
        check(!inHypervisor[pcpu] && curDom[pcpu] >= 0, "guest code while in the hypervisor or idle");
        takeVirtualInterrupt(pcpu);
        guestCycles[key(pcpu)] += cycles;
        run(pcpu, cycles, rates, cpl, cpl == 3 ? CpuMode.USER : CpuMode.KERNEL);
    }

    private void run(int pcpu, long cycles, SignalRates rates, int cpl, CpuMode mode) {
        PhysicalPmu pmu = pmu(pcpu);
        long remaining = cycles;
        while (remaining > 0) {
            long step = Math.min(remaining, Math.max(1, pmu.cyclesUntilOverflow(rates, cpl)));
            pmu.advance(step, rates, cpl);
            remaining -= step;
            if (pmu.interruptPending()) {
                pmu.acknowledgeInterrupt();
                boolean wasIn = inHypervisor[pcpu];
                if (!wasIn && curDom[pcpu] >= 0) {
                    enter(pcpu);
                }
                if (session.pmuInterrupt(pcpu, curDom[pcpu], curVcpu[pcpu], mode)) {
                    toXenoprof++;
                }
                runCharges(pcpu, false);
                if (!wasIn && curDom[pcpu] >= 0) {
                    exit(pcpu);
                    takeVirtualInterrupt(pcpu);
                }
            }
        }
    }

    private void takeVirtualInterrupt(int pcpu) {
        int k = key(pcpu);
        if (curDom[pcpu] >= 0 && host.virqPending[k] && profilers[k] != null) {
            host.virqPending[k] = false;
            profilers[k].handle(this, pcpu);
        }
    }

    /** A guest access: trapped (entry, access, exit) unless the policy passes it through. */
    public long read(int pcpu, int register) {
        int d = curDom[pcpu];
        int v = curVcpu[pcpu];
        if (!session.traps(d, v, register, false)) {
            long value = session.guestRead(pcpu, d, v, register);
            snapshot(FakeHost.key(d, v));
            return value;
        }
        enter(pcpu);
        long value = session.guestRead(pcpu, d, v, register);
        snapshot(FakeHost.key(d, v));
        runCharges(pcpu, false);
        exit(pcpu);
        return value;
    }

    private void snapshot(int k) {
        readGuestCycles = guestCycles[k];
        readHypervisorCycles = hypervisorWhileCurrent[k];
        readExitChargeCycles = exitChargeCycles[k];
    }

    public boolean write(int pcpu, int register, long value) {
        int d = curDom[pcpu];
        int v = curVcpu[pcpu];
        if (!session.traps(d, v, register, true)) {
            return session.guestWrite(pcpu, d, v, register, value);
        }
        enter(pcpu);
        boolean ok = session.guestWrite(pcpu, d, v, register, value);
        runCharges(pcpu, false);
        exit(pcpu);
        return ok;
    }

    /** The charges made so far run as hypervisor code on their CPUs, for whoever is current there. */
    private void runCharges(int pcpu, boolean afterExit) {
        for (int q = 0; q < host.pending.length; q++) {
            long c = host.pending[q];
            if (c == 0) {
                continue;
            }
            host.pending[q] = 0;
            pmu(q).advance(c, HYPERVISOR, 0);
            if (curDom[q] >= 0) {
                hypervisorWhileCurrent[key(q)] += c;
                if (afterExit && q == pcpu) {
                    exitChargeCycles[key(q)] += c;
                }
            }
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("test rig misuse: " + what);
        }
    }
}
