package org.hyperprof.source.perf;

/**
 * What the reader hands on, in time order within each round (peers.md 2.5: records are sorted by
 * time inside each FINISHED_ROUND window; records without a time are handed on as they are read).
 * Strings are made for the rare records (MMAP, COMM); a sample is one reused {@link PerfSample}.
 */
interface PerfEvents {

    /** The recording's header is known: its events and features. Called once, before any record. */
    void header(RecordingInfo info);

    void sample(PerfSample sample);

    /**
     * MMAP or MMAP2 of an executable (or, with {@code data}, a data) mapping.
     *
     * @param buildId the MMAP2 record's build-id as hex, or null
     */
    void mmap(int cpumode, int pid, int tid, long start, long length, long pgoff, String filename, boolean data,
            String buildId);

    void comm(int pid, int tid, String comm, boolean exec);

    void fork(int pid, int ppid, int tid, int ptid);

    void exit(int pid, int ppid, int tid, int ptid);

    /** A FINISHED_ROUND was reached and every record before it was handed on. */
    void roundFinished();
}
