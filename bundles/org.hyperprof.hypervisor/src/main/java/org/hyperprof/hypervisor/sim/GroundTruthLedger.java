package org.hyperprof.hypervisor.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;

/**
 * Exact signal totals per (vCPU slot, function): every cycle the machine runs adds {@code cycles ×
 * rate} thousandths of an event to its row. Rows are {@code slot * functions + function}, in
 * primitive arrays, so that adding a slice needs no lookup. A row nearly always runs at one set of
 * rates, so its cycles at the first rates it saw are only summed, and multiplied out when the
 * totals are read: the products are the same (integer arithmetic), one addition per slice instead
 * of one multiply-add per signal.
 */
final class GroundTruthLedger {
    private final SymbolCatalog catalog;
    private final int functions;
    private final int[] slotDomid;
    private final int[] slotVcpu;
    private final long[] milli;
    private final long[] elapsed;
    /** The rates each row's {@link #pending} cycles ran at (compared by identity), null while it has none. */
    private final long[][] pendingRates;
    /** Cycles per row at its {@link #pendingRates}, not yet in {@link #milli}. */
    private final long[] pending;

    /**
     * @param slotDomid the domain of each vCPU slot (idle vCPUs carry {@link GroundTruth#IDLE_DOMAIN})
     * @param slotVcpu  the vCPU number of each slot (an idle vCPU is numbered by its physical CPU)
     */
    GroundTruthLedger(SymbolCatalog catalog, int[] slotDomid, int[] slotVcpu) {
        this.catalog = catalog;
        this.functions = catalog.size();
        this.slotDomid = slotDomid.clone();
        this.slotVcpu = slotVcpu.clone();
        int rows = Math.multiplyExact(slotDomid.length, functions);
        this.milli = new long[Math.multiplyExact(rows, Signal.COUNT)];
        this.elapsed = new long[rows];
        this.pendingRates = new long[rows][];
        this.pending = new long[rows];
    }

    int row(int slot, int function) {
        return slot * functions + function;
    }

    /** Adds {@code cycles} of code with {@code rates} (events per 1000 cycles) to a row. */
    void add(int row, long cycles, long[] rates) {
        elapsed[row] += cycles;
        long[] at = pendingRates[row];
        if (at == rates) {
            pending[row] += cycles;
        } else if (at == null) {
            pendingRates[row] = rates;
            pending[row] = cycles;
        } else {
            multiplyIn(row, cycles, rates);
        }
    }

    private void multiplyIn(int row, long cycles, long[] rates) {
        int base = row * Signal.COUNT;
        for (int i = 0; i < Signal.COUNT; i++) {
            milli[base + i] += cycles * rates[i];
        }
    }

    /** Adds totals already made: {@code milli} thousandths of an event per signal over {@code cycles}. */
    void addTotals(int row, long[] milli, long cycles) {
        int base = row * Signal.COUNT;
        for (int i = 0; i < Signal.COUNT; i++) {
            this.milli[base + i] += milli[i];
        }
        elapsed[row] += cycles;
    }

    /** Elapsed cycles of a row (halted time included), for tests and statistics. */
    long elapsed(int row) {
        return elapsed[row];
    }

    void reset() {
        Arrays.fill(milli, 0);
        Arrays.fill(elapsed, 0);
        Arrays.fill(pendingRates, null);
        Arrays.fill(pending, 0);
    }

    /** Every row that ran at least one cycle since the last reset, idle-domain rows included. */
    GroundTruth snapshot() {
        List<GroundTruth.Row> rows = new ArrayList<>();
        for (int slot = 0; slot < slotDomid.length; slot++) {
            for (int f = 0; f < functions; f++) {
                int row = row(slot, f);
                if (elapsed[row] == 0) {
                    continue;
                }
                long[] totals = Arrays.copyOfRange(milli, row * Signal.COUNT, (row + 1) * Signal.COUNT);
                long[] at = pendingRates[row];
                for (int i = 0; at != null && i < Signal.COUNT; i++) {
                    totals[i] += pending[row] * at[i];
                }
                rows.add(new GroundTruth.Row(slotDomid[slot], slotVcpu[slot], CpuMode.ofCode(catalog.mode(f)),
                        catalog.image(f).name(), catalog.image(f).kind(), catalog.name(f), totals));
            }
        }
        return new GroundTruth(rows);
    }
}
