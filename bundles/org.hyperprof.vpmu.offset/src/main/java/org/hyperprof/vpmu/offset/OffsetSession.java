package org.hyperprof.vpmu.offset;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.vpmu.kit.VirtualControlsSession;

/**
 * The offset policy on one host.
 *
 * <h2>State</h2>
 * Per guest vCPU (a slot numbered on first sight): the logical value of each counter ({@code sum},
 * held in the model's counter width with the model's write semantics, e.g. a P6 {@code -count}
 * preload reads back sign-extended to 40 bits), and the guest's control and interrupt registers as
 * it wrote them (virtual). Per physical CPU: the vCPU loaded there, whether its counters are armed
 * (start values taken), the {@code start} of each counter, and a shadow of the control and
 * interrupt registers the policy last wrote (it is the only writer, so the shadow is what the
 * hardware holds, read once at open).
 *
 * <h2>Which counters a vCPU uses</h2>
 * When the model pairs control {@code i} with counter {@code i} (as many controls as counters: P6,
 * AMD), counter {@code i} is used while control {@code i} differs from its power-on value, and it
 * samples when that select has the x86 INT bit (20). Otherwise every counter is used while any
 * control differs from power-on, and every used counter is treated as sampling (written, which is
 * always exact about overflow timing).
 *
 * <h2>Switch</h2>
 * Switch-out: read each used counter of the armed vCPU and fold {@code raw - start} into its sum
 * (reads only, charged to {@code vpmu_save}). Switch-in of a vCPU that has set its counters up:
 * write the control and interrupt registers that differ from the shadow ({@code reprogram.skipped}
 * when none does). The counter part waits for the first {@link #hypervisorExit}: sampling counters
 * are written with their logical value, the others are read for {@code start}. Those accesses are
 * charged to {@code vpmu_load} at the switch already, because work charged from a hook runs right
 * after it, and charged at the exit it would run after the start values were taken and count into
 * the guest. They are counted under {@code switch.accesses} when made. Events the counters count
 * between the fold and the start read on this CPU (the switch path, the policy's own accesses, the
 * next vCPU's hypervisor work before it resumes) are excluded from every guest and, where measured
 * (non-sampling counters whose raw value was read at the fold of the same switch), reported as
 * {@code cycles.subtracted} (in events of the counters' own events; cycles for a cycles counter).
 * Switch-in of the idle vCPU or of a vCPU that counts nothing: selects that could interrupt (INT)
 * are written back to power-on, so no stray interrupt reaches a vCPU that does not sample; other
 * selects are left as they are (their counts belong to no one) so a later vCPU with the same events
 * skips reprogramming.
 *
 * <h2>Known limit (real hardware)</h2>
 * A sampling counter is armed by a write; on P6 a write sign-extends bit 31 into bits 39:32, so a
 * logical value whose bits 39:31 disagree overflows on the hardware at another moment than the
 * logical counter would. Guest reads stay exact (they come from sum + raw - start).
 */
final class OffsetSession extends VirtualControlsSession {
    /** x86 event select: raise a PMI when the counter wraps. */
    private static final long X86_EVTSEL_INT = 1L << 20;

    private final int nc;
    private final int nk;
    private final int ni;
    private final boolean paired;
    /** The INT bit of a paired select, or 0 when the policy cannot tell (every used counter samples). */
    private final long intBit;
    private final long mask;
    private final long[] powerOnControl;
    private final long[] powerOnCounter;
    private final long costRead;
    private final long costWrite;
    private final long costInject;

    // Per physical CPU.
    private final int[] loaded;
    private final boolean[] armed;
    private final long[] start;
    private final long[] hwControl;
    private final long[] hwInterrupt;
    private final long[] lastRaw;
    private final boolean[] lastRawKnown;

    // Per vCPU slot (the control and interrupt registers are the base's virtual copies).
    private long[] sum = new long[0];

