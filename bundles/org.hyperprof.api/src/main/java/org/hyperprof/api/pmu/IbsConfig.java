package org.hyperprof.api.pmu;

/**
 * AMD Instruction-Based Sampling settings, as Xenoprof's {@code xenoprof_ibs_counter} carries them.
 *
 * @param opEnabled     op sampling on
 * @param fetchEnabled  fetch sampling on
 * @param maxCntFetch   fetch sampling period (the hardware keeps {@code maxCntFetch >> 4})
 * @param maxCntOp      op sampling period (the hardware keeps {@code maxCntOp >> 4})
 * @param randomize     randomise the low bits of the fetch counter
 * @param dispatchedOps count dispatched ops rather than clock cycles, where supported
 */
public record IbsConfig(boolean opEnabled, boolean fetchEnabled, long maxCntFetch, long maxCntOp, boolean randomize,
        boolean dispatchedOps) {
}
