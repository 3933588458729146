package org.hyperprof.source.perf;

/**
 * Where the reader hands its records: in {@link RawBatch}es, each in time order within every round
 * (peers.md 2.5: records are sorted by time inside each FINISHED_ROUND window; records without a
 * time are handed on as they are read). Strings are made for the rare records (MMAP, COMM);
 * samples come as decoded columns, with no object per sample.
 */
interface PerfEvents {

    /** An empty batch for the reader to fill, or null for a new one; may wait while every batch is in use. */
    RawBatch take();

    /**
     * A batch to act on, {@code order[0..ordered)}: the recording's header (once, before any other
     * record), samples, side-band records and round ends. It is the receiver's until it comes back
     * through {@link #take}.
     */
    void handOver(RawBatch batch);

    /** Whether each round is handed over at its end (a recording being made now), not only a full batch. */
    boolean eachRound();
}
