package org.hyperprof.hypervisor.sim;

import org.hyperprof.api.pmu.PhysicalPmu;

/**
 * A physical CPU: its clock, its PMU, the vCPU current on it and a stack of slices. The bottom of
 * the stack is the current workload slice; hypervisor work inserted on top of it (an NMI handler,
 * a context switch, policy charges) runs first, and the interrupted slice resumes after it.
 */
final class PhysicalCpu {
    static final int STACK_CAPACITY = 32;

    final int index;
    final PhysicalPmu pmu;
    final Prng rng;
    final VirtualCpu idleVcpu;
    final Slice[] stack = new Slice[STACK_CAPACITY];
    /** The PMU's interrupt is taken only while the running code has MSR[EE]=1 (PowerPC). */
    final boolean gated;

    long now;
    VirtualCpu current;
    /** Whether the current vCPU is in the hypervisor (entry hook called, exit hook not yet). */
    boolean inHypervisor = true;
    long timesliceEnd;
    /** The idle vCPU just became current: run the idle loop's unhalted stretch before halting. */
    boolean idleFresh;
    int depth;
    /** Stack index of the running NMI handler slice, -1 when NMIs are not blocked. */
    int nmiHandlerAt = -1;
    /** The running NMI handler has already seen a PMU interrupt asserted behind it (counted once). */
    boolean blockedNoted;
    /** An interrupt was taken and no cycle has run since: the next one waits for progress. */
    boolean interruptJustTaken;
    long haltedCycles;
    /** What the scheduler last picked for this CPU, and at which count of scheduling changes. */
    VirtualCpu picked;
    long pickedAt = -1;

    // The PMU alert latched and not yet handled: who ran when it latched (the ground truth that
    // postponed and misattributed samples are judged against).
    /** An alert is latched (the PMU's {@code alertPending()} turned true) and no handler has run for it. */
    boolean latched;
    /** When it latched. */
    long latchAt;
    /** The vCPU current when it latched. */
    VirtualCpu latchVcpu;
    /** The Xenoprof mode of the code that ran when it latched. */
    int latchMode;
    /** It latched in code with EE=0 on a gated PMU: its interrupt is postponed. */
    boolean latchPostponed;

    PhysicalCpu(int index, PhysicalPmu pmu, Prng rng, VirtualCpu idleVcpu) {
        this.index = index;
        this.pmu = pmu;
        this.rng = rng;
        this.idleVcpu = idleVcpu;
        this.current = idleVcpu;
        this.gated = pmu.gatedByExternalInterruptEnable();
        for (int i = 0; i < stack.length; i++) {
            stack[i] = new Slice();
        }
    }

    Slice top() {
        return stack[depth - 1];
    }

    Slice push() {
        if (depth == stack.length) {
            throw new IllegalStateException("hypervisor work on pCPU " + index + " is nested " + depth
                    + " slices deep: a counter-virtualization policy keeps charging work from inside charged work");
        }
        return stack[depth++];
    }
}
