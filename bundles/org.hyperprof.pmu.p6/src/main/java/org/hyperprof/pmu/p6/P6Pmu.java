package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.p6.P6Registers.COUNTERS;
import static org.hyperprof.pmu.p6.P6Registers.COUNTER_MASK;
import static org.hyperprof.pmu.p6.P6Registers.COUNTER_WRAP;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_RESERVED_21;
import static org.hyperprof.pmu.p6.P6Registers.EVTSEL_WRITABLE;
import static org.hyperprof.pmu.p6.P6Registers.LVTPC;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR0;
import static org.hyperprof.pmu.p6.P6Registers.PERFCTR1;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL0;
import static org.hyperprof.pmu.p6.P6Registers.PERFEVTSEL1;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EN;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_EVENT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_INT;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_OS;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.EVTSEL_USR;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.x86.PerfEvtSelPmu;

/**
 * The P6 performance-monitoring registers of one physical CPU: PerfCtr0/1 (MSR 0xC1/0xC2),
 * PerfEvtSel0/1 (MSR 0x186/0x187) and the local APIC LVTPC entry, with the driver steps of
 * OProfile's 2.6.1x P6 driver as Xenoprof runs them (the x86 sequence, {@link PerfEvtSelPmu}).
 *
 * <p>What the simulation counts: a counter advances by the signal its select's event code maps to
 * in the model's event table, when PerfEvtSel0.EN is set and its own USR/OS bits admit the current
 * CPL. The E, PC, INV and CMASK fields are stored and read back but do not change counting,
 * because the simulated machine emits event counts, not per-cycle conditions.
 */
final class P6Pmu extends PerfEvtSelPmu {
    /** Event code (0-255) to the Signal ordinal it counts, -1 for a code the table lacks; shared, read-only. */
    private final int[] signalByCode;

    // Architectural state. Power-on: counters and selects zero, LVTPC masked.
    private final long[] counter = new long[COUNTERS];
    private final long[] select = new long[COUNTERS];

    // Simulation state derived from the registers.
    /** Signal ordinal each counter's select names, or -1. */
    private final int[] signal = {-1, -1};
    /** Thousandths of an event each counter carries between advances (see SignalRates.advance). */
    private final long[] residue = new long[COUNTERS];

    P6Pmu(int cpu, PmuModel model, int[] signalByCode, boolean autoMask) {
        // Pentium M: the APIC sets LVTPC.mask when it delivers a PMI.
        super(cpu, model, new int[] {PERFCTR0, PERFCTR1}, new int[] {PERFEVTSEL0, PERFEVTSEL1}, autoMask);
        this.signalByCode = signalByCode;
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

    // ------------------------------------------------------------------ driver hooks

    @Override
    protected String countersName() {
        return "the P6 counters";
    }

    @Override
    protected String counterRange() {
        return "the P6 has counters 0 and 1";
    }

    @Override
    protected String preloadRule() {
        return "the counter is preloaded through 32 bits with -count";
    }

    @Override
    protected String eventWanted() {
        return "a P6 event with a code 0x00..0xFF";
    }

    /** Bit 21 is reserved: OProfile keeps it when it clears a select. */
    @Override
    protected long keptOnClear() {
        return EVTSEL_RESERVED_21;
    }

    /**
     * Faithful to the 2.6.1x driver: only PerfEvtSel0 gets EN, and only when counter 0 is in use,
     * so a session that configured counter 1 alone never counts on a real P6.
     */
    @Override
    protected void enableCounters() {
        if (configured(0)) {
            write(PERFEVTSEL0, read(PERFEVTSEL0) | EVTSEL_EN);
        }
    }

    @Override
    protected void disableCounters() {
        write(PERFEVTSEL0, read(PERFEVTSEL0) & ~EVTSEL_EN);
    }

    // ------------------------------------------------------------------ counting

    @Override
    protected long cyclesUntilNextOverflow(SignalRates rates, int cpl) {
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
    protected void advanceCounters(long cycles, SignalRates rates, int cpl) {
        if ((select[0] & EVTSEL_EN) == 0) {
            return;
        }
        for (int i = 0; i < COUNTERS; i++) {
            if (countsAt(i, cpl)) {
                long gained = SignalRates.advance(rates.perKilocycle(signal[i]), cycles, residue, i);
                long value = counter[i] + gained;
                if (value >= COUNTER_WRAP) {
                    // Wrapped past 0xFF_FFFF_FFFF; no freeze, the counter keeps counting.
                    if ((select[i] & EVTSEL_INT) != 0) {
                        raisePmi();
                    }
                }
                counter[i] = value & COUNTER_MASK;
            }
        }
    }

    /** Setup restarts the counter: the fraction of an event it carried goes too. */
    @Override
    protected void startAfresh(int i) {
        residue[i] = 0;
    }

    /** Counter {@code i} counts at {@code cpl} if its USR/OS bit admits it and its event has a signal. */
    private boolean countsAt(int i, int cpl) {
        long privilege = cpl == 0 ? EVTSEL_OS : EVTSEL_USR;
        return (select[i] & privilege) != 0 && signal[i] >= 0;
    }

    @Override
    public String toString() {
        return String.format("P6 PMU cpu %d [PerfCtr0=0x%010x PerfCtr1=0x%010x PerfEvtSel0=0x%08x PerfEvtSel1=0x%08x"
                + " LVTPC=0x%05x%s]", cpu, counter[0], counter[1], select[0], select[1], lvtpc.read(),
                pmiPending() ? " PMI pending" : "");
    }
}
