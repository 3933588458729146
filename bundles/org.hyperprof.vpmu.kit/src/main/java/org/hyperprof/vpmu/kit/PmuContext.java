package org.hyperprof.vpmu.kit;

import java.util.Arrays;
import java.util.Objects;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.PolicyHost;

/**
 * The PMU registers of one vCPU as a policy keeps them while the vCPU's counters are not on the
 * hardware: every counter, control and interrupt register of the host's model, in that order.
 * Saving reads each register of a physical PMU; restoring writes counters first, then controls,
 * then interrupt registers, so that nothing counts with a half-restored setup. Both return how many
 * registers they accessed, which is what the policy is charged for.
 *
 * <p>Not thread-safe; no method but the constructor allocates.
 */
public final class PmuContext {
    private final int[] registers;
    private final long[] values;
    private final long[] powerOn;
    private final int counters;
    private final int controls;

    /**
     * A context holding the power-on values of {@code fresh} (a register file no one has written,
     * such as {@link PolicyHost#newPmuContext()}).
     */
    public PmuContext(PhysicalPmu fresh) {
        Objects.requireNonNull(fresh, "fresh: a register file of the host's model");
        int[] c = fresh.counterRegisters();
        int[] k = fresh.controlRegisters();
        int[] i = fresh.interruptRegisters();
        counters = c.length;
        controls = k.length;
        registers = new int[c.length + k.length + i.length];
        System.arraycopy(c, 0, registers, 0, c.length);
        System.arraycopy(k, 0, registers, c.length, k.length);
        System.arraycopy(i, 0, registers, c.length + k.length, i.length);
        values = new long[registers.length];
        for (int r = 0; r < registers.length; r++) {
            values[r] = fresh.read(registers[r]);
        }
        powerOn = values.clone();
    }

    /** Number of registers held. */
    public int size() {
        return registers.length;
    }

    /** Number of counter registers (positions 0 to {@code counters() - 1}). */
    public int counters() {
        return counters;
    }

    /** Number of control registers (the positions after the counters). */
    public int controls() {
        return controls;
    }

    /** The register number at a position. */
    public int register(int position) {
        return registers[position];
    }

    /** The position of a register, or -1 when the model has no such PMU register. */
    public int positionOf(int register) {
        for (int p = 0; p < registers.length; p++) {
            if (registers[p] == register) {
                return p;
            }
        }
        return -1;
    }

    public boolean isCounter(int position) {
        return position >= 0 && position < counters;
    }

    public boolean isControl(int position) {
        return position >= counters && position < counters + controls;
    }

    public boolean isInterrupt(int position) {
        return position >= counters + controls && position < registers.length;
    }

    /** The value held at a position. */
    public long value(int position) {
        return values[position];
    }

    /** Sets the value held at a position. */
    public void set(int position, long value) {
        values[position] = value;
    }

    /** The power-on value of the register at a position. */
    public long powerOn(int position) {
        return powerOn[position];
    }

    /** Whether some control register holds other than its power-on value: the vCPU has set its counters up. */
    public boolean controlsSet() {
        for (int p = counters; p < counters + controls; p++) {
            if (values[p] != powerOn[p]) {
                return true;
            }
        }
        return false;
    }

    /** Reads every register of {@code pmu} into the context; returns the reads made. */
    public int save(PhysicalPmu pmu) {
        for (int p = 0; p < registers.length; p++) {
            values[p] = pmu.read(registers[p]);
        }
        return registers.length;
    }

    /**
     * Reads only the counter registers of {@code pmu} into the context; returns the reads made.
     * Control and interrupt registers change only through the guest's own (intercepted) writes, which
     * the policy records in the context as they happen, so a save need not read them back: Xen's
     * vPMU saves the counter MSRs and keeps the controls it emulated. It also means a control another
     * party rewrote on the hardware meanwhile (Xenoprof's driver clearing every event select at
     * {@code setup_events}) is put right at the next restore.
     */
    public int saveCounters(PhysicalPmu pmu) {
        for (int p = 0; p < counters; p++) {
            values[p] = pmu.read(registers[p]);
        }
        return counters;
    }

    /** Writes every register into {@code pmu}: counters, then controls, then interrupt registers; returns the writes made. */
    public int restore(PhysicalPmu pmu) {
        for (int p = 0; p < registers.length; p++) {
            pmu.write(registers[p], values[p]);
        }
        return registers.length;
    }

    /** Writes the power-on value of every control register into {@code pmu} (stops counting); returns the writes made. */
    public int quiet(PhysicalPmu pmu) {
        for (int p = counters; p < counters + controls; p++) {
            pmu.write(registers[p], powerOn[p]);
        }
        return controls;
    }

    /** Writes the context's control registers into {@code pmu} (resumes counting); returns the writes made. */
    public int restoreControls(PhysicalPmu pmu) {
        for (int p = counters; p < counters + controls; p++) {
            pmu.write(registers[p], values[p]);
        }
        return controls;
    }

    /** Back to the power-on values. */
    public void reset() {
        System.arraycopy(powerOn, 0, values, 0, values.length);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("PmuContext[");
        for (int p = 0; p < registers.length; p++) {
            b.append(p == 0 ? "" : ", ").append(String.format("0x%x=0x%x", registers[p], values[p]));
        }
        return b.append(']').toString();
    }

    /** Same registers and values. */
    public boolean sameAs(PmuContext other) {
        return Arrays.equals(registers, other.registers) && Arrays.equals(values, other.values);
    }
}
