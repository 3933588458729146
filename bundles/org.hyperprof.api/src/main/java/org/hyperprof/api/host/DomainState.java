package org.hyperprof.api.host;

/** Whether a domain's vCPUs may run. */
public enum DomainState {
    /** Scheduled normally. */
    RUNNING,
    /** Paused ({@code xl pause}): its vCPUs are not scheduled; its buffers stay as they are. */
    PAUSED,
    /** Destroyed: gone for good; Xenoprof freed its buffers and dropped it from the lists. */
    DESTROYED
}
