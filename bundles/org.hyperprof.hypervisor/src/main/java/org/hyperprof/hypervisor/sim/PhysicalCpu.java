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

    PhysicalCpu(int index, PhysicalPmu pmu, Prng rng, VirtualCpu idleVcpu) {
        this.index = index;
        this.pmu = pmu;
        this.rng = rng;
        this.idleVcpu = idleVcpu;
        this.current = idleVcpu;
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
