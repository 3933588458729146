package org.hyperprof.source.perf;

/**
 * Batches acted on by the thread that reads them: two batches, reused once acted on, so nothing
 * passes between threads (a flat import's parts, {@link PerfImport#readInParts}).
 */
abstract class ReadHere implements PerfEvents {

    /**
     * Two batches in turn: the reader takes the next batch before it hands the full one over (the
     * records still queued move to the next), so with one spare it would make a batch each time.
     */
    private RecordBatch spare;
    private RecordBatch spare2;

    /** Acts on the records of a batch, {@code order[0..ordered)}. */
    abstract void act(RecordBatch batch);

    @Override
    public final RecordBatch take() {
        RecordBatch b = spare;
        if (b != null) {
            spare = null;
        } else {
            b = spare2;
            spare2 = null;
        }
        return b;
    }

    @Override
    public final void handOver(RecordBatch batch) {
        act(batch);
        batch.clear();
        if (spare == null) {
            spare = batch;
        } else {
            spare2 = batch;
        }
    }

    @Override
    public final boolean eachRound() {
        return false;
    }

    /** Acted on at once, so large: records still queued move to the next batch four times less often. */
    @Override
    public final int batchRecords() {
        return 4 * PerfDataReader.BATCH_RECORDS;
    }
}
