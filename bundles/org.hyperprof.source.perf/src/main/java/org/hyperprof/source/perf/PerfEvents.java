package org.hyperprof.source.perf;

/**
 * Where the reader hands its records: in {@link RecordBatch}es, in perf report's order (records
 * queued by time and handed on at round ends; records without a time as they are read). Strings are made for the rare records (MMAP, COMM);
 * samples come as decoded columns, with no object per sample.
 */
interface PerfEvents {

    /** An empty batch for the reader to fill, or null for a new one; may wait while every batch is in use. */
    RecordBatch take();

    /**
     * A batch to act on, {@code order[0..ordered)}: the recording's header (once, before any other
     * record), samples, side-band records and round ends. It is the receiver's until it comes back
     * through {@link #take}.
     */
    void handOver(RecordBatch batch);

    /** Whether each round is handed over at its end (a recording being made now), not only a full batch. */
    boolean eachRound();

    /**
     * The records a batch holds ready before it is handed over at a round's end. A batch handed
     * over moves the records still queued to the next one, so a receiver that acts on a batch at
     * once takes larger batches, and fewer records move.
     */
    default int batchRecords() {
        return PerfDataReader.BATCH_RECORDS;
    }
}