    OffsetSession(PolicyHost host, String policy) {
        super(host, policy);
        this.nc = model.counters();
        this.nk = model.controls();
        this.ni = model.interrupts();
        if (nc > 64) {
            throw new IllegalArgumentException("the " + host.model().cpuType() + " model has " + nc
                    + " counters; the offset policy handles at most 64 per CPU");
        }
        this.paired = nk == nc;
        String cpuType = host.model().cpuType();
        boolean x86 = cpuType.startsWith("i386/") || cpuType.startsWith("x86-64/");
        this.intBit = paired && x86 ? X86_EVTSEL_INT : 0;
        int width = host.model().counterWidth();
        this.mask = width >= 64 ? -1L : (1L << width) - 1;
        this.powerOnControl = model.powerOnControls();
        this.powerOnCounter = model.powerOnCounters();
        this.costRead = host.cost(PolicyHost.COST_PMU_READ);
        this.costWrite = host.cost(PolicyHost.COST_PMU_WRITE);
        this.costInject = host.cost(PolicyHost.COST_INJECT);
        this.loaded = new int[pcpus];
        Arrays.fill(loaded, -1);
        this.armed = new boolean[pcpus];
        this.start = new long[pcpus * nc];
        this.hwControl = new long[pcpus * nk];
        this.hwInterrupt = new long[pcpus * ni];
        for (int p = 0; p < pcpus; p++) {
            for (int k = 0; k < nk; k++) {
                hwControl[p * nk + k] = pmus[p].read(model.control(k));
            }
            for (int j = 0; j < ni; j++) {
                hwInterrupt[p * ni + j] = pmus[p].read(model.interrupt(j));
            }
        }
        this.lastRaw = new long[pcpus * nc];
        this.lastRawKnown = new boolean[pcpus * nc];
    }

    // ------------------------------------------------------------------ hooks

