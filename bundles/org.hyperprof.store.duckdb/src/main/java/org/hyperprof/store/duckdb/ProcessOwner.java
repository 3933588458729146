package org.hyperprof.store.duckdb;

import java.time.Instant;
import java.util.Optional;

/**
 * The process that writes a running session: its host's name, its pid and when it started. The start
 * tells a pid the kernel gave to a new process after ours ended from ours.
 *
 * @param startedMillis the process's start in epoch milliseconds, -1 where the platform does not say
 */
record ProcessOwner(String host, long pid, long startedMillis) {

    /** This process, on the host whose kernel name {@link StoreSettings#hostName()} gives. */
    static ProcessOwner current() {
        ProcessHandle self = ProcessHandle.current();
        return new ProcessOwner(StoreSettings.hostName(), self.pid(), startedMillis(self));
    }

    /**
     * Whether this owner's process is gone: it ran on this host ({@code here}'s), and no process with its
     * pid runs, or one that started at another time. A process of another host is never taken for gone:
     * this host cannot see it.
     */
    boolean goneFrom(ProcessOwner here) {
        if (!host.equals(here.host())) {
            return false;
        }
        if (pid == here.pid()) {
            return startedMillis != here.startedMillis();
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        return p.isEmpty() || !p.get().isAlive() || startedMillis != startedMillis(p.get());
    }

    private static long startedMillis(ProcessHandle p) {
        return p.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }
}
