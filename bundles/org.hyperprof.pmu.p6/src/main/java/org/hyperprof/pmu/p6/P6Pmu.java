package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.p6.P6Registers.BIT_31;
import static org.hyperprof.pmu.p6.P6Registers.COUNTERS;
import static org.hyperprof.pmu.p6.P6Registers.COUNTER_MASK;
import static org.hyperprof.pmu.p6.P6Registers.COUNTER_WRAP;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_EN;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_EVENT;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_INT;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_OS;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_RESERVED_21;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_UMASK_SHIFT;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_USR;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_WRITABLE;
import static org.hyperprof.pmu.p6.P6Registers.LVTPC;
import static org.hyperprof.pmu.p6.P6Registers.MAX_COUNT;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR0;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR1;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL0;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL1;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.LocalApicLvtpc;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;

/**
 * The P6 performance-monitoring registers of one physical CPU: PerfCtr0/1, PerfEvtSel0/1 and the
 * local APIC LVTPC entry, with the driver steps of OProfile's 2.6.1x P6 driver as Xenoprof runs
 * them.
 *
 * <p>What the simulation counts: a counter advances by the signal its select's event code maps to
 * in the model's event table, when PerfEvtSel0.EN is set and its own USR/OS bits admit the current
 * CPL. The E, PC, INV and CMASK fields are stored and read back but do not change counting,
 * because the simulated machine emits event counts, not per-cycle conditions.
 */
final class P6Pmu implements PhysicalPmu {
    private final int cpu;
    private final PmuModel model;
    /** Event code (0-255) to the Signal ordinal it counts, -1 for a code the table lacks; shared, read-only. */
    private final int[] signalByCode;
    private final int[] counterRegisters = {PERFCTR0, PERFCTR1};
    private final int[] controlRegisters = {PERFEVTSEL0, PERFEVTSEL1};

    // Architectural state. Power-on: counters and selects zero, LVTPC masked.
    private final long[] counter = new long[COUNTERS];
    private final long[] select = new long[COUNTERS];
    private final LocalApicLvtpc lvtpc;
    /** A counter with INT set wrapped and the PMI has not been taken yet. */
    private boolean pmiPending;

    // Simulation state derived from the registers.
    /** Signal ordinal each counter's select names, or -1. */
    private final int[] signal = {-1, -1};
    /** Thousandths of an event each counter carries between advances (see SignalRates.advance). */
    private final long[] residue = new long[COUNTERS];

    // Driver state (what op_model_ppro keeps per CPU).
    /** Sampling period per counter from setup; 0 for a counter the session does not use. */
    private final long[] resetValue = new long[COUNTERS];
    private boolean reserved;
    private final long[] savedCounter = new long[COUNTERS];
    private final long[] savedSelect = new long[COUNTERS];
    private long savedLvtpc;
    private boolean started;

    P6Pmu(int cpu, PmuModel model, int[] signalByCode, boolean autoMask) {
        this.cpu = cpu;
        this.model = model;
        this.signalByCode = signalByCode;
        // Pentium M: the APIC sets LVTPC.mask when it delivers a PMI.
        this.lvtpc = new LocalApicLvtpc(autoMask);
    }

    @Override
    public int cpu() {
        return cpu;
    }

    @Override
    public PmuModel model() {
        return model;
    }

    /** Whether this CPU's APIC auto-masks LVTPC on PMI delivery. */
    boolean autoMasksLvtpc() {
        return lvtpc.autoMasks();
    }

    @Override
    public long read(int register) {
        return switch (register) {
            case PERFCTR0 -> counter[0];
            case PERFCTR1 -> counter[1];
            case PERFEVTSEL0 -> select[0];
            case PERFEVTSEL1 -> select[1];
            case LVTPC -> lvtpc.read();
            default -> throw P6Registers.unknownRegister(register);
        };
    }

    @Override
    public void write(int register, long value) {
        switch (register) {
            case PERFCTR0 -> counter[0] = P6Registers.counterWriteValue(value);
            case PERFCTR1 -> counter[1] = P6Registers.counterWriteValue(value);
            case PERFEVTSEL0 -> writeSelect(0, value);
            case PERFEVTSEL1 -> writeSelect(1, value);
            case LVTPC -> lvtpc.write(value);
            default -> throw P6Registers.unknownRegister(register);
        }
    }

