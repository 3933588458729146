package org.hyperprof.source.perf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Decoded records in time order, handed from the reading thread to the resolving thread of an
 * import: samples as primitive columns, the rare side-band
 * records as small objects, in the order the reader handed them on. Reused: the resolving thread
 * hands each batch back when it is done with it.
 *
 * <p>Callchains (markers included) are not copied when the recording is memory-mapped: a sample
 * keeps the byte offset of its entries in the mapping ({@link #stable}), which stays valid for the
 * whole import. Records of a stream are copied, in one bulk copy each, into the batch's own
 * {@link #arena}; their offset is kept complemented ({@code ~offset}).
 */
final class RawBatch {

    static final byte SAMPLE = 0;
    static final byte MMAP = 1;
    static final byte COMM = 2;
    static final byte FORK = 3;
    static final byte EXIT = 4;
    static final byte ROUND = 5;
    static final byte HEADER = 6;

    record Mmap(int cpumode, int pid, long start, long length, long pgoff, String filename, boolean data,
            String buildId) {
    }

    record Comm(int pid, int tid, String comm) {
    }

    record Task(int pid, int ppid) {
    }

    final int capacity;
    int size;
    final byte[] kind;
    final EventAttr[] attr;
    final byte[] cpumode;
    final int[] pid;
    final int[] cpu;
    final long[] ip;
    final long[] period;
    /** Per sample: the byte offset of its callchain in {@link #stable} (>= 0) or {@code ~offset} in {@link #arena}. */
    final int[] chainAt;
    /** Per sample: its callchain's entries (0 without callchains). */
    final int[] chainLength;
    /** The mapped recording that chains are read from in place, or null. */
    final ByteBuffer stable;
    /** Copied callchains, in the recording's byte order. */
    ByteBuffer arena;
    private byte[] arenaBytes;
    private int arenaUsed;
    private final ByteOrder order;
    final Object[] event;

    /** Set on the last batch of an import: whether the reading ended, and how. */
    boolean last;
    Throwable failure;

    /**
     * @param chains whether callchains are kept (the arena starts empty when not)
     * @param stable the mapped recording, or null for a stream (callchains are then copied)
     */
    RawBatch(int capacity, boolean chains, ByteBuffer stable, ByteOrder order) {
        this.capacity = capacity;
        kind = new byte[capacity];
        attr = new EventAttr[capacity];
        cpumode = new byte[capacity];
        pid = new int[capacity];
        cpu = new int[capacity];
        ip = new long[capacity];
        period = new long[capacity];
        chainAt = new int[capacity];
        chainLength = new int[capacity];
        this.stable = stable;
        this.order = order;
        arenaBytes = new byte[chains && stable == null ? capacity * 64 : 0];
        arena = ByteBuffer.wrap(arenaBytes).order(order);
        event = new Object[capacity];
    }

    boolean full() {
        return size == capacity;
    }

    void clear() {
        size = 0;
        arenaUsed = 0;
        last = false;
        failure = null;
        Arrays.fill(event, null);
    }

    /** Appends a sample; its callchain, when {@code chains}, is kept in place or copied. */
    void sample(PerfSample s, boolean chains) {
        int i = size;
        kind[i] = SAMPLE;
        attr[i] = s.attr;
        cpumode[i] = (byte) s.cpumode;
        pid[i] = s.pid;
        cpu[i] = s.cpu;
        ip[i] = s.ip;
        period[i] = s.period;
        int n = chains ? s.chainLength : 0;
        chainLength[i] = n;
        if (n > 0) {
            if (s.chainData == stable) {
                chainAt[i] = s.chainOffset;
            } else {
                int bytes = n * 8;
                int c = arenaUsed;
                if (c + bytes > arenaBytes.length) {
                    arenaBytes = Arrays.copyOf(arenaBytes, Math.max(arenaBytes.length * 2, c + bytes));
                    arena = ByteBuffer.wrap(arenaBytes).order(order);
                }
                s.chainData.get(s.chainOffset, arenaBytes, c, bytes);
                chainAt[i] = ~c;
                arenaUsed = c + bytes;
            }
        }
        size = i + 1;
    }

    /** Appends a side-band record (or a round end, or the header). */
    void event(byte what, Object payload) {
        int i = size;
        kind[i] = what;
        event[i] = payload;
        chainLength[i] = 0;
        size = i + 1;
    }
}
