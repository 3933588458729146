package org.hyperprof.pmu.p4;

import static org.hyperprof.pmu.p4.P4Registers.BIT_31;
import static org.hyperprof.pmu.p4.P4Registers.CCCR0;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_ACTIVE_THREAD;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_ACTIVE_THREAD_SHIFT;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_ENABLE;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_ESCR_SELECT;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_ESCR_SELECT_SHIFT;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_FORCE_OVF;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_OVF;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_OVF_PMI_T0;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_OVF_PMI_T1;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_PRESERVED;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_REQUIRED;
import static org.hyperprof.pmu.p4.P4Registers.CCCR_WRITABLE;
import static org.hyperprof.pmu.p4.P4Registers.COUNTER0;
import static org.hyperprof.pmu.p4.P4Registers.COUNTER_MASK;
import static org.hyperprof.pmu.p4.P4Registers.COUNTER_WRAP;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_EVENT_MASK;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_EVENT_MASK_SHIFT;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_EVENT_SELECT;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_EVENT_SELECT_SHIFT;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_PRESERVED;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_T0_OS;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_T0_USR;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_T1_OS;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_T1_USR;
import static org.hyperprof.pmu.p4.P4Registers.ESCR_WRITABLE;
import static org.hyperprof.pmu.p4.P4Registers.HARDWARE_COUNTERS;
import static org.hyperprof.pmu.p4.P4Registers.LVTPC;
import static org.hyperprof.pmu.p4.P4Registers.MISC_ENABLE;
import static org.hyperprof.pmu.p4.P4Registers.MISC_ENABLE_PERFMON_AVAILABLE;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.x86.X86Pmu;

/**
 * The Pentium 4 performance-monitoring registers as one logical CPU sees them: 18 counters of
 * 40 bits, their CCCRs, the ESCRs and the local APIC LVTPC, with the driver steps of Xen's P4
 * oprofile model ({@code op_model_p4}; the x86 sequence, {@link X86Pmu}, with a counter's CCCR as
 * its control and the ESCRs as further controls).
 *
 * <h2>Hyper-Threading</h2>
 * On a Hyper-Threading package the registers are shared by the two logical CPUs. This model keeps
 * one register file per logical CPU instead (a simplification): each {@code P4Pmu} owns its own
 * copy and counts only the code of its own logical CPU ({@link #thread()} 0 or 1). A counter
 * counts for this CPU when the ESCR's T0 (thread 0) or T1 (thread 1) OS/USR bit admits the CPL,
 * and its overflow raises this CPU's PMI when the CCCR's OVF_PMI_T0 or OVF_PMI_T1 bit for this
 * thread is set. What the sharing would add, a counter programmed by one thread counting the
 * other thread's code, is not modelled; Xenoprof's driver never programs that, since each thread
 * uses its own half of the counters (thread 0 the even ESCRs and OProfile virtual counters 0-3,
 * thread 1 the odd ESCRs and virtual counters 4-7) and its own T0/T1 bits.
 *
 * <h2>Counting</h2>
 * A hardware counter counts when its CCCR has Enable set and an active-thread value that holds,
 * its CCCR ESCR-select names an ESCR wired to the counter's group and half, that ESCR's
 * event-select code is an event of the binding table with a signal, its event mask is not empty,
 * and its OS (CPL 0) or USR (CPL above 0) bit for this thread is set. Active thread: without
 * Hyper-Threading one thread runs, so 01b (single) and 11b (any) hold; with Hyper-Threading the
 * sibling is taken to be running, so 10b (both) and 11b hold. Tag, compare, complement,
 * threshold, edge and cascade bits are stored but do not change counting: the simulated machine
 * emits event counts, not per-cycle conditions, and OProfile never cascades.
 *
 * <h2>Counter writes</h2>
 * pmu-facts 8 leaves open whether a WRMSR to a counter writes all 40 bits; this model takes the
 * reading of pmu-facts 3.1 and 7 (K-P4PERF's 40-bit value mask): all 40 bits are written as given,
 * with no sign extension, and bits 63:40 are dropped. OProfile writes -count with the high half
 * all ones, so the preload is the same either way.
 */
