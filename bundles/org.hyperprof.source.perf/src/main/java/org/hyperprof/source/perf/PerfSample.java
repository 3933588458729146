package org.hyperprof.source.perf;

/**
 * One decoded SAMPLE record, reused for every sample (no allocation per sample). The callchain is
 * not copied: {@link #chain(int)} reads it where the record is.
 */
final class PerfSample {
    EventAttr attr;
    /** header.misc & 7. */
    int cpumode;
    long ip;
    int pid;
    int tid;
    long time;
    /** The CPU, or 0 when the attr does not record it. */
    int cpu;
    long period;
    /** Number of callchain entries (markers included); 0 without a callchain. */
    int chainLength;
    /** Byte offset of the sample record in the stream or file, for notes. */
    long fileOffset;

    /** Where the callchain's entries are: the buffer the record was decoded from, and their byte offset. */
    java.nio.ByteBuffer chainData;
    int chainOffset;

    void chain(java.nio.ByteBuffer data, int offset, int length) {
        this.chainData = data;
        this.chainOffset = offset;
        this.chainLength = length;
    }

    /** Callchain entry {@code i} (0 = innermost). */
    long chain(int i) {
        return chainData.getLong(chainOffset + 8 * i);
    }
}
