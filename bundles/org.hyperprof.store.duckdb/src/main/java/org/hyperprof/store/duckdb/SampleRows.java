package org.hyperprof.store.duckdb;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.kit.EntrySlots;
import org.hyperprof.report.kit.Hashing;

/**
 * A session's samples as the store keeps them: one row per distinct key (event, domain, vCPU, CPU,
 * mode, pid, tid, image, symbol, stack, flags, comm, PC, time bucket) with its sample count and weight.
 * Each row's key is a stretch of {@link #INTS} ints and {@link #LONGS} longs in two primitive arrays,
 * found through an open-addressing index. Counting a sample whose row exists allocates nothing; the
 * arrays double as rows are added. Filled by the store's writer thread ({@link #fold}), from the
 * samples the delivery thread took ({@link SampleChunk}); its stack table is the delivery thread's.
 */
final class SampleRows {
    /** The width of a time bucket: the resolution of a stored session's time ranges. */
    static final long TIME_BUCKET_NANOS = 10_000_000L;

    /** The int columns of a key, by their offset in the row's stretch of ints. */
    static final int EVENT = 0, DOMAIN = 1, VCPU = 2, CPU = 3, MODE = 4, PID = 5, TID = 6, IMAGE = 7, SYMBOL = 8,
            STACK = 9, FLAGS = 10, COMM = 11, INTS = 12;
    /** The long columns of a key, by their offset in the row's stretch of longs. */
    static final int PC = 0, BUCKET = 1, LONGS = 2;

    private final int[] eventOfCounter;
    private final StackTable stacks = new StackTable();
    private final EntrySlots index = new EntrySlots(1024, r -> this.rowHash[r]);
    /** The key of the sample being counted. */
    private final int[] keyInts = new int[INTS];
    private final long[] keyLongs = new long[LONGS];
    private int size;
    private long samples;
    /** The first and last sample times seen (nanoseconds of the source's clock), -1 before any. */
    private long firstTime = SampleBatch.UNKNOWN;
    private long lastTime = SampleBatch.UNKNOWN;
    private int[] ints = new int[512 * INTS];
    private long[] longs = new long[512 * LONGS];
    private long[] count = new long[512];
    private long[] weight = new long[512];
    /** Each row's hash, kept: a lookup compares it first, and the index regrows without hashing keys again. */
    private long[] rowHash = new long[512];

    /**
     * @param eventOfCounter the index into the session's counters of each counter number a batch
     *                       carries ({@code SessionInfo.counterSlots()}), -1 for none
     */
    SampleRows(int[] eventOfCounter) {
        this.eventOfCounter = eventOfCounter.clone();
    }

    /** Counts every sample of the chunk into its row (the store's writer thread). */
    void fold(SampleChunk c) {
        int[] k = c.ints();
        long[] l = c.longs();
        for (int i = 0; i < c.size(); i++) {
            System.arraycopy(k, i * INTS, keyInts, 0, INTS);
            keyLongs[PC] = l[i * LONGS + PC];
            keyLongs[BUCKET] = l[i * LONGS + BUCKET];
            int row = row(hash(keyInts, 0, keyLongs, 0));
            count[row]++;
            weight[row] += c.weight(i);
        }
        samples += c.size();
        if (c.firstTime() >= 0) {
            firstTime = firstTime < 0 ? c.firstTime() : Math.min(firstTime, c.firstTime());
            lastTime = Math.max(lastTime, c.lastTime());
        }
    }

    /** The index into the session's counters of each counter number a batch carries. */
    int[] eventOfCounter() {
        return eventOfCounter;
    }

    /**
     * Counts a stored row back in ({@link SessionReader}): its key is {@code key} ({@link #EVENT} to
     * {@link #COMM}), {@code pc} and {@code bucket}; {@code count} samples of {@code weight} in all.
     */
    void put(int[] key, long pc, long bucket, long samplesOfRow, long weightOfRow) {
        System.arraycopy(key, 0, keyInts, 0, INTS);
        keyLongs[PC] = pc;
        keyLongs[BUCKET] = bucket;
        int row = row(hash(keyInts, 0, keyLongs, 0));
        count[row] += samplesOfRow;
        weight[row] += weightOfRow;
        samples += samplesOfRow;
    }

    /** The row of the key being counted, added if new. */
    private int row(long hash) {
        for (int slot = index.first(hash); ; slot = index.next(slot)) {
            int r = index.entry(slot);
            if (r == EntrySlots.FREE) {
                return add(hash);
            }
            if (rowHash[r] == hash && sameKey(r)) {
                return r;
            }
        }
    }

    /** Whether row {@code r} has the key being counted (the PC first: it tells most rows apart). */
    private boolean sameKey(int r) {
        int l = r * LONGS;
        if (longs[l + PC] != keyLongs[PC] || longs[l + BUCKET] != keyLongs[BUCKET]) {
            return false;
        }
        int at = r * INTS;
        for (int k = 0; k < INTS; k++) {
            if (ints[at + k] != keyInts[k]) {
                return false;
            }
        }
        return true;
    }

    private int add(long hash) {
        if (size == count.length) {
            int n = count.length * 2;
            ints = Arrays.copyOf(ints, n * INTS);
            longs = Arrays.copyOf(longs, n * LONGS);
            count = Arrays.copyOf(count, n);
            weight = Arrays.copyOf(weight, n);
            rowHash = Arrays.copyOf(rowHash, n);
        }
        int r = size++;
        System.arraycopy(keyInts, 0, ints, r * INTS, INTS);
        System.arraycopy(keyLongs, 0, longs, r * LONGS, LONGS);
        rowHash[r] = hash;
        index.add(r, hash);
        return r;
    }

    private static long hash(int[] intKey, int intFrom, long[] longKey, int longFrom) {
        long h = 0;
        for (int k = 0; k < LONGS; k++) {
            h = Hashing.mix(h ^ longKey[longFrom + k]);
        }
        for (int k = 0; k < INTS; k += 2) {
            long pair = k + 1 < INTS ? intKey[intFrom + k + 1] & 0xFFFFFFFFL : 0;
            h = Hashing.mix(h ^ ((long) intKey[intFrom + k] << 32 | pair));
        }
        return h;
    }

    /** Rows: 0 to {@code size() - 1}. */
    int size() {
        return size;
    }

    /** Samples counted: the sum of the rows' counts. */
    long samples() {
        return samples;
    }

    /** From the first to the last sample time seen, or -1 when no sample had a time. */
    long timeSpan() {
        return firstTime < 0 ? SampleBatch.UNKNOWN : lastTime - firstTime;
    }

    StackTable stacks() {
        return stacks;
    }

    /** Row {@code r}'s int column at {@code column} ({@link #EVENT} to {@link #COMM}). */
    int column(int r, int column) {
        return ints[r * INTS + column];
    }

    long pc(int r) {
        return longs[r * LONGS + PC];
    }

    long bucket(int r) {
        return longs[r * LONGS + BUCKET];
    }

    long count(int r) {
        return count[r];
    }

    long weight(int r) {
        return weight[r];
    }
}
