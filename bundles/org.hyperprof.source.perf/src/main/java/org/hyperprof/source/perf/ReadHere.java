package org.hyperprof.source.perf;

/**
 * Batches acted on by the thread that reads them: one batch, reused once acted on, so nothing
 * passes between threads (a flat import's parts, {@link PerfImport#readInParts}).
 */
abstract class ReadHere implements PerfEvents {

    private RawBatch spare;

    /** Acts on the records of a batch, {@code order[0..ordered)}. */
    abstract void act(RawBatch batch);

    @Override
    public final RawBatch take() {
        RawBatch b = spare;
        spare = null;
        return b;
    }

    @Override
    public final void handOver(RawBatch batch) {
        act(batch);
        batch.clear();
        spare = batch;
    }

    @Override
    public final boolean eachRound() {
        return false;
    }
}
