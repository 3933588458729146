package org.hyperprof.vpmu.partitioned;

import java.util.Arrays;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.vpmu.kit.VirtualControlsSession;

/**
 * The partitioned policy on one host.
 *
 * <h2>The allocator</h2>
 * Counters {@code 0 .. X-1} of every physical CPU are Xenoprof's ({@code X} = host option
 * {@code vpmu.xenoprof-counters}, default half the counters, at least 1); counters {@code X .. N-1}
 * are the guests' share. A share counter of a physical CPU is owned by the guest vCPU whose context
 * is loaded there, or by no one (idle); a vCPU's share is loaded on one physical CPU at most, and
 * ownership moves only at switches (released at switch-out, acquired at switch-in, checked both
 * ways: a second owner is an {@link IllegalStateException}).
 *
 * <h2>What a guest may touch</h2>
 * The model pairs control {@code i} with counter {@code i} (P6, AMD): a share counter and its
 * select are the guest's. As Xen's vPMU does, switch-out reads only the share's counters ({@code
 * vpmu_save}); the share's selects in the context are the guest's own, recorded at each
 * (intercepted) write, never read back from the hardware. Switch-in writes the share's counters then
 * selects ({@code vpmu_load}); to idle the share's selects are written with their power-on values.
 * So a select another party rewrote on the hardware while the share was loaded is put right at the
 * vCPU's next switch-in: Xenoprof's driver {@code setup} (run by the hypervisor when a second
 * system-wide session starts while a guest's share is loaded) clears every event select and writes
 * -1 into every counter, the share's included, since the hardware driver knows no partition. Controls beyond the paired ones (a global control shared by all counters) are
 * virtual and a write that would enable counting through one is refused, since Xenoprof owns it.
 * Interrupt registers (LVTPC) stay virtual: Xenoprof owns the interrupt routing. Writes to
 * Xenoprof's counters or selects are refused; {@link #refusal} names the counter, its owner, and
 * which counters the guest may use.
 *
 * <h2>P6: EVNTSEL0.EN enables both counters</h2>
 * On a P6 only PerfEvtSel0's EN bit enables counting, for counter 0 and counter 1. With the default
 * split, counter 0 and PerfEvtSel0 are Xenoprof's and the guests get counter 1: a guest's counter 1
 * counts only while Xenoprof's session has started (EN set in PerfEvtSel0), whatever EN the guest
 * writes into PerfEvtSel1, and stops when Xenoprof stops. The guest cannot set EN itself (its
 * PerfEvtSel0 write is refused). This is the hardware, not a policy choice.
 *
 * <h2>Interrupts</h2>
 * P6 and AMD have no overflow status register, so the one PMU interrupt Xenoprof's and the guest's
 * counters share is told apart by value. Per physical CPU and share counter the policy keeps the
 * value the counter was last armed with on the hardware (the guest's last write to it, or the value
 * restored at switch-in), masked to the counter's width (learnt by writing -1 into a scratch
 * register file and reading it back). Counters count up from a {@code -count} preload and overflow
 * by wrapping past zero, so at the interrupt the policy reads the current share's counters (each
 * read charged {@code pmu.read} to {@code vpmu_do_interrupt}, counted as {@value
 * #STAT_INTERRUPT_ACCESSES}) and injects into the current vCPU only if one of them is now below its
 * armed value, unsigned within the width: it wrapped. That counter's armed value then becomes what
 * was read, so one wrap injects once (a counter the guest counts with but does not re-arm does not
 * inject at every later interrupt). Otherwise the interrupt is Xenoprof's alone ({@code
 * interrupts.not-guest}). Xenoprof's handler runs in every case ({@link #pmuInterrupt} returns true)
 * to check its own counters; {@link #overflow} routes Xenoprof's counters to XENOPROF and share
 * counters to GUEST.
 *
 * <p>A share counter clobbered by someone else (-1 written by Xenoprof's setup) is restored at -1
 * with the guest's select, wraps after one event and is seen as overflowed: the guest's handler
 * finds it overflowed (bit 31 clear) and re-arms it, and the guest's sampling heals itself.
 */
final class PartitionedSession extends VirtualControlsSession {
    static final String OPTION_XENOPROF_COUNTERS = "xenoprof-counters";
    /** Owner of a counter Xenoprof keeps. */
    static final long XENOPROF = -2;
    /** Owner of a share counter no vCPU has loaded. */
    static final long FREE = -1;
    /** Share counters read at PMU interrupts to tell a guest's overflow from Xenoprof's. */
    static final String STAT_INTERRUPT_ACCESSES = "interrupt.accesses";

