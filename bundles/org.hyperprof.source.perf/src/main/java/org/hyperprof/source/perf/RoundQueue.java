package org.hyperprof.source.perf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The records of one round, handed on in time order when the round ends (peers.md 2.5: nothing
 * is reordered across a FINISHED_ROUND). Equal times keep their file order. A round is a few
 * runs already in time order (one per CPU buffer perf drained), so a natural merge sort orders it
 * in about one pass per doubling of the runs.
 *
 * <p>Records of a memory-mapped file are queued by their offset (no copy); records of a stream are
 * copied out of the read buffer. Memory is bounded by one round; a round larger than
 * {@link #limitBytes} hands on its older half early, as the records' times allow.
 */
final class RoundQueue {

    /** Receives a queued record: its bytes at {@code off} of {@code data}, and where it was read. */
    interface Sink {
        void record(ByteBuffer data, int off, long fileOffset) throws PerfDataException;
    }

    private final int limitBytes;
    /** Set for a mapped file: records stay in it and are queued by offset. */
    private final ByteBuffer stableSource;
    private final ByteOrder order;
    private byte[] arena;
    private ByteBuffer arenaView;
    private int used;
    private int[] recordOffset = new int[8192];
    private int[] recordSize = new int[8192];
    private long[] time = new long[8192];
    private long[] fileOffset = new long[8192];
    private int count;
    private int[] order8 = new int[8192];
    private int[] scratch = new int[8192];
    /** The merge passes' other buffer, kept from round to round (a round is sorted at each FINISHED_ROUND). */
    private int[] mergeBuffer = new int[8192];

    /**
     * @param stableSource the mapped data that queued records point into, or null to copy records
     */
    RoundQueue(int limitBytes, ByteBuffer stableSource, ByteOrder order) {
        this.limitBytes = limitBytes;
        this.stableSource = stableSource;
        this.order = order;
        if (stableSource == null) {
            arena = new byte[1 << 20];
            arenaView = ByteBuffer.wrap(arena).order(order);
        }
    }

    int size() {
        return count;
    }

    /** Queues a record of {@code src}. */
    void add(ByteBuffer src, int off, int size, long recordTime, long at) {
        if (count == recordOffset.length) {
            int n = count * 2;
            recordOffset = Arrays.copyOf(recordOffset, n);
            recordSize = Arrays.copyOf(recordSize, n);
            time = Arrays.copyOf(time, n);
            fileOffset = Arrays.copyOf(fileOffset, n);
            order8 = new int[n];
            scratch = new int[n];
            mergeBuffer = new int[n];
        }
        if (stableSource != null) {
            recordOffset[count] = off;
        } else {
            if (used + size > arena.length) {
                arena = Arrays.copyOf(arena, Math.max(arena.length * 2, used + size));
                arenaView = ByteBuffer.wrap(arena).order(order);
            }
            src.get(off, arena, used, size);
            recordOffset[count] = used;
            used += size;
        }
        recordSize[count] = size;
        time[count] = recordTime;
        fileOffset[count] = at;
        count++;
    }

    /** Whether the round outgrew its memory bound (only copied rounds hold memory). */
    boolean full() {
        return stableSource == null ? used > limitBytes : count > limitBytes / 64;
    }

    /** Hands on every queued record in time order and empties the round. */
    void flush(Sink sink) throws PerfDataException {
        sort();
        int n = count;
        ByteBuffer data = stableSource != null ? stableSource : arenaView;
        // Empty first: a sink failure must not leave records to be handed on twice.
        count = 0;
        used = 0;
        int[] o = order8;
        for (int i = 0; i < n; i++) {
            int r = o[i];
            sink.record(data, recordOffset[r], fileOffset[r]);
        }
    }

    /**
     * Hands on the older half (by time) of the queued records and keeps the rest, for a round
     * that outgrew the memory bound.
     */
    void flushOlderHalf(Sink sink) throws PerfDataException {
        sort();
        int n = count;
        int half = n / 2;
        ByteBuffer data = stableSource != null ? stableSource : arenaView;
        int[] older = Arrays.copyOf(order8, half);
        int[] olderOffset = new int[half];
        long[] olderFile = new long[half];
        for (int i = 0; i < half; i++) {
            olderOffset[i] = recordOffset[older[i]];
            olderFile[i] = fileOffset[older[i]];
        }
        byte[] oldArena = arena;
        // Keep the newer half, in time order.
        byte[] kept = stableSource == null ? new byte[arena.length] : null;
        int keptUsed = 0;
        int[] keptOffset = new int[recordOffset.length];
        int[] keptSize = new int[recordOffset.length];
        long[] keptTime = new long[time.length];
        long[] keptFile = new long[fileOffset.length];
        int k = 0;
        for (int i = half; i < n; i++) {
            int r = order8[i];
            if (kept != null) {
                System.arraycopy(arena, recordOffset[r], kept, keptUsed, recordSize[r]);
                keptOffset[k] = keptUsed;
                keptUsed += recordSize[r];
            } else {
                keptOffset[k] = recordOffset[r];
            }
            keptSize[k] = recordSize[r];
            keptTime[k] = time[r];
            keptFile[k] = fileOffset[r];
            k++;
        }
        recordOffset = keptOffset;
        recordSize = keptSize;
        time = keptTime;
        fileOffset = keptFile;
        count = k;
        if (kept != null) {
            arena = kept;
            arenaView = ByteBuffer.wrap(arena).order(order);
            used = keptUsed;
            data = ByteBuffer.wrap(oldArena).order(order);
        }
        for (int i = 0; i < half; i++) {
            sink.record(data, olderOffset[i], olderFile[i]);
        }
    }

    /** Stable natural merge sort of the queued records' indices by time, into {@code order8}. */
    private void sort() {
        int n = count;
        int[] from = order8;
        for (int i = 0; i < n; i++) {
            from[i] = i;
        }
        long[] t = time;
        // Run boundaries: each run is already in time order.
        int[] runs = scratch;
        int runCount = 0;
        runs[runCount++] = 0;
        for (int i = 1; i < n; i++) {
            if (t[i] < t[i - 1]) {
                runs[runCount++] = i;
            }
        }
        if (runCount == 1) {
            return;
        }
        int[] bounds = Arrays.copyOf(runs, runCount + 1);
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
                    to[k++] = t[from[b]] < t[from[a]] ? from[b++] : from[a++];
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
        if (from != order8) {
            System.arraycopy(from, 0, order8, 0, n);
        }
    }
}
