package org.hyperprof.pmu.ppc970;

import static org.hyperprof.pmu.ppc970.Ppc970Registers.COUNTERS;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.COUNTER_MASK;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FC;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCECE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCH;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCM0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCM1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCP;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FCS;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FREEZE_PMC1_4;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.FREEZE_PMC5_8;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MAX_COUNT;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR0_WRITABLE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCR1_SEL_SHIFT;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA_BIT35;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA_BIT36;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.MMCRA_WRITABLE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.NEGATIVE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMAO;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC1;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC1CE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC1SEL_SHIFT;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC2SEL_SHIFT;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMC8;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMCJCE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.PMXE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SAMPLE_ENABLE;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SDAR;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SEL_NOTHING;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.SIAR;
import static org.hyperprof.pmu.ppc970.Ppc970Registers.TRIGGER;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.kit.SetupCheck;

/**
 * The PowerPC 970 performance monitor of one physical CPU: PMC1-PMC8, MMCR0, MMCR1, MMCRA, SIAR
 * and SDAR, with the programming sequence of OProfile's PPC64 driver (op_model_power4) as the
 * Xenoprof arch hooks run it.
 *
 * <h2>Privilege</h2>
 * The simulation gives privilege as an x86 CPL; this model maps it onto the MSR: CPL 0 is
 * hypervisor state (MSR[HV]=1, PR=0), CPL 1 and 2 supervisor state (HV=0, PR=0: a guest kernel),
 * CPL 3 problem state (PR=1). MSR[PMM] is {@link #msrPmm()}: the {@code msr.pmm} option sets it
 * for the profiled code, the driver steps set it while they run and restore it as their
 * {@code rfid} would.
 *
 * <h2>Counting</h2>
 * A PMC counts the signal its selector names (see {@link Ppc970EventGroups}) unless a freeze
 * condition holds: FC; FCS in supervisor state (and in hypervisor state with
 * {@code fcs.states=privileged}); FCP in problem state; FCH in hypervisor state; FCM1 with
 * PMM=1; FCM0 with PMM=0; TRIGGER (PMC2-8 only); MMCRA's freeze of PMC1-4 or PMC5-8; selector
 * 0x08. PMCs are 32-bit and wrap silently; a PMC "becomes negative" when counting sets bit 31.
 * {@link #advance} stops inside its span at every such moment and applies its consequences before
 * counting on, so FCECE freezes and TRIGGER releases happen at the exact event.
 *
 * <h2>Alert and exception</h2>
 * An enabled condition is PMC1 becoming negative with PMC1CE, or PMC2-8 with PMCjCE (counting
 * into bit 31, or software writing a negative value). It sets FC if FCECE, clears TRIGGER, and
 * with PMXE raises the perfmon alert: PMAO set, SIAR and MMCRA's sampled HV/PR bits latched, the
 * exception pending, PMXE cleared (or, with {@code pmxe.clear=interrupt}, cleared when the CPU
 * takes the interrupt). The exception is an interrupt only while MSR[EE]=1, which the simulation
 * decides ({@link #gatedByExternalInterruptEnable()}). Clearing PMAO withdraws it.
 *
 * <p>Not simulated: the time-base condition (TBEE/TBSEL) and threshold events, since the simulated
 * machine has no time base or per-cycle thresholds (the fields are stored and read back); SDAR
 * latching (no data addresses are simulated); HID0's PMC enable.
 */
final class Ppc970Pmu implements PhysicalPmu {
    /** CPL of hypervisor state (MSR[HV]=1, PR=0). */
    static final int CPL_HYPERVISOR = 0;
    /** CPL of supervisor state (MSR[HV]=0, PR=0), as a PV guest kernel runs. */
    static final int CPL_SUPERVISOR = 1;
    /** CPL of problem state (MSR[PR]=1). */
    static final int CPL_PROBLEM_STATE = 3;

    /** MMCR0 and MMCR1 that select "nothing" on every PMC: programmed for an event group the table lacks. */
    static final long NOTHING_MMCR0 = ((long) SEL_NOTHING << PMC1SEL_SHIFT) | ((long) SEL_NOTHING << PMC2SEL_SHIFT);
    static final long NOTHING_MMCR1;

