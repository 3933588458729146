package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86_64.ArchRegisters.A_PMC0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.DEBUGCTL;
import static org.hyperprof.pmu.x86_64.ArchRegisters.DEBUGCTL_FREEZE_PERFMON_ON_PMI;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_ANY_THREAD;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_EN;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_EVENT;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_INT;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_OS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_UMASK;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_UMASK_SHIFT;
import static org.hyperprof.pmu.x86_64.ArchRegisters.EVTSEL_USR;
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
import static org.hyperprof.pmu.x86_64.ArchRegisters.MAX_COUNT;
import static org.hyperprof.pmu.x86_64.ArchRegisters.MAX_GP_COUNTERS;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERFEVTSEL0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERF_CAPABILITIES;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PERF_CAPABILITIES_FW_WRITE;
import static org.hyperprof.pmu.x86_64.ArchRegisters.PMC0;
import static org.hyperprof.pmu.x86_64.ArchRegisters.STATUS_COND_CHGD;
import static org.hyperprof.pmu.x86_64.ArchRegisters.STATUS_OVF_BUFFER;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.LocalApicLvtpc;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.pmu.SignalRates;

/**
 * The architectural performance-monitoring registers of one logical CPU, shaped by its CPUID leaf
 * 0x0A, with the driver steps of Xen's P6/arch-perfmon oprofile model ({@code op_model_ppro}).
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
final class ArchPerfmonPmu implements PhysicalPmu {
    private static final System.Logger LOG = System.getLogger(ArchPerfmonPmu.class.getName());
    /** What the fixed counters count: INST_RETIRED.ANY, CPU_CLK_UNHALTED.CORE, CPU_CLK_UNHALTED.REF. */
    private static final Signal[] FIXED_SIGNALS = {Signal.INSTRUCTIONS, Signal.CYCLES, Signal.CYCLES};

    private final int cpu;
    private final IntelArchPmuModel model;
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
    private final int[] counterRegisters;
    private final int[] controlRegisters;
    private final String registerList;

    // Architectural state; general-purpose counters first, then the fixed counters.
    private final long[] counter;
    private final long[] select;
    private long fixedCtrl;
    private long globalCtrl;
    private long globalStatus;
    private long debugCtl;
    private final LocalApicLvtpc lvtpc;
    /** A counter with its interrupt enabled wrapped and the PMI has not been taken yet. */
    private boolean pmiPending;

    // Simulation state derived from the registers.
    private final int[] signal;
    /** Thousandths of an event each counter carries between advances (see SignalRates.advance). */
    private final long[] residue;

    // Driver state (what op_model_ppro keeps per CPU).
    private final long[] resetValue;
    private boolean reserved;
    private final long[] savedCounter;
    private final long[] savedSelect;
    private long savedLvtpc;
    private boolean started;
    private final List<String> setupNotes = new ArrayList<>();

    ArchPerfmonPmu(int cpu, IntelArchPmuModel model, CpuidLeaf0A cpuid, int[] signalBySelect,
            boolean clearStatusInHandler, boolean fullWidthWrites, boolean autoMask) {
        this.cpu = cpu;
        this.model = model;
        this.cpuid = cpuid;
        this.signalBySelect = signalBySelect;
        this.clearStatusInHandler = clearStatusInHandler;
        this.fullWidthWrites = fullWidthWrites;
        // Arch-perfmon cores set LVTPC.mask when they deliver a PMI (pmu-facts 1.1).
        this.lvtpc = new LocalApicLvtpc(autoMask);
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
        this.resetValue = new long[gp];
        this.savedCounter = new long[gp];
        this.savedSelect = new long[gp];
        this.counterRegisters = new int[gp];
        this.controlRegisters = new int[gp];
        for (int i = 0; i < gp; i++) {
            counterRegisters[i] = PMC0 + i;
            controlRegisters[i] = PERFEVTSEL0 + i;
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

    @Override
    public int cpu() {
        return cpu;
    }

    @Override
    public PmuModel model() {
        return model;
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
        return List.copyOf(setupNotes);
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

    /** The architectural numbers IA32_PMC0.. of the general-purpose counters; this PMU's own array. */
    @Override
    public int[] counterRegisters() {
        return counterRegisters;
    }

    /** The architectural numbers IA32_PERFEVTSEL0.. (Xen's controls); this PMU's own array. */
    /** The local APIC's LVTPC routes this PMU's interrupt; a vPMU context saves and restores it too. */
    @Override
    public int[] interruptRegisters() {
        return new int[] {LocalApicLvtpc.OFFSET};
    }

    @Override
    public int[] controlRegisters() {
        return controlRegisters;
    }

    // ------------------------------------------------------------------ driver steps

    @Override
    public void reserve() {
        if (reserved) {
            throw new IllegalStateException("CPU " + cpu + ": the counters are already reserved; release them first");
        }
        for (int i = 0; i < gp; i++) {
            savedCounter[i] = counter[i];
            savedSelect[i] = select[i];
        }
        savedLvtpc = lvtpc.read();
        reserved = true;
    }

    @Override
    public void setup(CounterConfig[] configs) {
        check(configs);
        setupNotes.clear();
        // 1. Clear each select except its reserved bit 21 (this also drops EN and INT).
        for (int i = 0; i < gp; i++) {
            write(PERFEVTSEL0 + i, read(PERFEVTSEL0 + i) & EVTSEL_ANY_THREAD);
        }
        // 2. -1 into every counter so an early NMI sees the test bit set and no false overflow.
        for (int i = 0; i < gp; i++) {
            write(PMC0 + i, -1L);
            resetValue[i] = 0;
            residue[i] = 0;
        }
        // 3. Preload -count and build the select of each enabled counter; EN waits for start.
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            int i = c.counter();
            if (i >= gp) {
                // Xen programs counters 0..num_counters-1 from CPUID and never looks further.
                String note = String.format("CPU %d: counter %d (%s) not programmed: CPUID.0AH of this CPU reports"
                        + " %d general-purpose counter(s)", cpu, i, c.event().name(), gp);
                setupNotes.add(note);
                LOG.log(System.Logger.Level.WARNING, note);
                continue;
            }
            resetValue[i] = c.count();
            write(PMC0 + i, -c.count());
            long word = (read(PERFEVTSEL0 + i) & EVTSEL_ANY_THREAD) | EVTSEL_INT | (c.user() ? EVTSEL_USR : 0)
                    | (c.kernel() ? EVTSEL_OS : 0) | (c.unitMask() << EVTSEL_UMASK_SHIFT) | c.event().code();
            write(PERFEVTSEL0 + i, word);
        }
    }

    /** Rejects a configuration before any register changes, so a bad one leaves no half-written PMU. */
    private void check(CounterConfig[] configs) {
        if (configs == null) {
            throw new IllegalArgumentException("CPU " + cpu + ": setup needs an array of counter configurations"
                    + " (null entries for unused counters), got null");
        }
        int seen = 0;
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            int i = c.counter();
            if (i < 0 || i >= MAX_GP_COUNTERS) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i + " does not exist; Xenoprof"
                        + " configures counters 0.." + (MAX_GP_COUNTERS - 1) + " and this CPU has 0.." + (gp - 1));
            }
            if ((seen & (1 << i)) != 0) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i
                        + " is configured twice; give each counter at most one configuration");
            }
            seen |= 1 << i;
            if (c.count() <= 0 || c.count() > MAX_COUNT) {
                throw new IllegalArgumentException("CPU " + cpu + ": count " + c.count() + " for counter " + i
                        + " is out of range 1.." + MAX_COUNT + " (the counter is preloaded through 32 bits with -count)");
            }
            if (c.unitMask() < 0 || c.unitMask() > 0xFF) {
                throw new IllegalArgumentException(String.format(
                        "CPU %d: unit mask 0x%x for counter %d does not fit the 8-bit UMASK field", cpu, c.unitMask(), i));
            }
            if (c.event() == null || c.event().code() < 0 || c.event().code() > EVTSEL_EVENT) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i + " needs an event with a code"
                        + " 0x00..0xFF, got " + c.event());
            }
            if (!c.kernel() && !c.user()) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i
                        + " counts in neither kernel nor user mode; set kernel or user");
            }
        }
    }

    @Override
    public void start() {
        if (started) {
            throw new IllegalStateException("CPU " + cpu + ": the counters are already started; stop them first");
        }
        started = true;
        lvtpc.routeToNmi();
        for (int i = 0; i < gp; i++) {
            if (resetValue[i] != 0) {
                write(PERFEVTSEL0 + i, read(PERFEVTSEL0 + i) | EVTSEL_EN);
            }
        }
        if (global) {
            // Xen: "enabled by default when system power on, however this may not hold true when
            // xenoprof starts to run": it writes (1 << num_counters) - 1, fixed counters off.
            write(GLOBAL_CTRL, ArchRegisters.mask(gp));
        }
    }

    @Override
    public void stop() {
        if (!started) {
            throw new IllegalStateException("CPU " + cpu + ": stop without start; the counters are not running");
        }
        for (int i = 0; i < gp; i++) {
            if (resetValue[i] != 0) {
                write(PERFEVTSEL0 + i, read(PERFEVTSEL0 + i) & ~EVTSEL_EN);
            }
        }
        if (global) {
            write(GLOBAL_CTRL, 0);
        }
        lvtpc.restore();
        started = false;
    }

    @Override
    public void release() {
        if (!reserved) {
            throw new IllegalStateException("CPU " + cpu + ": release without reserve; nothing was saved to restore");
        }
        // Controls first, so the restored counters are not counting while they are written.
        for (int i = 0; i < gp; i++) {
            write(PERFEVTSEL0 + i, savedSelect[i]);
        }
        for (int i = 0; i < gp; i++) {
            // A plain WRMSR like Xen's: bits 31:0 come back, bit 31 copied above them.
            write(PMC0 + i, savedCounter[i]);
            resetValue[i] = 0;
        }
        write(LVTPC, savedLvtpc);
        reserved = false;
        started = false;
    }

    @Override
    public int checkCounters(OverflowSink sink) {
        int overflowed = 0;
        long status = 0;
        for (int i = 0; i < gp; i++) {
            if (resetValue[i] == 0) {
                continue; // Xen's check_ctrs skips counters the session did not set up
            }
            // Xen's arch-perfmon test: preloaded with -count, bit (width-1) stays set until the
            // counter wraps past zero, so "bit clear" means it overflowed. GLOBAL_STATUS is not read.
            if ((counter[i] & overflowTestBit) == 0) {
                write(PMC0 + i, -resetValue[i]);
                overflowed++;
                status |= 1L << i;
                sink.overflow(i);
            }
        }
        if (clearStatusInHandler && global && status != 0) {
            write(GLOBAL_OVF_CTRL, status);
        }
        // The core masked LVTPC when it delivered the PMI; the handler must unmask it.
        lvtpc.unmask();
        return overflowed;
    }

    // ------------------------------------------------------------------ simulation

    @Override
    public long cyclesUntilOverflow(SignalRates rates, int cpl) {
        LocalApicLvtpc.checkCpl(cpu, cpl);
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
    public void advance(long cycles, SignalRates rates, int cpl) {
        LocalApicLvtpc.checkCpl(cpu, cpl);
        if (cycles < 0) {
            throw new IllegalArgumentException("CPU " + cpu + ": cannot advance by " + cycles
                    + " cycles; the cycle count must be zero or positive");
        }
        if (cycles == 0) {
            return;
        }
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
            pmiPending = true;
            if ((debugCtl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) != 0) {
                globalCtrl = 0;
            }
        }
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
    public boolean interruptPending() {
        return pmiPending && lvtpc.deliverable();
    }

    @Override
    public void acknowledgeInterrupt() {
        if (!interruptPending()) {
            throw new IllegalStateException("CPU " + cpu + ": no PMU interrupt is pending"
                    + " (check interruptPending() before the CPU takes the PMI)");
        }
        pmiPending = false;
        lvtpc.deliver();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(String.format("%s PMU cpu %d [", model.cpuType(), cpu));
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
        return b.append(String.format("LVTPC=0x%05x%s]", lvtpc.read(), pmiPending ? " PMI pending" : "")).toString();
    }
}