    private void writeSelect(int index, long value) {
        // Reserved bits 63:32 are dropped rather than faulting; EN in PerfEvtSel1 is kept as
        // written but has no effect (only PerfEvtSel0's EN enables counting).
        select[index] = value & EVTSEL_WRITABLE;
        int s = signalByCode[(int) (value & EVTSEL_EVENT)];
        if (s != signal[index]) {
            // Progress towards the next event of the old signal means nothing for the new one.
            signal[index] = s;
            residue[index] = 0;
        }
    }

    /** The architectural numbers {0xC1, 0xC2}; the array is this PMU's own and must not be changed. */
    @Override
    public int[] counterRegisters() {
        return counterRegisters;
    }

    /** The architectural numbers {0x186, 0x187}; the array is this PMU's own and must not be changed. */
    /** The local APIC's LVTPC routes this PMU's interrupt; a vPMU context saves and restores it too. */
    @Override
    public int[] interruptRegisters() {
        return new int[] {LocalApicLvtpc.OFFSET};
    }

    @Override
    public int[] controlRegisters() {
        return controlRegisters;
    }

    @Override
    public void reserve() {
        if (reserved) {
            throw new IllegalStateException("CPU " + cpu + ": P6 counters are already reserved; release them first");
        }
        for (int i = 0; i < COUNTERS; i++) {
            savedCounter[i] = counter[i];
            savedSelect[i] = select[i];
        }
        savedLvtpc = lvtpc.read();
        reserved = true;
    }

