package org.hyperprof.source.perf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * perf.data records as the reader decodes them, in perf report's order: the reader's stage, before
 * any address is resolved, handed from the reading thread to the resolving one. Samples are
 * primitive columns ({@link DecodedSamples}), the rare side-band records small objects, and
 * {@link #order} the order to act on them in. The resolving thread turns them into the pipeline's
 * sample batches (its {@code BatchBuilder}); a record batch never leaves this bundle. Reused: the
 * resolving side hands each one back when done with it.
 *
 * <h2>Order</h2>
 * perf report queues records by time and, at each FINISHED_ROUND, hands on those up to the newest
 * time of the round before (equal times keep their file order; see {@link PerfDataReader}). The
 * reader decodes each record into the next entry as it reads it, so the bytes are decoded while in
 * the cache and a round costs a sort of indices, not a copy of its records. A record with a time
 * joins the queue ({@link #timed}); at a round's end the queue is sorted (a natural merge: it is a
 * few runs already in time order, one per CPU buffer perf drained) and its older entries are
 * appended to {@link #order}; the newer ones stay queued, and move to the next batch with their
 * bytes when this one is handed on. A record without a time is appended at once, ahead of the
 * queue, as perf hands such records on. The resolving side reads a batch in order,
 * {@code order[0..ordered)}.
 *
 * <h2>Bytes</h2>
 * Callchains are not copied when the recording is memory-mapped: an entry keeps the byte offset of
 * its chain in the mapping ({@link #stable}), valid for the whole import. A stream's chains are
 * copied into the batch's own {@link #arena}. Queued side-band records wait as bytes (kind
 * {@link #RECORD}, in the mapping or copied) and are parsed when handed on, in time order.
 */
final class RecordBatch {

    static final byte SAMPLE = 0;
    static final byte MMAP = 1;
    static final byte COMM = 2;
    static final byte FORK = 3;
    static final byte EXIT = 4;
    static final byte ROUND = 5;
    static final byte HEADER = 6;
    /** A side-band record of the open round, not parsed yet. */
    static final byte RECORD = 7;

    /** MMAP or MMAP2: {@code prot} and {@code flags} as MMAP2 gives them (MMAP: executable unless a data mapping). */
    record Mmap(int cpumode, int pid, int tid, long start, long length, long pgoff, String filename, int prot,
            int flags, String buildId) {
    }

    record Comm(int pid, int tid, String comm) {
    }

    /**
     * FORK or EXIT: the task and its parent; {@code exec} is FORK's misc bit 13, with which perf
     * record marks the FORKs it writes for tasks that ran before it (their maps follow, none are copied).
     */
    record Task(int pid, int ppid, int tid, int ptid, boolean exec) {
    }

    /** One value per entry; {@link DecodedSamples#attr} is null for entries that are not samples. */
    final DecodedSamples columns;
    byte[] kind = {};
    /** The side-band record of an entry that is not a sample (a round's end: the samples read so far, a Long). */
    Object[] event = {};
    /** Where a {@link #RECORD} entry's bytes start (in {@link #stable}, or in {@link #arena}). */
    int[] recordOffset = {};
    int count;
    /** The entries to act on, in order: {@code order[0..ordered)}. */
    int[] order = {};
    int ordered;
    /** The open round's timed entries, in the order read. */
    int[] timed = {};
    int timedCount;

    /** The mapped recording that entries point into, or null for a stream. */
    final ByteBuffer stable;
    private final ByteOrder byteOrder;
    /** A stream's bytes kept for the batch: callchains and the open round's side-band records. */
    ByteBuffer arena;
    private byte[] arenaBytes;
    int arenaUsed;

    /** Set on the last batch of an import: whether the reading ended, and how. */
    boolean last;
    Throwable failure;

    private int[] mergeBuffer;
    private int[] runs;

    /**
     * @param stable the mapped recording, or null for a stream (its bytes are then copied)
     */
    RecordBatch(int capacity, ByteBuffer stable, ByteOrder byteOrder) {
        columns = new DecodedSamples(capacity);
        resize(capacity);
        this.stable = stable;
        this.byteOrder = byteOrder;
        arenaBytes = new byte[stable == null ? capacity * 64 : 0];
        arena = ByteBuffer.wrap(arenaBytes).order(byteOrder);
    }

    /** The bytes that the columns' callchains point into. */
    ByteBuffer chains() {
        return stable != null ? stable : arena;
    }

    void clear() {
        Arrays.fill(event, 0, count, null);
        count = 0;
        ordered = 0;
        timedCount = 0;
        arenaUsed = 0;
        last = false;
        failure = null;
    }

    /** Adds an entry (its kind and values are the caller's to fill) and returns it. */
    int add() {
        int i = count;
        if (i == kind.length) {
            grow(i * 2);
        }
        count = i + 1;
        return i;
    }

    /** Takes back the entry just added (a record whose size lies). */
    void removeLast() {
        count--;
    }

    private void grow(int n) {
        columns.grow(n);
        resize(n);
    }

    /** Room for {@code n} entries in the arrays beside the columns, keeping the ones there. */
    private void resize(int n) {
        kind = Arrays.copyOf(kind, n);
        event = Arrays.copyOf(event, n);
        recordOffset = Arrays.copyOf(recordOffset, n);
        order = Arrays.copyOf(order, n);
        timed = Arrays.copyOf(timed, n);
        mergeBuffer = new int[n];
        runs = new int[n + 1];
    }

    /** Appends entry {@code i} to the order now. */
    void now(int i) {
        order[ordered++] = i;
    }

    /** Adds entry {@code i} to the open round. */
    void inRound(int i) {
        timed[timedCount++] = i;
    }

    /** Keeps {@code length} bytes of {@code src} at {@code off} (a stream's); returns where they are kept. */
    int keep(ByteBuffer src, int off, int length) {
        int c = arenaUsed;
        if (c + length > arenaBytes.length) {
            arenaBytes = Arrays.copyOf(arenaBytes, Math.max(arenaBytes.length * 2, c + length));
            arena = ByteBuffer.wrap(arenaBytes).order(byteOrder);
        }
        src.get(off, arenaBytes, c, length);
        arenaUsed = c + length;
        return c;
    }

    /** Appends a side-band record (or a round end, or the header) to the order now. */
    void event(byte what, Object payload) {
        int i = add();
        kind[i] = what;
        event[i] = payload;
        columns.attr[i] = null;
        columns.chainLength[i] = 0;
        now(i);
    }

    /** Sorts the open round by time (stable) in {@code timed[0..timedCount)}. */
    void sortRound() {
        int n = timedCount;
        if (n < 2) {
            return;
        }
        long[] t = columns.time;
        int[] from = timed;
        int[] bounds = runs;
        int runCount = 0;
        bounds[runCount++] = 0;
        // Times are u64: compared with the sign bit flipped.
        for (int k = 1; k < n; k++) {
            if ((t[from[k]] ^ Long.MIN_VALUE) < (t[from[k - 1]] ^ Long.MIN_VALUE)) {
                bounds[runCount++] = k;
            }
        }
        if (runCount == 1) {
            return;
        }
        bounds[runCount] = n;
        int[] to = mergeBuffer;
        while (runCount > 1) {
            int merged = 0;
            for (int r = 0; r < runCount; r += 2) {
                int lo = bounds[r];
                int mid = bounds[Math.min(r + 1, runCount)];
                int hi = bounds[Math.min(r + 2, runCount)];
                int a = lo;
                int b = mid;
                int k = lo;
                while (a < mid && b < hi) {
                    to[k++] = (t[from[b]] ^ Long.MIN_VALUE) < (t[from[a]] ^ Long.MIN_VALUE) ? from[b++] : from[a++];
                }
                while (a < mid) {
                    to[k++] = from[a++];
                }
                while (b < hi) {
                    to[k++] = from[b++];
                }
                bounds[merged++] = lo;
            }
            bounds[merged] = n;
            runCount = merged;
            int[] swap = from;
            from = to;
            to = swap;
        }
        if (from != timed) {
            System.arraycopy(from, 0, timed, 0, n);
        }
    }

    /**
     * Moves timed entries {@code timed[from..timedCount)} of {@code old} (sorted) into this batch's
     * open round, with their bytes: the newer part of a round too large to keep whole.
     */
    void takeRound(RecordBatch old, int from) {
        for (int k = from; k < old.timedCount; k++) {
            int r = old.timed[k];
            int i = add();
            int shift = 0;
            kind[i] = old.kind[r];
            event[i] = old.event[r];
            if (stable == null) {
                if (old.kind[r] == RECORD) {
                    int length = Short.toUnsignedInt(old.arena.getShort(old.recordOffset[r] + 6));
                    recordOffset[i] = keep(old.arena, old.recordOffset[r], length);
                } else if (old.columns.chainLength[r] > 0) {
                    int at = keep(old.arena, old.columns.chainAt[r], 8 * old.columns.chainLength[r]);
                    shift = at - old.columns.chainAt[r];
                }
            } else {
                recordOffset[i] = old.recordOffset[r];
            }
            columns.copy(i, old.columns, r, shift);
            inRound(i);
        }
        old.timedCount = from;
    }
}
