package org.hyperprof.profiler;

import org.hyperprof.api.pmu.IbsConfig;

/**
 * What the IBS capability word Xenoprof's get_ibs_caps returns (CPUID 0x8000001B EAX) must hold
 * for the IBS events asked for: the driver offered IBS fetch and op sampling only where the CPU
 * has them, and counting dispatched ops (bit 0 of the ibs_op unit mask) only where it can.
 */
final class IbsCaps {
    /** IBSFFV: the capability bits are valid. */
    static final long VALID = 1L << 0;
    static final long FETCH_SAMPLING = 1L << 1;
    static final long OP_SAMPLING = 1L << 2;
    /** OpCnt: IbsOpCntCtl (count dispatched ops) is supported. */
    static final long OP_COUNT = 1L << 4;

    private IbsCaps() {
    }

    /** Why {@code caps} cannot serve {@code ibs}, and what to do; null when it can. */
    static String missing(long caps, IbsConfig ibs) {
        if ((caps & VALID) == 0) {
            return "The CPU has no Instruction-Based Sampling (get_ibs_caps returned 0x" + Long.toHexString(caps)
                    + "), so the IBS_FETCH_* and IBS_OP_* events cannot be sampled; load a family 10h host"
                    + " (hp:load --cpu x86-64/family10) or count events of this CPU's counters (hp:events)";
        }
        if (ibs.fetchEnabled() && (caps & FETCH_SAMPLING) == 0) {
            return String.format("The CPU has no IBS fetch sampling (capabilities 0x%x, bit 1 clear); drop the"
                    + " IBS_FETCH_* events", caps);
        }
        if (ibs.opEnabled() && (caps & OP_SAMPLING) == 0) {
            return String.format("The CPU has no IBS op sampling (capabilities 0x%x, bit 2 clear); drop the"
                    + " IBS_OP_* events", caps);
        }
        if (ibs.opEnabled() && ibs.dispatchedOps() && (caps & OP_COUNT) == 0) {
            return String.format("IBS op dispatched-op counting is not supported by this CPU (capabilities 0x%x:"
                    + " OpCnt, bit 4, is clear), and the unit mask 0x01 of the IBS_OP_* events asks for it (OProfile's"
                    + " default); give unit mask 0 to count cycles (e.g. IBS_OP_ALL:%d:0:1:1), or load a host"
                    + " whose family 10h CPU has OpCnt (hp:load --cpu x86-64/family10 --pmu-option"
                    + " ibs.caps=0x1f)", caps, ibs.maxCntOp());
        }
        return null;
    }
}
