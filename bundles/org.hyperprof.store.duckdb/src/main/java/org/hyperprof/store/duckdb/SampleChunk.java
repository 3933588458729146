package org.hyperprof.store.duckdb;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;

/**
 * Samples the store's delivery thread has taken and not yet counted into their rows: each sample's
 * key (its call chain already named by a stack id) and weight, copied into primitive arrays as they
 * come. Counting a sample into its row is a lookup in a table of hundreds of thousands of rows,
 * which costs as much as an import's own work per sample; done here on the sample path it slowed a
 * 600,000-sample import by half on two cores. Copied, the samples are counted by the store's writer
 * ({@link SampleRows#fold}) at a checkpoint, when a chunk is full, or at the session's end, off the
 * path of the source.
 *
 * <p>Filled on the delivery thread, then handed whole to the writer (its executor orders the two).
 */
final class SampleChunk {
    /** Samples a chunk holds before it goes to the writer (about 70 MB at most). */
    static final int CAPACITY = 1 << 20;

    private final int[] eventOfCounter;
    private final StackTable stacks;
    private int[] ints = new int[4096 * SampleRows.INTS];
    private long[] longs = new long[4096 * SampleRows.LONGS];
    private long[] weight = new long[4096];
    private int size;
    private long firstTime = SampleBatch.UNKNOWN;
    private long lastTime = SampleBatch.UNKNOWN;

    /** A chunk of {@code rows}' session: its counters' events, its stack table. */
    SampleChunk(SampleRows rows) {
        this.eventOfCounter = rows.eventOfCounter();
        this.stacks = rows.stacks();
    }

    /** Takes every sample of the batch: its key, its call chain named now, its weight. */
    void add(SampleBatch b) {
        int n = b.size;
        if (size + n > weight.length) {
            int cap = Math.max(size + n, weight.length * 2);
            ints = Arrays.copyOf(ints, cap * SampleRows.INTS);
            longs = Arrays.copyOf(longs, cap * SampleRows.LONGS);
            weight = Arrays.copyOf(weight, cap);
        }
        int[] k = ints;
        long[] l = longs;
        for (int i = 0; i < n; i++) {
            int at = (size + i) * SampleRows.INTS;
            k[at + SampleRows.EVENT] = eventOfCounter[b.counter[i] & 0xFF];
            k[at + SampleRows.DOMAIN] = b.domain[i];
            k[at + SampleRows.VCPU] = b.vcpu[i];
            k[at + SampleRows.CPU] = b.cpu[i];
            k[at + SampleRows.MODE] = b.mode[i];
            k[at + SampleRows.PID] = b.pid[i];
            k[at + SampleRows.TID] = b.tid[i];
            k[at + SampleRows.IMAGE] = b.image[i];
            k[at + SampleRows.SYMBOL] = b.symbol[i];
            k[at + SampleRows.STACK] = stacks.id(b, i);
            k[at + SampleRows.FLAGS] = b.flags[i];
            k[at + SampleRows.COMM] = b.comm[i];
            int lat = (size + i) * SampleRows.LONGS;
            l[lat + SampleRows.PC] = b.pc[i];
            long time = b.time[i];
            l[lat + SampleRows.BUCKET] = time < 0 ? SampleBatch.UNKNOWN : time / SampleRows.TIME_BUCKET_NANOS;
            if (time >= 0) {
                firstTime = firstTime < 0 ? time : Math.min(firstTime, time);
                lastTime = Math.max(lastTime, time);
            }
            weight[size + i] = b.weight[i];
        }
        size += n;
    }

    /** Whether it holds {@link #CAPACITY} samples or more: time to hand it to the writer. */
    boolean full() {
        return size >= CAPACITY;
    }

    int size() {
        return size;
    }

    /** Sample {@code i}'s int key columns start at {@code i * SampleRows.INTS} of these. */
    int[] ints() {
        return ints;
    }

    /** Sample {@code i}'s PC and time bucket start at {@code i * SampleRows.LONGS} of these. */
    long[] longs() {
        return longs;
    }

    long weight(int i) {
        return weight[i];
    }

    /** The first and last sample times taken (nanoseconds of the source's clock), -1 before any. */
    long firstTime() {
        return firstTime;
    }

    long lastTime() {
        return lastTime;
    }
}