    static {
        long m = 0;
        for (int shift : MMCR1_SEL_SHIFT) {
            m |= (long) SEL_NOTHING << shift;
        }
        NOTHING_MMCR1 = m;
    }

    private final int cpu;
    private final PmuModel model;
    private final Ppc970EventGroups groups;
    private final MmcraSampledBits mmcraRead;
    private final MmcraSampledBits mmcraHardware;
    private final boolean fcsFreezesHypervisor;
    private final boolean pmxeClearedAtInterrupt;
    private final int[] counterRegisters = new int[COUNTERS];
    private final int[] controlRegisters = {MMCR0, MMCR1, MMCRA};

    // Architectural state; power-on (and firmware reset) leaves everything zero.
    private final long[] pmc = new long[COUNTERS];
    private long mmcr0;
    private long mmcr1;
    private long mmcra;
    private long siar;
    private long sdar;
    /** MSR[PMM] of the code that runs now. */
    private boolean msrPmm;
    /** The perfmon exception was signalled and the CPU has not taken it yet. */
    private boolean exceptionPending;
    /** SIAR holds a hardware-latched sample address (not a software write). */
    private boolean siarLatched;
    /** MMCRA's sampled HV/PR bits were latched by an alert since software last wrote MMCRA. */
    private boolean privilegeLatched;
    /** The address of the code that runs now, when the simulation gives it ({@link #setProgramCounter}). */
    private long programCounter;
    private boolean programCounterKnown;
    /** The CPL of the code the PMU last saw run: software writes happen there. */
    private int lastCpl = CPL_HYPERVISOR;

    // Simulation state derived from the registers.
    /** What each PMC's selector counts: a signal ordinal with flags, or NO_SIGNAL. */
    private final int[] counts = new int[COUNTERS];
    private final int[] selector = new int[COUNTERS];
    private long decodedMux;
    /** Thousandths of an event each PMC carries between advances (see SignalRates.advance). */
    private final long[] residue = new long[COUNTERS];

    // Driver state (what op_model_power4 keeps per CPU).
    /** Value each enabled PMC is reloaded with: 0x80000000 - count. */
    private final long[] resetValue = new long[COUNTERS];
    /** Bit i: PMC i+1 belongs to the session (ctr[i].enabled). */
    private int enabledCounters;
    private boolean reserved;
    private boolean started;
    private final long[] savedPmc = new long[COUNTERS];
    private long savedMmcr0;
    private long savedMmcr1;
    private long savedMmcra;

    Ppc970Pmu(int cpu, PmuModel model, Ppc970EventGroups groups, Ppc970Options options) {
        this.cpu = cpu;
        this.model = model;
        this.groups = groups;
        this.mmcraRead = options.mmcraRead();
        this.mmcraHardware = options.mmcraHardware();
        this.fcsFreezesHypervisor = options.fcsStates() == Ppc970Options.FcsStates.PRIVILEGED;
        this.pmxeClearedAtInterrupt = options.pmxeClear() == Ppc970Options.PmxeClear.INTERRUPT;
        this.msrPmm = options.msrPmm();
        for (int i = 0; i < COUNTERS; i++) {
            counterRegisters[i] = PMC1 + i;
        }
        decodeSelectors(true);
    }

    @Override
    public int cpu() {
        return cpu;
    }

    @Override
    public PmuModel model() {
        return model;
    }

    // ------------------------------------------------------------------------------- registers

    @Override
    public long read(int register) {
        if (register >= PMC1 && register <= PMC8) {
            return pmc[register - PMC1];
        }
        return switch (register) {
            case MMCR0 -> mmcr0;
            case MMCR1 -> mmcr1;
            case MMCRA -> mmcra;
            case SIAR -> siar;
            case SDAR -> sdar;
            default -> throw Ppc970Registers.unknownRegister(register);
        };
    }

