package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EVENT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_UMASK;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;
import static org.hyperprof.pmu.x86_64.ArchRegisters.A_PMC0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.DEBUGCTL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.DEBUGCTL_FREEZE_PERFMON_ON_PMI;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_ANY_THREAD;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_WRITABLE_V1;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_WRITABLE_V3;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_ANY_THREAD;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_CTR_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_FIELD_BITS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_OS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_PMI;
import static org.hyperprof.pmu.x86_64.ArchRegisters.FIXED_USR;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_FIXED_SHIFT;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_OVF_CTRL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.GLOBAL_STATUS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.LVTPC;
import static org.hyperprof.pmu.x86_64.ArchRegisters.MAX_GP_COUNTERS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERFEVTSEL0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERF_CAPABILITIES;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERF_CAPABILITIES_FW_WRITE;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PMC0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.STATUS_COND_CHGD;
import static org.hyperprof.pmu.x86_64.ArchRegisters.STATUS_OVF_BUFFER;

import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.x86.PerfEvtSelPmu;

/**
 * The architectural performance-monitoring registers of one logical CPU, shaped by its CPUID leaf
 * 0x0A, with the driver steps of Xen's P6/arch-perfmon oprofile model ({@code op_model_ppro}; the
 * x86 sequence, {@link PerfEvtSelPmu}).
 *
 * <p>Registers: IA32_PMCx and IA32_PERFEVTSELx for each general-purpose counter; from version 2
 * the fixed counters, IA32_FIXED_CTR_CTRL and the three global registers; IA32_DEBUGCTL (only
 * FREEZE_PERFMON_ON_PMI is modelled); optionally IA32_PERF_CAPABILITIES with the full-width
 * aliases IA32_A_PMCx; the local APIC LVTPC.
 *
 * <p>Counting: a general-purpose counter counts the signal its select's event code and unit mask
 * name in the event table when EN is set, its USR/OS bit admits the CPL and, from version 2, its
 * GLOBAL_CTRL bit is set. Fixed counter 0 counts instructions, 1 and 2 count cycles (reference
 * cycles equal core cycles in the simulation), when their CTRL field admits the CPL and their
 * GLOBAL_CTRL bit is set. Edge, pin control, invert, CMASK and the AnyThread bits are stored and
 * read back but do not change counting: the simulated machine emits event counts, one thread per
 * core.
 *
 * <p>Xen drives only the general-purpose counters; {@link #counterRegisters()} and
 * {@link #controlRegisters()} list those and their selects, which is what reserve saves and
 * release restores.
 */
final class ArchPerfmonPmu extends PerfEvtSelPmu {
    /** What the fixed counters count: INST_RETIRED.ANY, CPU_CLK_UNHALTED.CORE, CPU_CLK_UNHALTED.REF. */
    private static final Signal[] FIXED_SIGNALS = {Signal.INSTRUCTIONS, Signal.CYCLES, Signal.CYCLES};

    private final CpuidLeaf0A cpuid;
    /** Event select (code | umask << 8) to Signal ordinal; shared, read-only. */
    private final int[] signalBySelect;
    private final boolean clearStatusInHandler;
    private final boolean fullWidthWrites;

    private final int gp;
    private final int fixed;
    private final boolean global;
    private final long gpWrap;
    private final long fixedWrap;
    private final long selectWritable;
    private final long fixedCtrlWritable;
    private final long globalCtrlWritable;
    private final long statusClearable;
    /** The counter bit Xen's handler tests: clear means overflowed. */
    private final long overflowTestBit;
    private final String registerList;

    // Architectural state; general-purpose counters first, then the fixed counters.
    private final long[] counter;
    private final long[] select;
    private long fixedCtrl;
    private long globalCtrl;
    private long globalStatus;
    private long debugCtl;

    // Simulation state derived from the registers.
    private final int[] signal;
    /** Thousandths of an event each counter carries between advances (see SignalRates.advance). */
    private final long[] residue;