final class P4Pmu extends X86Pmu {
    /** Observes every register write, for tests and diagnostics; must not allocate. */
    @FunctionalInterface
    interface WriteObserver {
        void written(int register, long value);
    }

    private final P4Wiring wiring;
    /** [unit * 64 + event select] to Signal ordinal, -1 for an event code with no signal; shared. */
    private final int[] signalByUnitEvent;
    private final boolean hyperThreading;
    private final int thread;
    private final int cpuModel;
    /** Hardware counter of each of this CPU's OProfile counters (8 without HT, 4 per thread with it). */
    private final int[] virtualToHardware;
    /** OProfile's virtual counter number of this CPU's counter 0: the stagger times 4 on HT. */
    private final int virtualBase;
    private final boolean[] escrPresent;
    private final long osBit;
    private final long usrBit;
    private final long pmiBit;

    // Architectural state.
    private final long[] counter = new long[HARDWARE_COUNTERS];
    private final long[] cccr = new long[HARDWARE_COUNTERS];
    private final long[] escr;

    // Simulation state derived from the registers.
    private final int[] signal = new int[HARDWARE_COUNTERS];
    private final boolean[] countsKernel = new boolean[HARDWARE_COUNTERS];
    private final boolean[] countsUser = new boolean[HARDWARE_COUNTERS];
    private final long[] residue = new long[HARDWARE_COUNTERS];

    private WriteObserver observer;

    P4Pmu(int cpu, PmuModel model, P4Wiring wiring, int[] signalByUnitEvent, boolean hyperThreading, int thread,
            int cpuModel, boolean autoMask) {
        // The P4 sets LVTPC.mask when it delivers a PMI ("P4 quirk", pmu-facts 1.1).
        super(cpu, model, counterMsrs(wiring, hyperThreading, thread), controlMsrs(wiring, hyperThreading, thread,
                cpuModel), autoMask);
        this.wiring = wiring;
        this.signalByUnitEvent = signalByUnitEvent;
        this.hyperThreading = hyperThreading;
        this.thread = thread;
        this.cpuModel = cpuModel;
        int n = counters();
        this.virtualBase = thread * n;
        this.virtualToHardware = registers(n, i -> counterRegisters()[i] - COUNTER0);
        this.escr = new long[wiring.escrCount()];
        this.escrPresent = new boolean[wiring.escrCount()];
        for (int e = 0; e < wiring.escrCount(); e++) {
            escrPresent[e] = wiring.escrPresent(e, cpuModel);
        }
        this.osBit = thread == 0 ? ESCR_T0_OS : ESCR_T1_OS;
        this.usrBit = thread == 0 ? ESCR_T0_USR : ESCR_T1_USR;
        this.pmiBit = thread == 0 ? CCCR_OVF_PMI_T0 : CCCR_OVF_PMI_T1;
        for (int h = 0; h < HARDWARE_COUNTERS; h++) {
            signal[h] = -1;
        }
    }

    /** OProfile's counters of one logical CPU: all eight, or four per thread with Hyper-Threading. */
    private static int virtualCounters(boolean hyperThreading) {
        return hyperThreading ? P4Wiring.VIRTUAL_COUNTERS / 2 : P4Wiring.VIRTUAL_COUNTERS;
    }

    /** The counter MSRs of this CPU's OProfile counters; with HT, thread 1 has virtual counters 4-7. */
    private static int[] counterMsrs(P4Wiring wiring, boolean hyperThreading, int thread) {
        int n = virtualCounters(hyperThreading);
        return registers(n, i -> COUNTER0 + wiring.hardwareCounter(thread * n + i));
    }

    /**
     * The CCCRs of this CPU's counters, then the ESCRs its driver owns (every present one, or its
     * thread's half with HT): what reserve saves and release restores, in Xen's order.
     */
    private static int[] controlMsrs(P4Wiring wiring, boolean hyperThreading, int thread, int cpuModel) {
        int n = virtualCounters(hyperThreading);
        List<Integer> controls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            controls.add(CCCR0 + wiring.hardwareCounter(thread * n + i));
        }
        for (int e = 0; e < wiring.escrCount(); e++) {
            if (wiring.escrPresent(e, cpuModel) && (!hyperThreading || wiring.escrHalf(e) == thread)) {
                controls.add(wiring.escrAddress(e));
            }
        }
        return controls.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The logical CPU of the package this register file serves: 0, or 1 for the second HT sibling. */
    int thread() {
        return thread;
    }