    @Override
    public void write(int register, long value) {
        if (register >= PMC1 && register <= PMC8) {
            writePmc(register - PMC1, value);
            return;
        }
        switch (register) {
            case MMCR0 -> writeMmcr0(value);
            case MMCR1 -> {
                mmcr1 = value;
                decodeSelectors(false);
            }
            case MMCRA -> {
                // Only the low word holds bits; software now owns the sampled HV/PR bits.
                mmcra = value & MMCRA_WRITABLE;
                privilegeLatched = false;
            }
            case SIAR -> {
                siar = value;
                siarLatched = false;
            }
            case SDAR -> sdar = value;
            default -> throw Ppc970Registers.unknownRegister(register);
        }
    }

    /** mtspr PMCn: all 32 bits; a negative value is an enabled condition when the PMC's CE bit is set. */
    private void writePmc(int i, long value) {
        pmc[i] = value & COUNTER_MASK;
        if ((pmc[i] & NEGATIVE) != 0) {
            becameNegative(1 << i, lastCpl);
        }
    }

    private void writeMmcr0(long value) {
        mmcr0 = value & MMCR0_WRITABLE;
        if ((mmcr0 & PMAO) == 0) {
            // Software cleared the alert: the exception it stood for is withdrawn.
            exceptionPending = false;
        }
        decodeSelectors(false);
    }

    /**
     * Re-reads what each PMC counts after MMCR0 or MMCR1 changed. Only a changed selector or
     * multiplexer setting is looked up again and drops its PMC's fractional progress, so the
     * handler's MMCR0 writes (which leave the selectors alone) cost nothing.
     */
    private void decodeSelectors(boolean all) {
        long mux = mmcr1 >>> 32;
        boolean muxChanged = all || mux != decodedMux;
        decodedMux = mux;
        for (int i = 0; i < COUNTERS; i++) {
            int sel = Ppc970Registers.selector(i, mmcr0, mmcr1);
            if (muxChanged || sel != selector[i]) {
                selector[i] = sel;
                int c = groups.decode(i, sel, mmcr1);
                if (c != counts[i] || all) {
                    counts[i] = c;
                    residue[i] = 0;
                }
            }
        }
    }

    /** PMC1..PMC8, SPR 787..794; the array is this PMU's own and must not be changed. */
    @Override
    public int[] counterRegisters() {
        return counterRegisters;
    }

    /** MMCR0 (795), MMCR1 (798), MMCRA (786); the array is this PMU's own and must not be changed. */
    @Override
    public int[] controlRegisters() {
        return controlRegisters;
    }

    // ---------------------------------------------------------------------------- driver steps

    @Override
    public void reserve() {
        if (reserved) {
            throw new IllegalStateException("CPU " + cpu + ": the 970 counters are already reserved; release them first");
        }
        System.arraycopy(pmc, 0, savedPmc, 0, COUNTERS);
        savedMmcr0 = mmcr0;
        savedMmcr1 = mmcr1;
        savedMmcra = mmcra;
        reserved = true;
    }