    @Override
    public void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        check(pcpu);
        int next = nextDomid < 0 ? -1 : slotOf(nextDomid, nextVcpu);
        switches++;
        for (int i = 0; i < nc; i++) {
            lastRawKnown[pcpu * nc + i] = false;
        }
        long accesses = 0;
        // Switch-out: fold what the outgoing vCPU counted into its sums.
        int prev = loaded[pcpu];
        if (prev >= 0 && armed[pcpu]) {
            int reads = 0;
            for (int i = 0; i < nc; i++) {
                if (uses(prev, i)) {
                    fold(pcpu, prev, i);
                    reads++;
                }
            }
            accesses += reads;
            host.chargeHypervisor(pcpu, reads * costRead, SAVE);
        }
        loaded[pcpu] = -1;
        armed[pcpu] = false;
        // Switch-in.
        if (next >= 0 && controlsSet(next)) {
            int writes = program(pcpu, next);
            if (writes == 0) {
                reprogramSkipped++;
            }
            accesses += writes;
            // The counter part happens at the first exit; its cost is booked now (see the class comment).
            long deferred = 0;
            for (int i = 0; i < nc; i++) {
                if (uses(next, i)) {
                    deferred += samples(next, i) ? costWrite : costRead;
                }
            }
            host.chargeHypervisor(pcpu, writes * costWrite + deferred, LOAD);
        } else {
            int writes = quietSampling(pcpu);
            accesses += writes;
            host.chargeHypervisor(pcpu, writes * costWrite, SAVE);
        }
        loaded[pcpu] = next;
        switchAccesses += accesses;
    }

    @Override
    public void hypervisorExit(int pcpu, int domid, int vcpu) {
        check(pcpu);
        int s = loaded[pcpu];
        if (s < 0 || armed[pcpu] || slots.domid(s) != domid || slots.vcpu(s) != vcpu) {
            return;
        }
        // The last thing before the guest resumes: take the start values.
        long accesses = 0;
        for (int i = 0; i < nc; i++) {
            if (uses(s, i)) {
                arm(pcpu, s, i, true);
                accesses++;
            }
        }
        armed[pcpu] = true;
        for (int i = 0; i < nc; i++) {
            lastRawKnown[pcpu * nc + i] = false; // raw values of the switch are history once the guest runs
        }
        switchAccesses += accesses;
    }

    @Override
    protected long readCounter(int pcpu, int s, int i, int register) {
        if (live(pcpu, s) && uses(s, i)) {
            long raw = pmus[pcpu].read(register);
            host.chargeHypervisor(pcpu, costRead, RDMSR);
            return (sum[s * nc + i] + raw - start[pcpu * nc + i]) & mask;
        }
        return sum[s * nc + i];
    }

    @Override
    public boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
        int s = guestAccess(pcpu, domid, vcpu);
        if (host.xenoprofOwnsPmu()) {
            refused++;
            return false;
        }
        boolean live = live(pcpu, s);
        int i = model.counterIndex(register);
        if (i >= 0) {
            sum[s * nc + i] = model.written(register, value);
            if (live && uses(s, i)) {
                arm(pcpu, s, i, false);
                host.chargeHypervisor(pcpu, samples(s, i) ? costWrite : costRead, WRMSR);
            }
            return true;
        }
        int k = model.controlIndex(register);
        if (k >= 0) {
            writeControl(pcpu, s, k, model.written(register, value), live);
            return true;
        }
        int j = model.interruptIndex(register);
        if (j >= 0) {
            long stored = model.written(register, value);
            virtual.setInterrupt(s, j, stored);
            if (loaded[pcpu] == s && hwInterrupt[pcpu * ni + j] != stored) {
                pmus[pcpu].write(register, stored);
                hwInterrupt[pcpu * ni + j] = stored;
                host.chargeHypervisor(pcpu, costWrite, WRMSR);
            }
            return true;
        }
        model.write(register, value); // throws the model's "no such register" error
        return true;
    }

    @Override
    public String refusal(int domid, int vcpu, int register) {
        return "Xenoprof holds the PMU (a system-wide profiling session is active) and the offset policy cannot share"
                + " it: the write is dropped as Xen's vPMU drops it; stop the Xenoprof session, or load the host with"
                + " vpmu.policy=partitioned to profile the guest next to Xenoprof";
    }

    /** Injects into the vCPU armed here when it has a sampling counter; otherwise leaves the interrupt to Xenoprof. */
    @Override
    public boolean pmuInterrupt(int pcpu, int domid, int vcpu, CpuMode mode) {
        check(pcpu);
        int s = loaded[pcpu];
        if (s >= 0 && armed[pcpu] && !host.xenoprofOwnsPmu()) {
            for (int i = 0; i < nc; i++) {
                if (uses(s, i) && samples(s, i)) {
                    host.injectVirtualInterrupt(slots.domid(s), slots.vcpu(s));
                    host.chargeHypervisor(pcpu, costInject, INTERRUPT);
                    injected++;
                    return false;
                }
            }
        }
        notGuest++;
        return true;
    }

    /** The guest's when the vCPU loaded here uses the counter, else Xenoprof's. */
    @Override
    protected OverflowRoute route(int pcpu, int counter) {
        int s = loaded[pcpu];
        return s >= 0 && uses(s, counter) ? OverflowRoute.GUEST : OverflowRoute.XENOPROF;
    }

    // ------------------------------------------------------------------ mechanics

    /** Reads counter {@code i} and folds what it counted since {@code start} into the vCPU's sum. */
    private void fold(int pcpu, int s, int i) {
        long raw = pmus[pcpu].read(model.counter(i));
        int c = pcpu * nc + i;
        sum[s * nc + i] = (sum[s * nc + i] + raw - start[c]) & mask;
        lastRaw[c] = raw;
        lastRawKnown[c] = true;
    }

    /**
     * Takes counter {@code i}'s start: a sampling counter is written with its logical value so it
     * overflows when the logical counter does; another is read (or, right after a fold, its raw
     * value is already known).
     */
    private void arm(int pcpu, int s, int i, boolean measure) {
        int c = pcpu * nc + i;
        int reg = model.counter(i);
        if (samples(s, i)) {
            long value = sum[s * nc + i];
            pmus[pcpu].write(reg, value);
            start[c] = model.written(reg, value);
            lastRawKnown[c] = false;
        } else {
            long raw = pmus[pcpu].read(reg);
            if (measure && lastRawKnown[c]) {
                cyclesSubtracted += (raw - lastRaw[c]) & mask;
            }
            start[c] = raw;
            lastRawKnown[c] = false;
        }
    }

    private void writeControl(int pcpu, int s, int k, long stored, boolean live) {
        int h = pcpu * nk + k;
        if (!live) {
            virtual.setControl(s, k, stored);
            if (loaded[pcpu] == s && hwControl[h] != stored) {
                // Switched in, counters not armed yet: the select goes out now, the counters at the exit.
                pmus[pcpu].write(model.control(k), stored);
                hwControl[h] = stored;
                host.chargeHypervisor(pcpu, costWrite, WRMSR);
            }
            return;
        }
        // The counters whose use or sampling this control decides: its own when paired, else all.
        int from = paired ? k : 0;
        int to = paired ? k + 1 : nc;
        long cycles = 0;
        long folded = 0; // bit i: counter i was read just now
        for (int i = from; i < to; i++) {
            if (uses(s, i)) {
                fold(pcpu, s, i);
                folded |= 1L << i;
                cycles += costRead;
            }
        }
        virtual.setControl(s, k, stored);
        if (hwControl[h] != stored) {
            pmus[pcpu].write(model.control(k), stored);
            hwControl[h] = stored;
            cycles += costWrite;
        }
        for (int i = from; i < to; i++) {
            if (uses(s, i)) {
                int c = pcpu * nc + i;
                if (!samples(s, i) && (folded & (1L << i)) != 0) {
                    start[c] = lastRaw[c]; // read by the fold a moment ago: no second read
                } else {
                    arm(pcpu, s, i, false);
                    cycles += samples(s, i) ? costWrite : costRead;
                }
            }
            lastRawKnown[pcpu * nc + i] = false;
        }
        host.chargeHypervisor(pcpu, cycles, WRMSR);
    }

    /** Writes the vCPU's controls and interrupt registers where the hardware holds other values. */
    private int program(int pcpu, int s) {
        int writes = 0;
        for (int k = 0; k < nk; k++) {
            writes += program(pcpu, model.control(k), hwControl, pcpu * nk + k, virtual.control(s, k));
        }
        for (int j = 0; j < ni; j++) {
            writes += program(pcpu, model.interrupt(j), hwInterrupt, pcpu * ni + j, virtual.interrupt(s, j));
        }
        return writes;
    }

    /** Writes {@code want} into {@code register} unless the hardware holds it ({@code held[h]}); the writes made. */
    private int program(int pcpu, int register, long[] held, int h, long want) {
        if (held[h] == want) {
            return 0;
        }
        pmus[pcpu].write(register, want);
        held[h] = want;
        return 1;
    }

    /** Stops the selects that could raise an interrupt for no one (all non-power-on ones when INT is unknown). */
    private int quietSampling(int pcpu) {
        int writes = 0;
        for (int k = 0; k < nk; k++) {
            long held = hwControl[pcpu * nk + k];
            boolean interrupts = intBit != 0 ? (held & intBit) != 0 : held != powerOnControl[k];
            if (interrupts) {
                pmus[pcpu].write(model.control(k), powerOnControl[k]);
                hwControl[pcpu * nk + k] = powerOnControl[k];
                writes++;
            }
        }
        return writes;
    }

    private boolean uses(int s, int i) {
        if (paired) {
            return virtual.control(s, i) != powerOnControl[i];
        }
        return controlsSet(s);
    }

    private boolean samples(int s, int i) {
        return intBit == 0 || (virtual.control(s, i) & intBit) != 0;
    }

    private boolean controlsSet(int s) {
        for (int k = 0; k < nk; k++) {
            if (virtual.control(s, k) != powerOnControl[k]) {
                return true;
            }
        }
        return false;
    }

    /** Whether the vCPU is the one armed on this CPU (its counters are on the hardware). */
    private boolean live(int pcpu, int s) {
        return loaded[pcpu] == s && armed[pcpu];
    }

    /** A new slot starts with the power-on registers. */
    @Override
    protected void growSlots(int from, int to) {
        sum = Arrays.copyOf(sum, to * nc);
        for (int s = from; s < to; s++) {
            System.arraycopy(powerOnCounter, 0, sum, s * nc, nc);
        }
        super.growSlots(from, to);
    }
}
