package org.hyperprof.api.store;

import java.time.Instant;

/**
 * One host of the fleet: its last session, how many sessions and samples it shipped, and what it runs (as of
 * its last session).
 */
public record FleetHost(String host, Instant lastSession, long sessions, long samples, String cpuModel,
        String hypervisorVersion, String kernelVersion, String hyperprofVersion, long schemaVersion) {
}