    ArchPerfmonPmu(int cpu, IntelArchPmuModel model, CpuidLeaf0A cpuid, int[] signalBySelect,
            boolean clearStatusInHandler, boolean fullWidthWrites, boolean autoMask) {
        // Xen drives the general-purpose counters and their selects only.
        // Arch-perfmon cores set LVTPC.mask when they deliver a PMI (pmu-facts 1.1).
        super(cpu, model, registers(cpuid.gpCounters(), i -> PMC0 + i),
                registers(cpuid.gpCounters(), i -> PERFEVTSEL0 + i), autoMask);
        this.cpuid = cpuid;
        this.signalBySelect = signalBySelect;
        this.clearStatusInHandler = clearStatusInHandler;
        this.fullWidthWrites = fullWidthWrites;
        this.gp = cpuid.gpCounters();
        this.global = cpuid.hasGlobalRegisters();
        this.fixed = global ? cpuid.fixedCounters() : 0;
        this.gpWrap = 1L << cpuid.gpWidth();
        this.fixedWrap = fixed > 0 ? 1L << cpuid.fixedWidth() : 0;
        this.selectWritable = cpuid.hasAnyThread() ? EVTSEL_WRITABLE_V3 : EVTSEL_WRITABLE_V1;
        long fieldBits = FIXED_OS | FIXED_USR | FIXED_PMI | (cpuid.hasAnyThread() ? FIXED_ANY_THREAD : 0);
        long ctrl = 0;
        for (int j = 0; j < fixed; j++) {
            ctrl |= fieldBits << (FIXED_FIELD_BITS * j);
        }
        this.fixedCtrlWritable = ctrl;
        this.globalCtrlWritable = ArchRegisters.mask(gp) | (ArchRegisters.mask(fixed) << GLOBAL_FIXED_SHIFT);
        this.statusClearable = globalCtrlWritable | STATUS_OVF_BUFFER | STATUS_COND_CHGD;
        this.overflowTestBit = 1L << (cpuid.overflowTestWidth() - 1);
        this.counter = new long[gp + fixed];
        this.select = new long[gp];
        this.signal = new int[gp + fixed];
        this.residue = new long[gp + fixed];
        for (int i = 0; i < gp; i++) {
            signal[i] = signalBySelect[0];
        }
        for (int j = 0; j < fixed; j++) {
            signal[gp + j] = j < FIXED_SIGNALS.length ? FIXED_SIGNALS[j].ordinal() : -1;
        }
        // Power-on (pmu-facts 5.4): every general-purpose enable bit of GLOBAL_CTRL is set, the
        // fixed ones are clear, which is why v1-style software never needs to write it.
        this.globalCtrl = global ? ArchRegisters.mask(gp) : 0;
        this.registerList = describeRegisters();
    }

    /** This CPU's CPUID leaf 0x0A. */
    CpuidLeaf0A cpuid() {
        return cpuid;
    }

    /** Whether this CPU's APIC masks LVTPC when it delivers a PMI. */
    boolean autoMasksLvtpc() {
        return lvtpc.autoMasks();
    }

    /** What the last setup could not program (configurations for counters the CPU lacks). */
    List<String> setupNotes() {
        return unprogrammed();
    }

    // ------------------------------------------------------------------ registers

    @Override
    public long read(int register) {
        int i = register - PMC0;
        if (i >= 0 && i < gp) {
            return counter[i];
        }
        i = register - PERFEVTSEL0;
        if (i >= 0 && i < gp) {
            return select[i];
        }
        i = register - A_PMC0;
        if (fullWidthWrites && i >= 0 && i < gp) {
            return counter[i];
        }
        i = register - FIXED_CTR0;
        if (i >= 0 && i < fixed) {
            return counter[gp + i];
        }
        if (global) {
            switch (register) {
                case FIXED_CTR_CTRL:
                    return fixedCtrl;
                case GLOBAL_STATUS:
                    return globalStatus;
                case GLOBAL_CTRL:
                    return globalCtrl;
                case GLOBAL_OVF_CTRL:
                    return 0; // a write-1-to-clear command register: nothing is stored in it
                default:
                    break;
            }
        }
        switch (register) {
            case DEBUGCTL:
                return debugCtl;
            case LVTPC:
                return lvtpc.read();
            case PERF_CAPABILITIES:
                if (fullWidthWrites) {
                    return PERF_CAPABILITIES_FW_WRITE;
                }
                break;
            default:
                break;
        }
        throw unknownRegister(register);
    }