    @Override
    public void setup(CounterConfig[] configs) {
        check(configs);
        // 1. Clear each select except the reserved bit 21 (this also drops EN and INT).
        for (int i = 0; i < COUNTERS; i++) {
            write(controlRegisters[i], read(controlRegisters[i]) & EVTSEL_RESERVED_21);
        }
        // 2. -1 into every counter so an early NMI sees bit 31 set and no false overflow.
        for (int i = 0; i < COUNTERS; i++) {
            write(counterRegisters[i], -1L);
            resetValue[i] = 0;
            residue[i] = 0;
        }
        // 3. Preload -count and build the select of each enabled counter; EN waits for start.
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            int i = c.counter();
            resetValue[i] = c.count();
            write(counterRegisters[i], -c.count());
            long word = (read(controlRegisters[i]) & EVTSEL_RESERVED_21) | EVTSEL_INT
                    | (c.user() ? EVTSEL_USR : 0) | (c.kernel() ? EVTSEL_OS : 0)
                    | (c.unitMask() << EVTSEL_UMASK_SHIFT) | c.event().code();
            write(controlRegisters[i], word);
        }
    }

    /** Rejects a configuration before any register changes, so a bad one leaves no half-written PMU. */
    private void check(CounterConfig[] configs) {
        if (configs == null) {
            throw new IllegalArgumentException("CPU " + cpu + ": setup needs an array of counter configurations"
                    + " (null entries for unused counters), got null");
        }
        int seen = 0; // bit i: counter i already configured
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            int i = c.counter();
            if (i < 0 || i >= COUNTERS) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i
                        + " does not exist; the P6 has counters 0 and 1");
            }
            if ((seen & (1 << i)) != 0) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i
                        + " is configured twice; give each counter at most one configuration");
            }
            seen |= 1 << i;
            if (c.count() <= 0 || c.count() > MAX_COUNT) {
                throw new IllegalArgumentException("CPU " + cpu + ": count " + c.count() + " for counter " + i
                        + " is out of range 1.." + MAX_COUNT
                        + " (the counter is preloaded through 32 bits with -count)");
            }
            if (c.unitMask() < 0 || c.unitMask() > 0xFF) {
                throw new IllegalArgumentException(String.format(
                        "CPU %d: unit mask 0x%x for counter %d does not fit the 8-bit UMASK field", cpu, c.unitMask(), i));
            }
            if (c.event() == null || c.event().code() < 0 || c.event().code() > EVTSEL_EVENT) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i + " needs a P6 event with a code"
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
            throw new IllegalStateException("CPU " + cpu + ": the P6 counters are already started; stop them first");
        }
        started = true;
        lvtpc.routeToNmi();
        // Faithful to the 2.6.1x driver: only PerfEvtSel0 gets EN, and only when counter 0 is in
        // use, so a session that configured counter 1 alone never counts on a real P6.
        if (resetValue[0] != 0) {
            write(PERFEVTSEL0, read(PERFEVTSEL0) | EVTSEL_EN);
        }
    }

    @Override
    public void stop() {
        if (!started) {
            throw new IllegalStateException("CPU " + cpu + ": stop without start; the P6 counters are not running");
        }
        write(PERFEVTSEL0, read(PERFEVTSEL0) & ~EVTSEL_EN);
        lvtpc.restore();
        started = false;
    }

    @Override
    public void release() {
        if (!reserved) {
            throw new IllegalStateException("CPU " + cpu + ": release without reserve; nothing was saved to restore");
        }
        // Controls first, so the restored counters are not counting while they are written.
        for (int i = 0; i < COUNTERS; i++) {
            write(controlRegisters[i], savedSelect[i]);
        }
        for (int i = 0; i < COUNTERS; i++) {
            // The restore is a WRMSR like any other: bits 31:0 come back and bits 39:32 become
            // copies of bit 31, so a saved value above 32 bits is not restored whole (as on hardware).
            write(counterRegisters[i], savedCounter[i]);
            resetValue[i] = 0;
        }
        write(LVTPC, savedLvtpc);
        reserved = false;
        started = false;
    }

    @Override
    public int checkCounters(OverflowSink sink) {
        int overflowed = 0;
        for (int i = 0; i < COUNTERS; i++) {
            if (resetValue[i] == 0) {
                continue; // Xen's check_ctrs skips counters the session did not set up
            }
            // No overflow status register: a counter preloaded with -count keeps bit 31 set
            // until it wraps past zero, so "bit 31 clear" means it overflowed.
            if ((counter[i] & BIT_31) == 0) {
                write(counterRegisters[i], -resetValue[i]);
                overflowed++;
                sink.overflow(i);
            }
        }
        // Pentium M masked LVTPC when it delivered the PMI; harmless on the other parts.
        lvtpc.unmask();
        return overflowed;
    }

    @Override
    public long cyclesUntilOverflow(SignalRates rates, int cpl) {
        LocalApicLvtpc.checkCpl(cpu, cpl);
        long soonest = Long.MAX_VALUE;
        if ((select[0] & EVTSEL_EN) == 0) {
            return soonest;
        }
        for (int i = 0; i < COUNTERS; i++) {
            if (countsAt(i, cpl)) {
                long rate = rates.perKilocycle(signal[i]);
                if (rate > 0) {
                    soonest = Math.min(soonest, SignalRates.cyclesFor(COUNTER_WRAP - counter[i], rate, residue[i]));
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
        if (cycles == 0 || (select[0] & EVTSEL_EN) == 0) {
            return;
        }
        for (int i = 0; i < COUNTERS; i++) {
            if (countsAt(i, cpl)) {
                long gained = SignalRates.advance(rates.perKilocycle(signal[i]), cycles, residue, i);
                long value = counter[i] + gained;
                if (value >= COUNTER_WRAP) {
                    // Wrapped past 0xFF_FFFF_FFFF; no freeze, the counter keeps counting.
                    if ((select[i] & EVTSEL_INT) != 0) {
                        pmiPending = true;
                    }
                }
                counter[i] = value & COUNTER_MASK;
            }
        }
    }

    /** Counter {@code i} counts at {@code cpl} if its USR/OS bit admits it and its event has a signal. */
    private boolean countsAt(int i, int cpl) {
        long privilege = cpl == 0 ? EVTSEL_OS : EVTSEL_USR;
        return (select[i] & privilege) != 0 && signal[i] >= 0;
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
        return String.format("P6 PMU cpu %d [PerfCtr0=0x%010x PerfCtr1=0x%010x PerfEvtSel0=0x%08x PerfEvtSel1=0x%08x"
                + " LVTPC=0x%05x%s]", cpu, counter[0], counter[1], select[0], select[1], lvtpc.read(),
                pmiPending ? " PMI pending" : "");
    }
}
