package org.hyperprof.source.perf;

import java.util.Arrays;

/**
 * Decoded records in time order, handed from the reading thread to the resolving thread of an
 * import: samples as primitive columns (callchains copied, markers included), the rare side-band
 * records as small objects, in the order the reader handed them on. Reused: the resolving thread
 * hands each batch back when it is done with it.
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
    final int[] chainStart;
    long[] chain;
    int chainUsed;
    final Object[] event;

    /** Set on the last batch of an import: whether the reading ended, and how. */
    boolean last;
    Throwable failure;

    /** @param chains whether callchains are copied (the chain column starts empty when not) */
    RawBatch(int capacity, boolean chains) {
        this.capacity = capacity;
        kind = new byte[capacity];
        attr = new EventAttr[capacity];
        cpumode = new byte[capacity];
        pid = new int[capacity];
        cpu = new int[capacity];
        ip = new long[capacity];
        period = new long[capacity];
        chainStart = new int[capacity + 1];
        chain = new long[chains ? capacity * 8 : 0];
        event = new Object[capacity];
    }

    boolean full() {
        return size == capacity;
    }

    void clear() {
        size = 0;
        chainUsed = 0;
        last = false;
        failure = null;
        Arrays.fill(event, null);
    }

    /** Appends a sample, copying its callchain when {@code chains}. */
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
        int c = chainUsed;
        if (c + n > chain.length) {
            chain = Arrays.copyOf(chain, Math.max(chain.length * 2, c + n));
        }
        for (int k = 0; k < n; k++) {
            chain[c + k] = s.chain(k);
        }
        chainStart[i] = c;
        chainUsed = c + n;
        chainStart[i + 1] = chainUsed;
        size = i + 1;
    }

    /** Appends a side-band record (or a round end, or the header). */
    void event(byte what, Object payload) {
        int i = size;
        kind[i] = what;
        event[i] = payload;
        chainStart[i] = chainUsed;
        chainStart[i + 1] = chainUsed;
        size = i + 1;
    }
}