    /**
     * OProfile's {@code reg_setup} and {@code cpu_setup}: the group's MMCR values (the first
     * configuration's group: OProfile's user space allows one group per session), FCS and FCP from
     * the kernel and user flags, reload values {@code 0x80000000 - count}; then MMCR0 with FC set,
     * MMCR0 |= FCM1 | PMXE | FCECE | PMC1CE | PMCjCE, MMCR1, and MMCRA | SAMPLE_ENABLE (mandatory on
     * the 970). The PMCs are written at {@link #start()}. An event group the table lacks programs
     * every PMC to count nothing.
     */
    @Override
    public void setup(CounterConfig[] configs) {
        check(configs);
        Ppc970EventGroups.GroupMapping mapping = null;
        boolean kernel = false;
        boolean user = false;
        boolean any = false;
        enabledCounters = 0;
        for (int i = 0; i < COUNTERS; i++) {
            resetValue[i] = 0;
            residue[i] = 0;
        }
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            if (!any) {
                mapping = groups.group(Ppc970EventGroups.groupOf(c.event().code()));
                any = true;
            }
            // The PPC64 driver's enable_kernel/enable_user are global; a counter asking for a mode turns it on.
            kernel |= c.kernel();
            user |= c.user();
            enabledCounters |= 1 << c.counter();
            resetValue[c.counter()] = MAX_COUNT - c.count();
        }
        if (!any) {
            kernel = true; // oprofilefs defaults: enable_kernel = enable_user = 1
            user = true;
        }
        long m0 = mapping != null ? mapping.mmcr0() : NOTHING_MMCR0;
        long m1 = mapping != null ? mapping.mmcr1() : NOTHING_MMCR1;
        long ma = mapping != null ? mapping.mmcra() : 0;
        m0 = kernel ? m0 & ~FCS : m0 | FCS;
        m0 = user ? m0 & ~FCP : m0 | FCP;
        m0 |= FC;
        write(MMCR0, m0);
        write(MMCR0, m0 | FCM1 | PMXE | FCECE | PMC1CE | PMCJCE);
        write(MMCR1, m1);
        write(MMCRA, ma | SAMPLE_ENABLE);
    }

    /** Rejects a configuration before any register changes, so a bad one leaves no half-written PMU. */
    private void check(CounterConfig[] configs) {
        SetupCheck.check(cpu, configs, COUNTERS, "the 970 has counters 0..7 (PMC1..PMC8)", MAX_COUNT,
                "the PMC is preloaded with 0x80000000 - count and samples when bit 31 sets", (i, c) -> {
                    if (c.event() == null) {
                        throw new IllegalArgumentException("CPU " + cpu + ": counter " + i + " has no event");
                    }
                });
    }

    /**
     * OProfile's {@code start}: with MSR[PMM] set (so FCM1 keeps the PMCs frozen on the driver's
     * own path), each enabled PMC gets its reload value and every other PMC 0; then MMCR0 loses
     * PMAO and FC. Counting begins when the {@code rfid} restores the profiled code's PMM.
     */
    @Override
    public void start() {
        if (started) {
            throw new IllegalStateException("CPU " + cpu + ": the 970 counters are already started; stop them first");
        }
        boolean interrupted = msrPmm;
        msrPmm = true;
        for (int i = 0; i < COUNTERS; i++) {
            writePmc(i, (enabledCounters & (1 << i)) != 0 ? resetValue[i] : 0);
        }
        writeMmcr0(mmcr0 & ~PMAO & ~FC);
        msrPmm = interrupted;
        started = true;
    }

    /** OProfile's {@code stop}: MMCR0 |= FC. */
    @Override
    public void stop() {
        if (!started) {
            throw new IllegalStateException("CPU " + cpu + ": stop without start; the 970 counters are not running");
        }
        writeMmcr0(mmcr0 | FC);
        started = false;
    }

    /**
     * Writes back what {@link #reserve()} saved. MMCR0 is first written with FC alone, so the
     * PMCs are restored frozen and with no condition enabled; the saved MMCR0 comes last.
     */
    @Override
    public void release() {
        if (!reserved) {
            throw new IllegalStateException("CPU " + cpu + ": release without reserve; nothing was saved to restore");
        }
        writeMmcr0(FC);
        write(MMCR1, savedMmcr1);
        write(MMCRA, savedMmcra);
        for (int i = 0; i < COUNTERS; i++) {
            writePmc(i, savedPmc[i]);
            resetValue[i] = 0;
        }
        writeMmcr0(savedMmcr0);
        enabledCounters = 0;
        reserved = false;
        started = false;
    }

    /**
     * OProfile's PPC64 interrupt handler: with MSR[PMM] set, every negative PMC is either
     * recorded and reloaded (running, and enabled in the session) or zeroed; then MMCR0 |= PMXE,
     * &= ~PMAO, &= ~FC, and the {@code rfid} restores PMM. There is no overflow status register:
     * "negative" (bit 31 set) is the whole test. As the driver does, the handler unfreezes the
     * PMCs even when the session is stopped.
     */
    @Override
    public int checkCounters(OverflowSink sink) {
        boolean interrupted = msrPmm;
        msrPmm = true;
        int overflowed = 0;
        for (int i = 0; i < COUNTERS; i++) {
            if ((pmc[i] & NEGATIVE) == 0) {
                continue;
            }
            if (started && (enabledCounters & (1 << i)) != 0) {
                writePmc(i, resetValue[i]);
                overflowed++;
                sink.overflow(i);
            } else {
                writePmc(i, 0);
            }
        }
        writeMmcr0((mmcr0 | PMXE) & ~PMAO & ~FC);
        msrPmm = interrupted;
        return overflowed;
    }

    // -------------------------------------------------------------------------------- counting

    @Override
    public long cyclesUntilOverflow(SignalRates rates, int cpl) {
        checkCpl(cpl);
        return cyclesUntilNegative(countingCounters(cpl), rates);
    }

    /** Cycles until the first PMC in {@code counting} becomes negative; Long.MAX_VALUE if none will. */
    private long cyclesUntilNegative(int counting, SignalRates rates) {
        long soonest = Long.MAX_VALUE;
        for (int i = 0; i < COUNTERS; i++) {
            if ((counting & (1 << i)) != 0) {
                long rate = rates.perKilocycle(counts[i] & Ppc970EventGroups.SIGNAL_MASK);
                if (rate > 0) {
                    soonest = Math.min(soonest,
                            SignalRates.cyclesFor(Ppc970Registers.eventsUntilNegative(pmc[i]), rate, residue[i]));
                }
            }
        }
        return soonest;
    }

    @Override
    public void advance(long cycles, SignalRates rates, int cpl) {
        checkCpl(cpl);
        if (cycles < 0) {
            throw new IllegalArgumentException("CPU " + cpu + ": cannot advance by " + cycles
                    + " cycles; the cycle count must be zero or positive");
        }
        lastCpl = cpl;
        long remaining = cycles;
        while (remaining > 0) {
            int counting = countingCounters(cpl);
            if (counting == 0) {
                return;
            }
            long step = Math.min(remaining, cyclesUntilNegative(counting, rates));
            int negative = 0;
            for (int i = 0; i < COUNTERS; i++) {
                if ((counting & (1 << i)) == 0) {
                    continue;
                }
                long gained = SignalRates.advance(rates.perKilocycle(counts[i] & Ppc970EventGroups.SIGNAL_MASK), step,
                        residue, i);
                if (gained == 0) {
                    continue;
                }
                if (Ppc970Registers.becomesNegative(pmc[i], gained)) {
                    negative |= 1 << i;
                }
                pmc[i] = (pmc[i] + gained) & COUNTER_MASK; // wraps 0xFFFFFFFF -> 0 silently
            }
            remaining -= step;
            if (negative != 0) {
                becameNegative(negative, cpl);
            }
        }
    }

    /** Bit i set when PMC i+1 counts now, for code at {@code cpl}. */
    private int countingCounters(int cpl) {
        long c0 = mmcr0;
        if ((c0 & FC) != 0) {
            return 0;
        }
        boolean hypervisor = cpl == CPL_HYPERVISOR;
        boolean problem = cpl == CPL_PROBLEM_STATE;
        if ((c0 & FCS) != 0 && (!problem && (!hypervisor || fcsFreezesHypervisor))) {
            return 0;
        }
        if ((c0 & FCP) != 0 && problem || (c0 & FCH) != 0 && hypervisor) {
            return 0;
        }
        if ((c0 & FCM1) != 0 && msrPmm || (c0 & FCM0) != 0 && !msrPmm) {
            return 0;
        }
        boolean trigger = (c0 & TRIGGER) != 0;
        int counting = 0;
        for (int i = 0; i < COUNTERS; i++) {
            int c = counts[i];
            if (c == Ppc970EventGroups.NO_SIGNAL
                    || (c & Ppc970EventGroups.HYPERVISOR_ONLY) != 0 && !hypervisor
                    || i > 0 && trigger
                    || (mmcra & (i < 4 ? FREEZE_PMC1_4 : FREEZE_PMC5_8)) != 0) {
                continue;
            }
            counting |= 1 << i;
        }
        return counting;
    }

    /** PMCs in {@code negative} just became negative while code at {@code cpl} ran. */
    private void becameNegative(int negative, int cpl) {
        boolean pmc1 = (negative & 1) != 0;
        if (pmc1) {
            mmcr0 &= ~TRIGGER; // PMC1 turning negative starts PMC2-8
        }
        if (pmc1 && (mmcr0 & PMC1CE) != 0 || (negative & ~1) != 0 && (mmcr0 & PMCJCE) != 0) {
            enabledCondition(cpl);
        }
    }

    /** The hardware's response to an enabled condition or event. */
    private void enabledCondition(int cpl) {
        if ((mmcr0 & FCECE) != 0) {
            mmcr0 |= FC;
        }
        mmcr0 &= ~TRIGGER;
        if ((mmcr0 & PMXE) == 0) {
            return;
        }
        mmcr0 |= PMAO;
        exceptionPending = true;
        if (programCounterKnown) {
            siar = programCounter;
            siarLatched = true;
        }
        mmcra = (mmcra & ~(MMCRA_BIT35 | MMCRA_BIT36)) | mmcraHardware.encode(cpl);
        privilegeLatched = true;
        if (!pmxeClearedAtInterrupt) {
            mmcr0 &= ~PMXE;
        }
    }

    private void checkCpl(int cpl) {
        if (cpl < 0 || cpl > 3) {
            throw new IllegalArgumentException("CPU " + cpu + ": privilege level " + cpl
                    + " is not a CPL; expected 0 (hypervisor state), 1 or 2 (supervisor state), 3 (problem state)");
        }
    }

    // ------------------------------------------------------------------------------ interrupts

    /** The perfmon exception is signalled (PMAO set by an alert) and not yet taken. */
    @Override
    public boolean interruptPending() {
        return exceptionPending && (mmcr0 & PMAO) != 0;
    }

    /**
     * The CPU takes the perfmon interrupt (vector 0xF00): the exception is consumed, and with
     * {@code pmxe.clear=interrupt} PMXE clears now. PMAO stays set for the handler to clear.
     */
    @Override
    public void acknowledgeInterrupt() {
        if (!interruptPending()) {
            throw new IllegalStateException("CPU " + cpu + ": no perfmon exception is pending"
                    + " (check interruptPending() before the CPU takes the interrupt)");
        }
        exceptionPending = false;
        if (pmxeClearedAtInterrupt) {
            mmcr0 &= ~PMXE;
        }
    }

    /** True: the perfmon exception becomes an interrupt only while MSR[EE]=1. */
    @Override
    public boolean gatedByExternalInterruptEnable() {
        return true;
    }

    /** SIAR as the last alert latched it, or -1 when no alert latched one (see {@link #setProgramCounter}). */
    @Override
    public long sampledAddress() {
        return siarLatched ? siar : -1;
    }

    /** MMCRA's sampled HV/PR bits read with the {@code mmcra.hvpr} assignment, or -1 before any alert latched them. */
    @Override
    public int sampledCpl() {
        return privilegeLatched ? mmcraRead.decode(mmcra) : -1;
    }

    /** MMCR0[PMAO]: what a hypervisor polls for a perfmon alert it has not taken as an interrupt. */
    @Override
    public boolean alertPending() {
        return (mmcr0 & PMAO) != 0;
    }

    // ------------------------------------------------------------ state outside the PMU's SPRs

    /**
     * Tells the PMU the address of the code that runs from now on, so that an alert can latch it
     * into SIAR. Until the simulation has called this, alerts latch no address and
     * {@link #sampledAddress()} stays -1.
     */
    @Override
    public void setProgramCounter(long pc) {
        programCounter = pc;
        programCounterKnown = true;
    }

    /** MSR[PMM] of the code that runs now. */
    public boolean msrPmm() {
        return msrPmm;
    }

    /** Sets MSR[PMM] of the code that runs from now on (marks or unmarks the profiled context). */
    public void setMsrPmm(boolean pmm) {
        msrPmm = pmm;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(160);
        b.append("PowerPC 970 PMU cpu ").append(cpu).append(" [");
        for (int i = 0; i < COUNTERS; i++) {
            b.append(String.format("PMC%d=0x%08x ", i + 1, pmc[i]));
        }
        b.append(String.format("MMCR0=0x%08x MMCR1=0x%016x MMCRA=0x%08x SIAR=0x%x SDAR=0x%x PMM=%d%s]", mmcr0, mmcr1,
                mmcra, siar, sdar, msrPmm ? 1 : 0, exceptionPending ? " exception pending" : ""));
        return b.toString();
    }
}