    /** Family 0Fh model number of the CPU. */
    int cpuModel() {
        return cpuModel;
    }

    /** Whether this CPU's APIC masks LVTPC when it delivers a PMI. */
    boolean autoMasksLvtpc() {
        return lvtpc.autoMasks();
    }

    /** The hardware counter (0-17) behind this CPU's OProfile counter {@code counter}. */
    int hardwareCounter(int counter) {
        return virtualToHardware[counter];
    }

    /** What the last setup logged and skipped, as Xen prints it to its console. */
    List<String> setupErrors() {
        return unprogrammed();
    }

    /** Observes every register write from now on (null: none). */
    void observeWrites(WriteObserver o) {
        this.observer = o;
    }

    // ------------------------------------------------------------------ registers

    @Override
    public long read(int register) {
        int h = register - COUNTER0;
        if (h >= 0 && h < HARDWARE_COUNTERS) {
            return counter[h];
        }
        h = register - CCCR0;
        if (h >= 0 && h < HARDWARE_COUNTERS) {
            return cccr[h];
        }
        int e = wiring.escrAt(register);
        if (e >= 0 && escrPresent[e]) {
            return escr[e];
        }
        if (register == LVTPC) {
            return lvtpc.read();
        }
        if (register == MISC_ENABLE) {
            // Only bit 7 is modelled: performance monitoring is available (the driver checks it).
            return MISC_ENABLE_PERFMON_AVAILABLE;
        }
        throw unknownRegister(register);
    }

    /** Reports a register write to the test observer, if any (start and stop route LVTPC without write()). */
    private void observe(int register, long value) {
        if (observer != null) {
            observer.written(register, value);
        }
    }

    @Override
    public void write(int register, long value) {
        observe(register, value);
        int h = register - COUNTER0;
        if (h >= 0 && h < HARDWARE_COUNTERS) {
            counter[h] = value & COUNTER_MASK; // all 40 bits, no sign extension (see class comment)
            return;
        }
        h = register - CCCR0;
        if (h >= 0 && h < HARDWARE_COUNTERS) {
            // OVF (bit 31) is plain read/write to software: the handler clears it by writing 0.
            cccr[h] = value & CCCR_WRITABLE;
            derive(h);
            return;
        }
        int e = wiring.escrAt(register);
        if (e >= 0 && escrPresent[e]) {
            escr[e] = value & ESCR_WRITABLE;
            for (int c = 0; c < HARDWARE_COUNTERS; c++) {
                derive(c);
            }
            return;
        }
        if (register == LVTPC) {
            lvtpc.write(value);
            return;
        }
        if (register == MISC_ENABLE) {
            throw new IllegalArgumentException(String.format("CPU %d: IA32_MISC_ENABLE (MSR 0x1A0) is read-only in"
                    + " this model (only its bit 7, performance monitoring available, is modelled); value 0x%x ignored",
                    cpu, value));
        }
        throw unknownRegister(register);
    }

    /** Recomputes what hardware counter {@code h} counts from its CCCR and the ESCR it selects. */
    private void derive(int h) {
        long c = cccr[h];
        int s = -1;
        boolean kernel = false;
        boolean user = false;
        if ((c & CCCR_ENABLE) != 0 && activeThreadHolds(c)) {
            int e = wiring.escrFeeding(h, (int) ((c & CCCR_ESCR_SELECT) >>> CCCR_ESCR_SELECT_SHIFT));
            if (e >= 0 && escrPresent[e] && (escr[e] & ESCR_EVENT_MASK) != 0) {
                int eventSelect = (int) ((escr[e] & ESCR_EVENT_SELECT) >>> ESCR_EVENT_SELECT_SHIFT);
                s = signalByUnitEvent[wiring.escrUnit(e) * 64 + eventSelect];
                kernel = s >= 0 && (escr[e] & osBit) != 0;
                user = s >= 0 && (escr[e] & usrBit) != 0;
            }
        }
        countsKernel[h] = kernel;
        countsUser[h] = user;
        if (s >= 0 && s != signal[h]) {
            // Progress towards the next event of the old signal means nothing for the new one.
            residue[h] = 0;
        }
        if (s >= 0) {
            signal[h] = s;
        }
    }

