package org.hyperprof.vpmu.kit;

import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.vpmu.PolicyHost;

/**
 * The PMU registers of the host's model as a policy looks them up: the counter, control and
 * interrupt registers with their power-on values, and the model's write semantics, learnt from a
 * register file of the model attached to no CPU (so learning costs nothing). Only the constructor
 * allocates.
 */
public final class ModelRegisters {
    private final PolicyHost host;
    private final PhysicalPmu scratch;
    private final int[] counters;
    private final int[] controls;
    private final int[] interrupts;
    private final long[] powerOnCounters;
    private final long[] powerOnControls;
    private final long[] powerOnInterrupts;

    public ModelRegisters(PolicyHost host) {
        this.host = host;
        this.scratch = host.newPmuContext();
        // Copies: models may hand out their own arrays or build new ones on each call.
        this.counters = scratch.counterRegisters().clone();
        this.controls = scratch.controlRegisters().clone();
        this.interrupts = scratch.interruptRegisters().clone();
        this.powerOnCounters = readAll(counters);
        this.powerOnControls = readAll(controls);
        this.powerOnInterrupts = readAll(interrupts);
    }

    private long[] readAll(int[] registers) {
        long[] values = new long[registers.length];
        for (int r = 0; r < registers.length; r++) {
            values[r] = scratch.read(registers[r]);
        }
        return values;
    }

    public int counters() {
        return counters.length;
    }

    public int controls() {
        return controls.length;
    }

    public int interrupts() {
        return interrupts.length;
    }

    /** The register number of counter {@code i}. */
    public int counter(int i) {
        return counters[i];
    }

    public int control(int k) {
        return controls[k];
    }

    public int interrupt(int j) {
        return interrupts[j];
    }

    /** Which counter {@code register} is, or -1. */
    public int counterIndex(int register) {
        return indexOf(counters, register);
    }

    public int controlIndex(int register) {
        return indexOf(controls, register);
    }

    public int interruptIndex(int register) {
        return indexOf(interrupts, register);
    }

    /** The power-on values of every counter, a copy the policy may keep. */
    public long[] powerOnCounters() {
        return powerOnCounters.clone();
    }

    public long[] powerOnControls() {
        return powerOnControls.clone();
    }

    public long[] powerOnInterrupts() {
        return powerOnInterrupts.clone();
    }

    /** What the model's register holds after a write of {@code value} (reserved bits dropped, P6 sign extension). */
    public long written(int register, long value) {
        scratch.write(register, value);
        return scratch.read(register);
    }

    /** The model's own read, for a register the policy keeps no copy of: the model's "no such register" error. */
    public long read(int register) {
        return scratch.read(register);
    }

    /** The model's own write, for a register the policy keeps no copy of: the model's "no such register" error. */
    public void write(int register, long value) {
        scratch.write(register, value);
    }

    /** @throws IllegalArgumentException when the model has no counter {@code counter} */
    public void checkCounter(int counter) {
        if (counter < 0 || counter >= counters.length) {
            throw new IllegalArgumentException("counter " + counter + " does not exist: the " + host.model().cpuType()
                    + " model has " + counters.length + " (0 to " + (counters.length - 1) + ")");
        }
    }

    private static int indexOf(int[] registers, int register) {
        for (int r = 0; r < registers.length; r++) {
            if (registers[r] == register) {
                return r;
            }
        }
        return -1;
    }
}
