package org.hyperprof.hypervisor.sim;

import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.hypervisor.sim.scenario.ScenarioParser;

/**
 * A stretch of code a physical CPU runs: one function at one PC, in one mode, with constant signal
 * rates, for {@code remaining} cycles. Preallocated per physical CPU and reused: the simulation
 * never allocates one per slice.
 */
final class Slice {
    /** Workload code of the current vCPU (consumes its busy burst). */
    static final int WORK = 0;
    /** The scheduler switching vCPUs; when it ends, {@link #switchTo} becomes current. */
    static final int SWITCH = 1;
    /** The NMI handler's own work after a PMU interrupt; NMIs stay blocked until it ends. */
    static final int NMI = 2;
    /** Hypervisor work a counter-virtualization policy charged. */
    static final int CHARGE = 3;
    /** The idle loop's unhalted stretch before halting. */
    static final int IDLE = 4;
    /** A halted physical CPU: no signal counts. */
    static final int HALT = 5;
    /**
     * The PMU handler run at a poll point (postponed interrupts handled by polling): like the NMI
     * handler's work, but no interrupt was taken, so it ends without a return from interrupt.
     */
    static final int POLL = 6;
    /** A guest's own PMU interrupt handler (guest kernel code) running for a virtual interrupt. */
    static final int GUEST_PMI = 7;
    /**
     * The hypervisor emulating a guest's trapped PMU register accesses (an MSR intercept for HVM, an
     * emulated privileged instruction for PV): hypervisor work with entry and exit like any other.
     */
    static final int TRAP = 8;

    int kind;
    int row;
    int mode;
    int cpl;
    SignalRates rates;
    long[] rateArray;
    long pc;
    long remaining;
    /**
     * The return addresses of the callers, innermost first: {@link #depth} of them, drawn only when
     * read ({@link #callers()}), since few slices are sampled.
     */
    private final long[] stack = new long[ScenarioParser.MAX_CALLERS];
    int depth;
    /** The workload entry's caller ranges (start, size, reciprocal per caller), or null: none left to draw. */
    private long[] callerRanges;
    /** The stream position the first caller's draw follows. */
    private long callerDraws;
    VirtualCpu switchTo;
    /** The code runs with external interrupts enabled (PowerPC MSR[EE]=1). */
    boolean ee;
    /** The hypervisor polls the PMU's alert when this slice ends (a poll point). */
    boolean poll;

    /** No caller to draw: a slice of hypervisor work or a handler (depth 0). */
    void noCallers() {
        depth = 0;
        callerRanges = null;
    }

    /**
     * The {@code depth} callers of {@code ranges} (a workload entry's draws: pc range, then one
     * range per caller), drawn from stream position {@code position} when read.
     */
    void callersFrom(long[] ranges, int depth, long position) {
        this.depth = depth;
        callerRanges = ranges;
        callerDraws = position;
    }

    /**
     * The return addresses, drawn now if not yet: the same values as drawing them when the slice
     * was made (the draws of a counter-based stream depend only on their position in it).
     */
    long[] callers() {
        long[] d = callerRanges;
        if (d != null) {
            long position = callerDraws;
            int i = 0;
            for (int k = 3; k < d.length; k += 3, i++) {
                if (d[k + 1] > 0) {
                    // A return address lies inside the caller past its first byte (a call instruction precedes it).
                    stack[i] = d[k] + Prng.drawAfter(position, d[k + 1], d[k + 2]);
                    position += Prng.GAMMA;
                } else {
                    stack[i] = d[k] - 1;
                }
            }
            callerRanges = null;
        }
        return stack;
    }

    boolean hypervisor() {
        return mode == 2;
    }

    /**
     * Code of the guest itself (its workload's user and kernel code, or its own PMU handler), as
     * opposed to hypervisor work (which a workload also contains: the hypercalls it makes).
     */
    boolean guestCode() {
        return (kind == WORK || kind == GUEST_PMI) && mode != 2;
    }
}