    private boolean activeThreadHolds(long c) {
        long at = (c & CCCR_ACTIVE_THREAD) >>> CCCR_ACTIVE_THREAD_SHIFT;
        return hyperThreading ? (at & 0b10) != 0 : (at & 0b01) != 0;
    }

    private IllegalArgumentException unknownRegister(int register) {
        int e = wiring.escrAt(register);
        if (e >= 0) {
            return new IllegalArgumentException(String.format("CPU %d: %s (MSR 0x%X) does not exist on family 0Fh model"
                    + " %d; IQ_ESCR0/1 exist only on models 1 and 2", cpu, wiring.escrName(e), register, cpuModel));
        }
        return new IllegalArgumentException(String.format("CPU %d: 0x%X is not a Pentium 4 performance-monitoring"
                + " register; it has the counters (MSR 0x300-0x311), the CCCRs (MSR 0x360-0x371), the ESCRs"
                + " (MSR 0x3A0-0x3E1, not contiguous), IA32_MISC_ENABLE (0x1A0) and the local APIC LVTPC (0x340)",
                cpu, register));
    }

    // ------------------------------------------------------------------ driver hooks

    @Override
    protected String countersName() {
        return "the P4 counters";
    }

    @Override
    protected String counterRange() {
        return "this " + model().displayName() + " logical CPU has counters 0.." + (counters() - 1);
    }

    @Override
    protected String preloadRule() {
        return "overflow is seen as bit 31 of -count clearing";
    }

    @Override
    protected int unitMaskBits() {
        return 16;
    }

    @Override
    protected String unitMaskField() {
        return "ESCR event mask";
    }

    /** Any event will do here: setup logs and skips one the binding table lacks, as Xen does. */
    @Override
    protected String eventMisfit(EventDescriptor event) {
        return event == null ? "has no event" : null;
    }

    @Override
    protected void clearControls() {
        int n = counters();
        // Clear this CPU's CCCRs but their reserved bits, and set the active thread to "any".
        for (int i = 0; i < n; i++) {
            int reg = CCCR0 + virtualToHardware[i];
            write(reg, (read(reg) & CCCR_PRESERVED) | CCCR_REQUIRED);
        }
        // Zero every ESCR this CPU owns (the controls after the CCCRs), including those no event uses.
        for (int k = n; k < controlRegisters().length; k++) {
            write(controlRegisters()[k], 0);
        }
    }

    /** Binds counter {@code i} to its ESCR and CCCR first, then preloads it. */
    @Override
    protected void program(int i, CounterConfig c) {
        bind(i, c);
        write(counterRegisters()[i], -c.count());
    }

    /** A counter's control is its CCCR; Enable starts it. */
    @Override
    protected long enableBit() {
        return CCCR_ENABLE;
    }

    @Override
    protected void lvtpcRouted() {
        observe(LVTPC, lvtpc.read());
    }

    /**
     * CCCR.OVF, or an "unflagged" overflow seen as bit 31 of the -count preload clearing (extra
     * NMIs can arrive before the flag is visible).
     */
    @Override
    protected boolean overflowed(int i) {
        int h = virtualToHardware[i];
        return (read(CCCR0 + h) & CCCR_OVF) != 0 || (read(COUNTER0 + h) & BIT_31) == 0;
    }

    @Override
    protected void rearm(int i) {
        super.rearm(i);
        int cccrReg = CCCR0 + virtualToHardware[i];
        write(cccrReg, read(cccrReg) & ~CCCR_OVF);
        // The same write a second time: erratum N15 (Intel doc 249199) can lose the first.
        super.rearm(i);
    }