    private final int nc;
    private final int nk;
    /** Xenoprof's counters: 0 .. xen-1. */
    private final int xen;
    /** Size of the guests' share: counters xen .. nc-1. */
    private final int share;
    private final long[] powerOnCounter;
    private final long[] powerOnControl;
    /** Per counter: the mask of its width (what -1 written into it reads back as). */
    private final long[] widthMask;
    private final long costRead;
    private final long costWrite;
    private final long costInject;

    // Per physical CPU.
    private final int[] loaded;
    /** Owner of each counter: XENOPROF, FREE or a vCPU slot. */
    private final long[] owner;
    /**
     * Per CPU and share counter ({@code pcpu * share + j}): the value the counter was last armed with
     * on the hardware (the guest's write, the restore at switch-in, or the wrap last reported), masked.
     */
    private final long[] armed;

    // Per vCPU slot (the control and interrupt registers are the base's virtual copies).
    private int[] loadedOn = new int[0];
    private long[] ctxCounter = new long[0];
    private long[] ctxControl = new long[0];

    private volatile long interruptAccesses;

    PartitionedSession(PolicyHost host, String policy) {
        super(host, policy);
        this.nc = model.counters();
        this.nk = model.controls();
        String cpuType = host.model().cpuType();
        if (nk < nc) {
            throw new IllegalArgumentException("the partitioned policy needs a select per counter to give guests"
                    + " counters of their own; the " + cpuType + " model has " + nc + " counters and " + nk
                    + " control registers shared between them; use vpmu.policy=saverestore, lazy or offset");
        }
        this.xen = xenoprofCounters(host.option(OPTION_XENOPROF_COUNTERS, null), nc, cpuType);
        this.share = nc - xen;
        this.powerOnCounter = model.powerOnCounters();
        this.powerOnControl = model.powerOnControls();
        this.widthMask = new long[nc];
        for (int i = 0; i < nc; i++) {
            widthMask[i] = model.written(model.counter(i), -1L);
            model.write(model.counter(i), powerOnCounter[i]);
        }
        this.armed = new long[pcpus * share];
        this.costRead = host.cost(PolicyHost.COST_PMU_READ);
        this.costWrite = host.cost(PolicyHost.COST_PMU_WRITE);
        this.costInject = host.cost(PolicyHost.COST_INJECT);
        this.loaded = new int[pcpus];
        Arrays.fill(loaded, -1);
        this.owner = new long[pcpus * nc];
        for (int p = 0; p < pcpus; p++) {
            for (int i = 0; i < nc; i++) {
                owner[p * nc + i] = i < xen ? XENOPROF : FREE;
            }
        }
    }

    static int xenoprofCounters(String option, int counters, String cpuType) {
        int fallback = Math.max(1, counters / 2);
        if (option == null) {
            return fallback;
        }
        int x;
        try {
            x = Integer.parseInt(option.trim());
        } catch (NumberFormatException e) {
            x = -1;
        }
        if (x < 1 || x > counters) {
            throw new IllegalArgumentException("vpmu." + OPTION_XENOPROF_COUNTERS + "=" + option + " is no number of"
                    + " counters the " + cpuType + " model can give Xenoprof: give 1 to " + counters + " (default "
                    + fallback + "; guests get the counters above)");
        }
        return x;
    }

    // ------------------------------------------------------------------ allocator (also for tests)

    /** The owner of a counter on a CPU: {@link #XENOPROF}, {@link #FREE} or the vCPU's {@code domid << 16 | vcpu}. */
    long owner(int pcpu, int counter) {
        long o = owner[pcpu * nc + counter];
        return o < 0 ? o : ((long) slots.domid((int) o) << 16) | slots.vcpu((int) o);
    }

    int xenoprofCounters() {
        return xen;
    }