    @Override
    public void write(int register, long value) {
        int i = register - PMC0;
        if (i >= 0 && i < gp) {
            // WRMSR to IA32_PMCx takes bits 31:0 and copies bit 31 up to the counter width (pmu-facts 5.5).
            counter[i] = ArchRegisters.signExtend32(value, cpuid.gpWidth());
            return;
        }
        i = register - PERFEVTSEL0;
        if (i >= 0 && i < gp) {
            writeSelect(i, value);
            return;
        }
        i = register - A_PMC0;
        if (fullWidthWrites && i >= 0 && i < gp) {
            counter[i] = value & (gpWrap - 1);
            return;
        }
        i = register - FIXED_CTR0;
        if (i >= 0 && i < fixed) {
            // Fixed counters take the full width (pmu-facts 8 leaves this open; KVM's emulation
            // writes fixed counters whole and sign-extends only legacy IA32_PMCx writes).
            counter[gp + i] = value & (fixedWrap - 1);
            return;
        }
        if (global) {
            switch (register) {
                case FIXED_CTR_CTRL:
                    fixedCtrl = value & fixedCtrlWritable;
                    return;
                case GLOBAL_STATUS:
                    throw new IllegalArgumentException(String.format("CPU %d: IA32_PERF_GLOBAL_STATUS (MSR 0x38E) is"
                            + " read-only (WRMSR faults); clear its bits by writing 1s to IA32_PERF_GLOBAL_OVF_CTRL"
                            + " (MSR 0x390), value 0x%x ignored", cpu, value));
                case GLOBAL_CTRL:
                    globalCtrl = value & globalCtrlWritable;
                    return;
                case GLOBAL_OVF_CTRL:
                    globalStatus &= ~(value & statusClearable);
                    return;
                default:
                    break;
            }
        }
        switch (register) {
            case DEBUGCTL:
                // Only FREEZE_PERFMON_ON_PMI is modelled, and only version 2 and later have it.
                debugCtl = value & (global ? DEBUGCTL_FREEZE_PERFMON_ON_PMI : 0);
                return;
            case LVTPC:
                lvtpc.write(value);
                return;
            case PERF_CAPABILITIES:
                if (fullWidthWrites) {
                    throw new IllegalArgumentException("CPU " + cpu + ": IA32_PERF_CAPABILITIES (MSR 0x345) is"
                            + " read-only (WRMSR faults)");
                }
                break;
            default:
                break;
        }
        throw unknownRegister(register);
    }

    private void writeSelect(int i, long value) {
        // Reserved bits (63:32, and bit 21 before version 3) are dropped and read back as 0.
        select[i] = value & selectWritable;
        int s = signalBySelect[(int) (value & (EVTSEL_EVENT | EVTSEL_UMASK))];
        if (s != signal[i]) {
            // Progress towards the next event of the old signal means nothing for the new one.
            signal[i] = s;
            residue[i] = 0;
        }
    }

    private IllegalArgumentException unknownRegister(int register) {
        return new IllegalArgumentException(String.format("CPU %d: 0x%X is not a performance-monitoring register of"
                + " this CPU (%s); it has %s", cpu, register, cpuid, registerList));
    }

