package org.hyperprof.hypervisor.sim;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.hypervisor.xenoprof.XenoprofBuffer;

/**
 * One guest vCPU's own profiler: the guest kernel's picture of its PMU and its sample buffer.
 *
 * <p>The guest drives its virtual PMU with the host model's own driver: the steps ({@code setup},
 * {@code start}, {@code checkCounters}) run on {@link #picture}, a register file of the host's
 * model private to the guest, and every register the driver changed is then written to the virtual
 * PMU through the counter-virtualization policy, one access at a time, as a guest kernel issues
 * WRMSRs. Its PMU interrupt handler reads its counters through the policy into the picture, lets
 * the model's own overflow rule find what overflowed, logs one sample per overflowed counter at the
 * program counter the guest could see, and writes back what the re-arm changed plus the interrupt
 * routing (Linux rewrites LVTPC at the end of its PMI handler).
 *
 * <p>Not thread-safe: the simulation thread owns it. The interrupt path does not allocate.
 */
final class GuestPmu implements OverflowSink {
    static final int NEW = 0;
    static final int ACTIVE = 1;
    /** The policy offers no PMU (CPUID leaf 0xA reads empty): the profiler never started. */
    static final int NO_PMU = 2;
    /** The policy refused one of the driver's writes: the profiler stopped at start. */
    static final int REFUSED = 3;

    final PhysicalPmu picture;
    final CounterConfig[] configs;
    final XenoprofBuffer buffer;
    final int handlerFunction;
    final long handlerCycles;
    /** The registers of the counters the guest uses (a guest driver programs only those, as Linux perf does). */
    final int[] counterRegisters;
    /**
     * The control registers of those counters when the model pairs one control register with each
     * counter (P6, AMD), else every control register (global controls, P4's CCCR/ESCR wiring).
     */
    final int[] controlRegisters;
    final int[] interruptRegisters;
    /** Counter values read at the start of the handler, to write back only what the re-arm changed. */
    private final long[] readValues;
    /** Counters the last {@code checkCounters} found overflowed. */
    final int[] overflowed;
    int overflowCount;

    int state = NEW;
    String refusal;

    /** A virtual interrupt waits for the vCPU to run guest code. */
    boolean pending;
    /** The program counter and Xenoprof mode (0 user, 1 kernel) the guest sees for the pending interrupt. */
    long pendingPc;
    int pendingMode;

    long samples;
    long samplesLost;
    long samplesDiscarded;
    long interruptsDelivered;
    long interruptsCoalesced;
    long interruptsSpurious;
    long accesses;
    long accessesTrapped;

    GuestPmu(PhysicalPmu picture, CounterConfig[] configs, int vcpu, int bufferSlots, int handlerFunction,
            long handlerCycles) {
        this.picture = picture;
        this.configs = configs;
        this.buffer = new XenoprofBuffer(vcpu, bufferSlots);
        this.handlerFunction = handlerFunction;
        this.handlerCycles = handlerCycles;
        int[] counters = picture.counterRegisters();
        int[] controls = picture.controlRegisters();
        boolean known = true;
        for (CounterConfig c : configs) {
            known &= c.counter() >= 0 && c.counter() < counters.length;
        }
        boolean paired = known && controls.length == counters.length;
        int[] usedCounters = new int[configs.length];
        int[] usedControls = new int[configs.length];
        for (int i = 0; i < configs.length && known; i++) {
            usedCounters[i] = counters[configs[i].counter()];
            usedControls[i] = paired ? controls[configs[i].counter()] : 0;
        }
        // A model whose counter numbers are not positions in its register list: the driver touches all.
        this.counterRegisters = known ? usedCounters : counters;
        this.controlRegisters = paired ? usedControls : controls;
        this.interruptRegisters = picture.interruptRegisters();
        this.readValues = new long[counterRegisters.length];
        this.overflowed = new int[counters.length + 1];
    }

    /** The model's driver programs the picture: reserve, set up the guest's counters, start. */
    void program() {
        picture.reserve();
        picture.setup(configs.clone());
        picture.start();
    }

    void noteRead(int i, long value) {
        readValues[i] = value;
    }

    long readValue(int i) {
        return readValues[i];
    }

    @Override
    public void overflow(int counter) {
        if (overflowCount < overflowed.length) {
            overflowed[overflowCount++] = counter;
        }
    }

    /** Logs one of the guest's own samples into its buffer: written or lost to a full (or scribbled) ring. */
    void log(long pc, int mode, int counter) {
        samples++;
        int r = buffer.add(pc, mode, counter);
        if (r == XenoprofBuffer.ADDED) {
            buffer.countSampleMode(mode);
        } else if (r == XenoprofBuffer.FULL) {
            buffer.countLost();
            samplesLost++;
        } else {
            buffer.countCorrupted();
            samplesLost++;
        }
    }
}
