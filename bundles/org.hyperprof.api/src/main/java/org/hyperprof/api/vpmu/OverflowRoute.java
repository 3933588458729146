package org.hyperprof.api.vpmu;

/** What becomes of a physical counter overflow. */
public enum OverflowRoute {
    /** Log a sample into the Xenoprof buffer of the current vCPU's domain (system-wide profiling). */
    XENOPROF,
    /** Deliver a virtual PMU interrupt to the guest that owns the counter. */
    GUEST,
    /** Neither: counted as dropped. */
    DROP
}
