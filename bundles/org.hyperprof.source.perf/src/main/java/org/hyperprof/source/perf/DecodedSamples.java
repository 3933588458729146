package org.hyperprof.source.perf;

import java.util.Arrays;

/**
 * Decoded SAMPLE records as primitive columns, one entry per record: what the reader hands on
 * (no object per sample). Callchains are not copied out of the records: entry {@code i}'s
 * {@link #chainLength} entries (context markers included) start at byte {@link #chainAt} of the
 * bytes its batch names ({@link RecordBatch#chains()}).
 */
final class DecodedSamples {

    /** The event; null for an entry that is not a sample (the round queue keeps other records here too). */
    EventAttr[] attr;
    /** header.misc & 7. */
    byte[] cpumode;
    int[] pid;
    int[] tid;
    /** The CPU, or 0 when the event does not record it. */
    int[] cpu;
    long[] ip;
    /** The record's time (the sort key of a round), or 0 when the event does not record it. */
    long[] time;
    long[] period;
    /** Byte offset of the record in the file or stream, for notes. */
    long[] fileOffset;
    int[] chainAt;
    int[] chainLength;

    DecodedSamples(int capacity) {
        attr = new EventAttr[capacity];
        cpumode = new byte[capacity];
        pid = new int[capacity];
        tid = new int[capacity];
        cpu = new int[capacity];
        ip = new long[capacity];
        time = new long[capacity];
        period = new long[capacity];
        fileOffset = new long[capacity];
        chainAt = new int[capacity];
        chainLength = new int[capacity];
    }

    int capacity() {
        return attr.length;
    }

    /** Room for {@code n} entries, keeping the ones there. */
    void grow(int n) {
        attr = Arrays.copyOf(attr, n);
        cpumode = Arrays.copyOf(cpumode, n);
        pid = Arrays.copyOf(pid, n);
        tid = Arrays.copyOf(tid, n);
        cpu = Arrays.copyOf(cpu, n);
        ip = Arrays.copyOf(ip, n);
        time = Arrays.copyOf(time, n);
        period = Arrays.copyOf(period, n);
        fileOffset = Arrays.copyOf(fileOffset, n);
        chainAt = Arrays.copyOf(chainAt, n);
        chainLength = Arrays.copyOf(chainLength, n);
    }

    /** Copies entry {@code r} of {@code from} to entry {@code i}, its callchain moved by {@code chainShift} bytes. */
    void copy(int i, DecodedSamples from, int r, int chainShift) {
        attr[i] = from.attr[r];
        cpumode[i] = from.cpumode[r];
        pid[i] = from.pid[r];
        tid[i] = from.tid[r];
        cpu[i] = from.cpu[r];
        ip[i] = from.ip[r];
        time[i] = from.time[r];
        period[i] = from.period[r];
        fileOffset[i] = from.fileOffset[r];
        chainAt[i] = from.chainAt[r] + chainShift;
        chainLength[i] = from.chainLength[r];
    }
}
