package org.hyperprof.api.xenoprof;

/** {@code xenoprof_state}: the global profiling state. Nothing ever returns to IDLE. */
public enum XenoprofState {
    IDLE, INITIALIZED, COUNTERS_RESERVED, READY, PROFILING
}
