package org.hyperprof.vpmu.kit;

import java.util.Arrays;

/**
 * The control and interrupt registers each guest vCPU sees, by slot, for a policy that keeps them
 * apart from what the hardware holds: they start at the model's power-on values and hold what the
 * guest last wrote. Grows with the session's slots; never allocates otherwise.
 */
public final class VirtualControls {
    private final ModelRegisters model;
    private final int nk;
    private final int ni;
    private final long[] powerOnControl;
    private final long[] powerOnInterrupt;
    private long[] control = new long[0];
    private long[] interrupt = new long[0];

    public VirtualControls(ModelRegisters model) {
        this.model = model;
        this.nk = model.controls();
        this.ni = model.interrupts();
        this.powerOnControl = model.powerOnControls();
        this.powerOnInterrupt = model.powerOnInterrupts();
    }

    /** Holds {@code to} slots, slots {@code from} and above at power-on. */
    public void grow(int from, int to) {
        control = Arrays.copyOf(control, to * nk);
        interrupt = Arrays.copyOf(interrupt, to * ni);
        for (int s = from; s < to; s++) {
            System.arraycopy(powerOnControl, 0, control, s * nk, nk);
            System.arraycopy(powerOnInterrupt, 0, interrupt, s * ni, ni);
        }
    }

    /** Control register {@code k} as slot {@code s} sees it. */
    public long control(int s, int k) {
        return control[s * nk + k];
    }

    public void setControl(int s, int k, long value) {
        control[s * nk + k] = value;
    }

    /** Interrupt register {@code j} as slot {@code s} sees it. */
    public long interrupt(int s, int j) {
        return interrupt[s * ni + j];
    }

    public void setInterrupt(int s, int j, long value) {
        interrupt[s * ni + j] = value;
    }

    /**
     * What slot {@code s} reads from a register that is no counter: its control or interrupt
     * register; any other register is the model's "no such register" error.
     */
    public long read(int s, int register) {
        int k = model.controlIndex(register);
        if (k >= 0) {
            return control(s, k);
        }
        int j = model.interruptIndex(register);
        if (j >= 0) {
            return interrupt(s, j);
        }
        return model.read(register);
    }
}