    private void acquire(int pcpu, int s) {
        if (loadedOn[s] >= 0) {
            throw new IllegalStateException("vCPU " + slots.domid(s) + "." + slots.vcpu(s) + " switched in on physical"
                    + " CPU " + pcpu + " while its counters are still loaded on physical CPU " + loadedOn[s]
                    + "; the hypervisor must switch it out there first");
        }
        for (int i = xen; i < nc; i++) {
            if (owner[pcpu * nc + i] != FREE) {
                throw new IllegalStateException("counter " + i + " of physical CPU " + pcpu + " already has an owner"
                        + " (" + owner(pcpu, i) + "); vCPU " + slots.domid(s) + "." + slots.vcpu(s)
                        + " cannot have it too");
            }
            owner[pcpu * nc + i] = s;
        }
        loadedOn[s] = pcpu;
        loaded[pcpu] = s;
    }

    private void release(int pcpu, int s) {
        for (int i = xen; i < nc; i++) {
            if (owner[pcpu * nc + i] != s) {
                throw new IllegalStateException("counter " + i + " of physical CPU " + pcpu + " is not owned by vCPU "
                        + slots.domid(s) + "." + slots.vcpu(s) + " that is leaving it");
            }
            owner[pcpu * nc + i] = FREE;
        }
        loadedOn[s] = -1;
        loaded[pcpu] = -1;
    }

    // ------------------------------------------------------------------ hooks