    private String describeRegisters() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("IA32_PMC0..%d (MSR 0x%X..0x%X), IA32_PERFEVTSEL0..%d (MSR 0x%X..0x%X)", gp - 1, PMC0,
                PMC0 + gp - 1, gp - 1, PERFEVTSEL0, PERFEVTSEL0 + gp - 1));
        if (fullWidthWrites) {
            b.append(String.format(", IA32_A_PMC0..%d (MSR 0x%X..0x%X), IA32_PERF_CAPABILITIES (MSR 0x345)", gp - 1,
                    A_PMC0, A_PMC0 + gp - 1));
        }
        if (fixed > 0) {
            b.append(String.format(", IA32_FIXED_CTR0..%d (MSR 0x%X..0x%X)", fixed - 1, FIXED_CTR0,
                    FIXED_CTR0 + fixed - 1));
        }
        if (global) {
            b.append(", IA32_FIXED_CTR_CTRL (0x38D), IA32_PERF_GLOBAL_STATUS (0x38E), IA32_PERF_GLOBAL_CTRL (0x38F),"
                    + " IA32_PERF_GLOBAL_OVF_CTRL (0x390)");
        } else {
            b.append(" (version 1: no fixed counters and no global registers)");
        }
        return b.append(", IA32_DEBUGCTL (0x1D9) and the local APIC LVTPC (0x340)").toString();
    }

    // ------------------------------------------------------------------ driver hooks

    @Override
    protected String countersName() {
        return "the counters";
    }

    /** Xenoprof configures counters 0..7 whatever CPUID reports; setup skips those the CPU lacks. */
    @Override
    protected int configurableCounters() {
        return MAX_GP_COUNTERS;
    }

    @Override
    protected String counterRange() {
        return "Xenoprof configures counters 0.." + (MAX_GP_COUNTERS - 1) + " and this CPU has 0.." + (gp - 1);
    }

    @Override
    protected String preloadRule() {
        return "the counter is preloaded through 32 bits with -count";
    }

    /** Bit 21, reserved before version 3 and AnyThread from it, survives the clear. */
    @Override
    protected long keptOnClear() {
        return EVTSEL_ANY_THREAD;
    }

    /**
     * Xen's arch-perfmon test: preloaded with -count, bit (width-1) stays set until the counter
     * wraps past zero, so "bit clear" means it overflowed. GLOBAL_STATUS is not read.
     */
    @Override
    protected long overflowTestBit() {
        return overflowTestBit;
    }

    @Override
    protected void beyondThisCpu(CounterConfig c) {
        // Xen programs counters 0..num_counters-1 from CPUID and never looks further.
        leaveUnprogrammed(System.Logger.Level.WARNING, String.format("CPU %d: counter %d (%s) not programmed:"
                + " CPUID.0AH of this CPU reports %d general-purpose counter(s)", cpu, c.counter(), c.event().name(),
                gp));
    }

    @Override
    protected void enableCounters() {
        super.enableCounters();
        if (global) {
            // Xen: "enabled by default when system power on, however this may not hold true when
            // xenoprof starts to run": it writes (1 << num_counters) - 1, fixed counters off.
            write(GLOBAL_CTRL, ArchRegisters.mask(gp));
        }
    }

    @Override
    protected void disableCounters() {
        super.disableCounters();
        if (global) {
            write(GLOBAL_CTRL, 0);
        }
    }

    /** With {@code handler.clearstatus} the handler also clears the overflowed counters' GLOBAL_STATUS bits. */
    @Override
    protected void endOfHandler(long overflowed) {
        if (clearStatusInHandler && global && overflowed != 0) {
            write(GLOBAL_OVF_CTRL, overflowed);
        }
        super.endOfHandler(overflowed);
    }

    // ------------------------------------------------------------------ simulation

    @Override
    protected long cyclesUntilNextOverflow(SignalRates rates, int cpl) {
        return cyclesUntil(rates, cpl, false);
    }

    /** The fewest cycles until a counting counter (with {@code interruptingOnly}: one that raises a PMI) wraps. */
    private long cyclesUntil(SignalRates rates, int cpl, boolean interruptingOnly) {
        long soonest = Long.MAX_VALUE;
        long enabled = globalCtrl;
        for (int k = 0; k < counter.length; k++) {
            if (counts(k, cpl, enabled) && (!interruptingOnly || interruptEnabled(k))) {
                long rate = rates.perKilocycle(signal[k]);
                if (rate > 0) {
                    soonest = Math.min(soonest, SignalRates.cyclesFor(wrapOf(k) - counter[k], rate, residue[k]));
                }
            }
        }
        return soonest;
    }

    @Override
    protected void advanceCounters(long cycles, SignalRates rates, int cpl) {
        if ((debugCtl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) != 0) {
            // The PMI freezes every counter: count exactly up to it, then on with what stays enabled.
            long untilPmi = cyclesUntil(rates, cpl, true);
            if (untilPmi < cycles) {
                count(untilPmi, rates, cpl);
                count(cycles - untilPmi, rates, cpl);
                return;
            }
        }
        count(cycles, rates, cpl);
    }

    private void count(long cycles, SignalRates rates, int cpl) {
        // Which counters count is decided at the start: a freeze raised inside this stretch takes
        // effect at its end, which advance() places exactly at the freezing overflow.
        long enabled = globalCtrl;
        for (int k = 0; k < counter.length; k++) {
            if (!counts(k, cpl, enabled)) {
                continue;
            }
            long gained = SignalRates.advance(rates.perKilocycle(signal[k]), cycles, residue, k);
            if (gained == 0) {
                continue;
            }
            long wrap = wrapOf(k);
            long value = counter[k] + gained;
            if (value >= wrap) {
                overflow(k); // no freeze of the counter itself: it keeps counting from the wrapped value
            }
            counter[k] = value & (wrap - 1);
        }
    }

    private void overflow(int k) {
        if (global) {
            // Set whether or not the counter's interrupt is enabled; sticky until GLOBAL_OVF_CTRL.
            globalStatus |= k < gp ? 1L << k : 1L << (GLOBAL_FIXED_SHIFT + k - gp);
        }
        if (interruptEnabled(k)) {
            raisePmi();
            if ((debugCtl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) != 0) {
                globalCtrl = 0;
            }
        }
    }

    /** Setup restarts the counter: the fraction of an event it carried goes too. */
    @Override
    protected void startAfresh(int i) {
        residue[i] = 0;
    }

    /** Counter {@code k} counts at {@code cpl} given GLOBAL_CTRL {@code enabled}. */
    private boolean counts(int k, int cpl, long enabled) {
        if (k < gp) {
            long s = select[k];
            if ((s & EVTSEL_EN) == 0 || signal[k] < 0) {
                return false;
            }
            if (global && (enabled & (1L << k)) == 0) {
                return false;
            }
            return (s & (cpl == 0 ? EVTSEL_OS : EVTSEL_USR)) != 0;
        }
        int j = k - gp;
        if ((enabled & (1L << (GLOBAL_FIXED_SHIFT + j))) == 0 || signal[k] < 0) {
            return false;
        }
        long field = fixedCtrl >>> (FIXED_FIELD_BITS * j);
        return (field & (cpl == 0 ? FIXED_OS : FIXED_USR)) != 0;
    }

    private boolean interruptEnabled(int k) {
        if (k < gp) {
            return (select[k] & EVTSEL_INT) != 0;
        }
        return ((fixedCtrl >>> (FIXED_FIELD_BITS * (k - gp))) & FIXED_PMI) != 0;
    }

    private long wrapOf(int k) {
        return k < gp ? gpWrap : fixedWrap;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(String.format("%s PMU cpu %d [", model().cpuType(), cpu));
        for (int i = 0; i < gp; i++) {
            b.append(String.format("PMC%d=0x%x SEL%d=0x%08x ", i, counter[i], i, select[i]));
        }
        for (int j = 0; j < fixed; j++) {
            b.append(String.format("FIXED%d=0x%x ", j, counter[gp + j]));
        }
        if (global) {
            b.append(String.format("FIXED_CTRL=0x%x GLOBAL_CTRL=0x%x GLOBAL_STATUS=0x%x ", fixedCtrl, globalCtrl,
                    globalStatus));
        }
        return b.append(String.format("LVTPC=0x%05x%s]", lvtpc.read(), pmiPending() ? " PMI pending" : "")).toString();
    }
}
