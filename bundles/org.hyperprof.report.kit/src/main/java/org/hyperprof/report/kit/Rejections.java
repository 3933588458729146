package org.hyperprof.report.kit;

/**
 * A report's books of what it could not aggregate: samples rejected one by one, batches with any
 * rejected sample, whole batches it could not read, and the reason for the first rejection. A
 * rejected sample allocates only when its reason is the first kept.
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class Rejections {
    private long samples;
    private long batches;
    private String first;

    /**
     * Counts one rejected sample.
     *
     * @return true when no reason is kept yet: the caller then works out why and gives it to {@link #first}
     */
    public boolean count() {
        samples++;
        return first == null;
    }

    /** Keeps the reason for sample {@code i} of batch number {@code batch} (from 1), when it is the first. */
    public void first(long batch, int i, String why) {
        if (first == null) {
            first = "batch " + batch + " sample " + i + ": " + why;
        }
    }

    /** Counts a batch that could not be read at all as {@code size} rejected samples (none when negative). */
    public void batch(String why, int size) {
        batches++;
        samples += Math.max(0, size);
        if (first == null) {
            first = why;
        }
    }

    /** Ends a batch: it counts as a rejected batch when samples were rejected since {@code samplesBefore}. */
    public void batchDone(long samplesBefore) {
        if (samples > samplesBefore) {
            batches++;
        }
    }

    /** The samples rejected so far (to give to {@link #batchDone} at the end of a batch). */
    public long samples() {
        return samples;
    }

    /**
     * The books as they stand.
     *
     * @param samples the samples rejected
     * @param batches the batches with a rejected sample, and those that could not be read at all
     * @param first   the reason for the first rejection, or null
     */
    public record Books(long samples, long batches, String first) {
    }

    /** The books as they stand, for a snapshot. */
    public Books books() {
        return new Books(samples, batches, first);
    }
}
