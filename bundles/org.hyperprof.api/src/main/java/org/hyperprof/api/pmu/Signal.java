package org.hyperprof.api.pmu;

/**
 * Architecture-neutral micro-architectural signals that simulated workloads emit and that PMU
 * events count. A model's event table maps each of its events to one signal. The ordinal is used
 * as an index into primitive arrays ({@link SignalRates}), so new signals are only ever appended.
 */
public enum Signal {
    /** Unhalted core cycles. Halted (idle) time emits none. */
    CYCLES,
    /** Instructions retired. */
    INSTRUCTIONS,
    /** Micro-operations retired. */
    UOPS,
    /** Instructions decoded. */
    INSTRUCTIONS_DECODED,
    /** Branch instructions retired. */
    BRANCHES,
    /** Mispredicted branches retired. */
    BRANCH_MISSES,
    /** Taken branches retired. */
    BRANCHES_TAKEN,
    /** Data memory references (loads and stores). */
    MEMORY_REFERENCES,
    /** Lines allocated in the L1 data cache (L1D misses). */
    L1D_MISSES,
    /** Instruction fetch misses in the L1 instruction cache. */
    L1I_MISSES,
    /** Instruction TLB misses. */
    ITLB_MISSES,
    /** Data TLB misses. */
    DTLB_MISSES,
    /** Requests that reach the L2 cache. */
    L2_REQUESTS,
    /** Lines allocated in L2 (L2 misses). */
    L2_MISSES,
    /** Bus transactions. */
    BUS_TRANSACTIONS,
    /** Floating-point operations. */
    FP_OPERATIONS,
    /** Cycles the divider is busy. */
    DIV_BUSY_CYCLES,
    /** Resource-related stall cycles. */
    RESOURCE_STALLS,
    /** Hardware interrupts received. */
    HW_INTERRUPTS,
    /** Cycles with outstanding data cache misses. */
    L1D_MISS_OUTSTANDING_CYCLES;

    /** Number of signals: the length of every per-signal primitive array. */
    public static final int COUNT = values().length;
}