    /**
     * Programs the ESCR and CCCR of counter {@code i} from the binding table. Like Xen, an event
     * number outside 1..39 or without a binding for this counter is logged and skipped: the CCCR
     * keeps its cleared value, so the counter, though preloaded and later enabled, counts nothing.
     */
    private void bind(int i, CounterConfig c) {
        int number = c.event().code();
        P4Wiring.Binding b = wiring.binding(number);
        int vcounter = virtualBase + i;
        if (b == null) {
            setupError(String.format("CPU %d: P4 event code 0x%x out of range (OProfile P4 events are 1..%d);"
                    + " counter %d left unprogrammed", cpu, number, P4Wiring.EVENTS, i));
            return;
        }
        int e = b.escrFor(vcounter);
        if (e < 0) {
            setupError(String.format("CPU %d: P4 event code 0x%x (%s) has no binding for counter %d, stagger %d"
                    + " (OProfile virtual counter %d); counter %d left unprogrammed", cpu, number, b.name(), i, thread,
                    vcounter, i));
            return;
        }
        int escrReg = wiring.escrAddress(e);
        long word = (read(escrReg) & ESCR_PRESERVED) | ((long) b.eventSelect() << ESCR_EVENT_SELECT_SHIFT)
                | ((c.unitMask() & 0xFFFFL) << ESCR_EVENT_MASK_SHIFT) | (c.kernel() ? osBit : 0)
                | (c.user() ? usrBit : 0);
        write(escrReg, word);
        int cccrReg = CCCR0 + virtualToHardware[i];
        write(cccrReg, (read(cccrReg) & CCCR_PRESERVED) | CCCR_REQUIRED
                | ((long) b.escrSelect() << CCCR_ESCR_SELECT_SHIFT) | pmiBit);
    }

    private void setupError(String message) {
        leaveUnprogrammed(System.Logger.Level.ERROR, message);
    }

    // ------------------------------------------------------------------ simulation

    @Override
    protected long cyclesUntilNextOverflow(SignalRates rates, int cpl) {
        long soonest = Long.MAX_VALUE;
        boolean[] counts = cpl == 0 ? countsKernel : countsUser;
        for (int h = 0; h < HARDWARE_COUNTERS; h++) {
            if (counts[h]) {
                long rate = rates.perKilocycle(signal[h]);
                if (rate > 0) {
                    // FORCE_OVF makes every increment an overflow.
                    long events = (cccr[h] & CCCR_FORCE_OVF) != 0 ? 1 : COUNTER_WRAP - counter[h];
                    soonest = Math.min(soonest, SignalRates.cyclesFor(events, rate, residue[h]));
                }
            }
        }
        return soonest;
    }

    @Override
    protected void advanceCounters(long cycles, SignalRates rates, int cpl) {
        boolean[] counts = cpl == 0 ? countsKernel : countsUser;
        for (int h = 0; h < HARDWARE_COUNTERS; h++) {
            if (!counts[h]) {
                continue;
            }
            long gained = SignalRates.advance(rates.perKilocycle(signal[h]), cycles, residue, h);
            if (gained == 0) {
                continue;
            }
            long value = counter[h] + gained;
            if (value >= COUNTER_WRAP || (cccr[h] & CCCR_FORCE_OVF) != 0) {
                // The flag is sticky; the counter keeps counting from its wrapped value.
                cccr[h] |= CCCR_OVF;
                if ((cccr[h] & pmiBit) != 0) {
                    raisePmi();
                }
            }
            counter[h] = value & COUNTER_MASK;
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(String.format("%s PMU cpu %d thread %d [", model().cpuType(), cpu, thread));
        for (int i = 0; i < virtualToHardware.length; i++) {
            int h = virtualToHardware[i];
            b.append(String.format("%s=0x%010x CCCR%d=0x%08x ", P4Registers.counterName(h), counter[h], h, cccr[h]));
        }
        return b.append(String.format("LVTPC=0x%05x%s]", lvtpc.read(), pmiPending() ? " PMI pending" : "")).toString();
    }
}
