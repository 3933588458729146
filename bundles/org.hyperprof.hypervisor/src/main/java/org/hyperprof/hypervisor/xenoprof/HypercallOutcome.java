package org.hyperprof.hypervisor.xenoprof;

import org.hyperprof.api.xenoprof.Errno;

/**
 * What one XENOPROF hypercall did, as its handler ({@link XenoprofSession}, {@link CounterControl})
 * answers it: the value Xen returns, and for the explanation {@link XenoprofCore#explain} gives,
 * why a failed call failed and what to do next, or what a successful call changed. A {@code stop}
 * also names the vCPUs that get {@code VIRQ_XENOPROF} to flush their buffers, which the core sends
 * after it lets go of its lock.
 *
 * @param result       the hypercall's return value: 0 or more on success, a negated errno on failure
 * @param why          why it failed, or null (the operation's rule is said instead)
 * @param next         the next step after a failure, or null (the session's next step is said instead)
 * @param effect       what a successful call changed, or null
 * @param flushTargets pairs of (domain, vCPU) to flush after the call, or null
 */
record HypercallOutcome(long result, String why, String next, String effect, int[] flushTargets) {

    /** A call that returned 0 and changed what {@code effect} says. */
    static HypercallOutcome succeeded(String effect) {
        return succeeded(0, effect);
    }

    /** A call that returned {@code result} (not negative) and changed what {@code effect} says. */
    static HypercallOutcome succeeded(long result, String effect) {
        return new HypercallOutcome(result, null, null, effect, null);
    }

    /** A call refused with {@code errno}: why, and the next step (either may be null). */
    static HypercallOutcome failed(Errno errno, String why, String next) {
        return new HypercallOutcome(errno.ret(), why, next, null, null);
    }

    /** The same outcome, with the vCPUs to flush after the call. */
    HypercallOutcome flushing(int[] targets) {
        return new HypercallOutcome(result, why, next, effect, targets);
    }
}