    @Override
    public void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        check(pcpu);
        int next = nextDomid < 0 ? -1 : slotOf(nextDomid, nextVcpu);
        switches++;
        PhysicalPmu pmu = pmus[pcpu];
        int prev = loaded[pcpu];
        long accesses = 0;
        if (prev >= 0) {
            // The counters only: the selects in the context are the guest's, recorded at its writes.
            for (int j = 0; j < share; j++) {
                ctxCounter[prev * share + j] = pmu.read(model.counter(xen + j));
            }
            release(pcpu, prev);
            accesses += share;
            charge(pcpu, share * costRead, SAVE);
        }
        if (next >= 0) {
            acquire(pcpu, next);
            for (int j = 0; j < share; j++) {
                int register = model.counter(xen + j);
                long value = ctxCounter[next * share + j];
                pmu.write(register, value);
                armed[pcpu * share + j] = model.written(register, value) & widthMask[xen + j];
            }
            for (int j = 0; j < share; j++) {
                pmu.write(model.control(xen + j), ctxControl[next * share + j]);
            }
            accesses += 2L * share;
            charge(pcpu, 2L * share * costWrite, LOAD);
        } else if (prev >= 0) {
            for (int j = 0; j < share; j++) {
                pmu.write(model.control(xen + j), powerOnControl[xen + j]);
            }
            accesses += share;
            charge(pcpu, share * costWrite, SAVE);
        }
        switchAccesses += accesses;
    }

    @Override
    protected long readCounter(int pcpu, int s, int i, int register) {
        if (i < xen) {
            return powerOnCounter[i]; // Xenoprof's counter: the guest sees its own, untouched, copy
        }
        if (loaded[pcpu] == s) {
            host.chargeHypervisor(pcpu, costRead, RDMSR);
            return pmus[pcpu].read(register);
        }
        return ctxCounter[s * share + i - xen];
    }

    @Override
    public boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
        int s = guestAccess(pcpu, domid, vcpu);
        boolean here = loaded[pcpu] == s;
        int i = model.counterIndex(register);
        if (i >= 0) {
            if (i < xen) {
                refused++;
                return false;
            }
            long stored = model.written(register, value);
            ctxCounter[s * share + i - xen] = stored;
            if (here) {
                pmus[pcpu].write(register, value);
                armed[pcpu * share + i - xen] = stored & widthMask[i];
                host.chargeHypervisor(pcpu, costWrite, WRMSR);
            }
            return true;
        }
        int k = model.controlIndex(register);
        if (k >= 0) {
            long stored = model.written(register, value);
            if (k < xen) {
                refused++;
                return false;
            }
            if (k >= nc) {
                // Shared by all counters and Xenoprof's: virtual only, and it may not enable counting.
                if (stored != powerOnControl[k]) {
                    refused++;
                    return false;
                }
                virtual.setControl(s, k, stored);
                return true;
            }
            virtual.setControl(s, k, stored);
            ctxControl[s * share + k - xen] = stored;
            if (here) {
                pmus[pcpu].write(register, stored);
                host.chargeHypervisor(pcpu, costWrite, WRMSR);
            }
            return true;
        }
        int j = model.interruptIndex(register);
        if (j >= 0) {
            virtual.setInterrupt(s, j, model.written(register, value)); // Xenoprof owns the interrupt routing
            return true;
        }
        model.write(register, value); // the model's "no such register" error
        return true;
    }

    @Override
    public String refusal(int domid, int vcpu, int register) {
        String cpuType = host.model().cpuType();
        String offer = share == 0
                ? "the guests get no counters (vpmu." + OPTION_XENOPROF_COUNTERS + "=" + xen + " gives Xenoprof all "
                        + nc + "); lower vpmu." + OPTION_XENOPROF_COUNTERS + " to leave guests some"
                : "guests may use counter" + (share == 1 ? " " + xen : "s " + xen + ".." + (nc - 1)) + " (register"
                        + (share == 1 ? " " : "s ") + registers(xen) + "); profile at most " + share + " event"
                        + (share == 1 ? "" : "s") + " and place them there";
        int i = model.counterIndex(register);
        int k = model.controlIndex(register);
        if ((i >= 0 && i < xen) || (k >= 0 && k < xen)) {
            int counter = i >= 0 ? i : k;
            return String.format("%s register 0x%X of counter %d belongs to Xenoprof on this %s host (the partitioned"
                    + " policy keeps counters 0..%d for it, vpmu.%s=%d): %s", i >= 0 ? "counter" : "event select",
                    register, counter, cpuType, xen - 1, OPTION_XENOPROF_COUNTERS, xen, offer);
        }
        if (k >= nc) {
            return String.format("control register 0x%X is shared by all counters of this %s host and Xenoprof owns it:"
                    + " a guest cannot enable counting through it under the partitioned policy; %s", register,
                    cpuType, offer);
        }
        return "the partitioned policy accepts writes to register 0x" + Integer.toHexString(register).toUpperCase()
                + " (it is in the guests' share or virtual)";
    }

    private String registers(int from) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < nc; i++) {
            b.append(i == from ? "" : ", ").append(String.format("0x%X/0x%X", model.counter(i), model.control(i)));
        }
        return b.toString();
    }

    @Override
    public boolean sharesPmuWithXenoprof() {
        checkOpen();
        return true;
    }

    /**
     * Injects into the current vCPU when one of its share counters wrapped since it was armed (read
     * below its armed value); Xenoprof checks its own counters in any case.
     */
    @Override
    public boolean pmuInterrupt(int pcpu, int domid, int vcpu, CpuMode mode) {
        check(pcpu);
        int s = loaded[pcpu];
        boolean wrapped = false;
        if (s >= 0 && shareCounts(s)) {
            PhysicalPmu pmu = pmus[pcpu];
            for (int j = 0; j < share; j++) {
                long now = pmu.read(model.counter(xen + j)) & widthMask[xen + j];
                if (now < armed[pcpu * share + j]) { // both within the width (< 2^63): unsigned order
                    wrapped = true;
                    armed[pcpu * share + j] = now; // reported: the next wrap injects again, not this one
                }
            }
            interruptAccesses += share;
            charge(pcpu, share * costRead, INTERRUPT);
        }
        if (wrapped) {
            host.injectVirtualInterrupt(slots.domid(s), slots.vcpu(s));
            charge(pcpu, costInject, INTERRUPT);
            injected++;
        } else {
            notGuest++;
        }
        return true;
    }

    /** Xenoprof's counters are Xenoprof's, the guests' share the guests'. */
    @Override
    protected OverflowRoute route(int pcpu, int counter) {
        return counter < xen ? OverflowRoute.XENOPROF : OverflowRoute.GUEST;
    }

    @Override
    protected void addStatistics(Map<String, Long> statistics) {
        statistics.put(STAT_INTERRUPT_ACCESSES, interruptAccesses);
    }

    // ------------------------------------------------------------------ mechanics

    private boolean shareCounts(int s) {
        for (int j = 0; j < share; j++) {
            if (ctxControl[s * share + j] != powerOnControl[xen + j]) {
                return true;
            }
        }
        return false;
    }

    /** A new slot is loaded nowhere and starts with the power-on registers. */
    @Override
    protected void growSlots(int from, int to) {
        loadedOn = Arrays.copyOf(loadedOn, to);
        ctxCounter = Arrays.copyOf(ctxCounter, to * share);
        ctxControl = Arrays.copyOf(ctxControl, to * share);
        for (int s = from; s < to; s++) {
            loadedOn[s] = -1;
            System.arraycopy(powerOnCounter, xen, ctxCounter, s * share, share);
            System.arraycopy(powerOnControl, xen, ctxControl, s * share, share);
        }
        super.growSlots(from, to);
    }
}
