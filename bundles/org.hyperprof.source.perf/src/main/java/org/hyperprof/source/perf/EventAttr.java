package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

/**
 * One recorded event: its {@code perf_event_attr} (peers.md 2.3) and where the fields the reader
 * needs sit in its SAMPLE records and in the {@code sample_id} trailer of the other records
 * (peers.md 2.4: SAMPLE fields follow the record order IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, then the fields {@link SampleTail} walks; the trailer
 * holds TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, only those selected).
 */
final class EventAttr {

    /** The smallest attr (PERF_ATTR_SIZE_VER0); a size field of 0 also means this. */
    static final int SIZE_VER0 = 64;
    /** Where the attr holds branch_sample_type, sample_regs_user and sample_regs_intr (VER2, VER2, VER4). */
    static final int BRANCH_SAMPLE_TYPE_AT = 72;
    static final int SAMPLE_REGS_USER_AT = 80;
    static final int SAMPLE_REGS_INTR_AT = 96;

    final int index;
    final long type;
    final long config;
    final long sampleType;
    final long readFormat;
    final long flags;
    /** The sampling period, or the frequency when {@link #freq}. */
    final long periodOrFreq;
    final boolean freq;
    final boolean sampleIdAll;
    /** sample_type bits this reader does not know: its samples cannot be laid out and are skipped. */
    final long unknownSampleBits;
    final long unknownReadBits;
    /** The sample_type bits whose fields follow the callchain: none in the common recordings. */
    final long afterCallchain;
    /** A BRANCH_STACK holds hw_idx before its entries (branch_sample_type has HW_INDEX). */
    final boolean branchHwIndex;
    /** Bytes of the registers a REGS_USER / REGS_INTR field holds when its ABI is not NONE. */
    final int userRegsSize;
    final int intrRegsSize;
    long[] ids;
    String name;

    // Offsets inside a SAMPLE record's payload (after the 8-byte header); -1 when absent.
    final int sampleIdOffset;
    final int sampleIpOffset;
    final int sampleTidOffset;
    final int sampleTimeOffset;
    final int sampleCpuOffset;
    final int samplePeriodOffset;
    /** Bytes of the fixed-size fields, IDENTIFIER to PERIOD: where READ (or CALLCHAIN) starts. */
    final int sampleFixedSize;
    // Offsets from the end of a non-SAMPLE kernel record; -1 when absent.
    final int trailerSize;
    final int trailerIdFromEnd;
    final int trailerTimeFromEnd;
    final int trailerCpuFromEnd;

    EventAttr(int index, long type, long config, long periodOrFreq, long sampleType, long readFormat, long flags,
            long branchSampleType, long regsUser, long regsIntr, long[] ids) {
        this.index = index;
        this.type = type;
        this.config = config;
        this.periodOrFreq = periodOrFreq;
        this.sampleType = sampleType;
        this.readFormat = readFormat;
        this.flags = flags;
        this.freq = (flags & A_FREQ) != 0;
        this.sampleIdAll = (flags & A_SAMPLE_ID_ALL) != 0;
        this.unknownSampleBits = sampleType & ~S_KNOWN;
        this.unknownReadBits = readFormat & ~R_KNOWN;
        this.afterCallchain = sampleType & S_AFTER_CALLCHAIN;
        this.branchHwIndex = (branchSampleType & BRANCH_HW_INDEX) != 0;
        this.userRegsSize = 8 * Long.bitCount(regsUser);
        this.intrRegsSize = 8 * Long.bitCount(regsIntr);
        this.ids = ids;
        this.name = PerfNames.event(type, config);

        int off = 0;
        int idOff = -1;
        if (has(S_IDENTIFIER)) {
            idOff = 0;
            off += 8;
        }
        sampleIpOffset = has(S_IP) ? off : -1;
        off += has(S_IP) ? 8 : 0;
        sampleTidOffset = has(S_TID) ? off : -1;
        off += has(S_TID) ? 8 : 0;
        sampleTimeOffset = has(S_TIME) ? off : -1;
        off += has(S_TIME) ? 8 : 0;
        off += has(S_ADDR) ? 8 : 0;
        if (idOff < 0 && has(S_ID)) {
            idOff = off;
        }
        sampleIdOffset = idOff;
        off += has(S_ID) ? 8 : 0;
        off += has(S_STREAM_ID) ? 8 : 0;
        sampleCpuOffset = has(S_CPU) ? off : -1;
        off += has(S_CPU) ? 8 : 0;
        samplePeriodOffset = has(S_PERIOD) ? off : -1;
        off += has(S_PERIOD) ? 8 : 0;
        sampleFixedSize = off;

        if (sampleIdAll) {
            int n = 0;
            for (long bit : new long[] {S_TID, S_TIME, S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER}) {
                n += has(bit) ? 1 : 0;
            }
            trailerSize = 8 * n;
            int after = has(S_IDENTIFIER) ? 1 : 0;
            trailerCpuFromEnd = has(S_CPU) ? 8 * (1 + after) : -1;
            after += has(S_CPU) ? 1 : 0;
            after += has(S_STREAM_ID) ? 1 : 0;
            if (has(S_IDENTIFIER)) {
                trailerIdFromEnd = 8;
            } else {
                trailerIdFromEnd = has(S_ID) ? 8 * (1 + after) : -1;
            }
            after += has(S_ID) ? 1 : 0;
            trailerTimeFromEnd = has(S_TIME) ? 8 * (1 + after) : -1;
        } else {
            trailerSize = 0;
            trailerIdFromEnd = -1;
            trailerTimeFromEnd = -1;
            trailerCpuFromEnd = -1;
        }
    }

    boolean has(long bit) {
        return (sampleType & bit) != 0;
    }

    /** The fixed sampling period, or 0 in frequency mode (then each sample carries its period). */
    long fixedPeriod() {
        return freq ? 0 : periodOrFreq;
    }

    /**
     * Reads an attr at {@code off}.
     *
     * @param room the bytes available for the attr (the attrs section's entry minus the ids pointer,
     *             or the HEADER_ATTR record's payload)
     * @return the attr's size in bytes as the attr's own size field says (64 when it says 0)
     */
    static int sizeOf(Bytes bytes, byte[] b, int off) {
        long size = bytes.u32(b, off + 4);
        return size == 0 ? SIZE_VER0 : (int) Math.min(size, Integer.MAX_VALUE);
    }

    /**
     * Parses the attr's fields the reader uses; the caller has checked that the attr's own size
     * (64 bytes or more) is there. A field past that size is 0, as perf reads such an attr.
     */
    static EventAttr parse(Bytes bytes, byte[] b, int off, int index, long[] ids) {
        int size = sizeOf(bytes, b, off);
        long type = bytes.u32(b, off);
        long config = bytes.u64(b, off + 8);
        long period = bytes.u64(b, off + 16);
        long sampleType = bytes.u64(b, off + 24);
        long readFormat = bytes.u64(b, off + 32);
        long flags = bytes.u64(b, off + 40);
        return new EventAttr(index, type, config, period, sampleType, readFormat, flags,
                field(bytes, b, off, size, BRANCH_SAMPLE_TYPE_AT), field(bytes, b, off, size, SAMPLE_REGS_USER_AT),
                field(bytes, b, off, size, SAMPLE_REGS_INTR_AT), ids);
    }

    private static long field(Bytes bytes, byte[] b, int off, int size, int at) {
        return at + 8 <= size ? bytes.u64(b, off + at) : 0;
    }

    /** The attr as perf's header print shows it, for notes. */
    String describe() {
        return name + " (type " + type + ", config 0x" + Long.toHexString(config) + ", sample_type 0x"
                + Long.toHexString(sampleType) + ", read_format 0x" + Long.toHexString(readFormat)
                + (freq ? ", " + periodOrFreq + " Hz" : ", period " + periodOrFreq) + ")";
    }

    /** Bytes of the READ field of a sample, or -1 when it depends on the group count in the record. */
    int fixedReadSize() {
        if (!has(S_READ)) {
            return 0;
        }
        if ((readFormat & R_GROUP) != 0) {
            return -1;
        }
        return 8 * (1 + bit(R_TOTAL_TIME_ENABLED) + bit(R_TOTAL_TIME_RUNNING) + bit(R_ID) + bit(R_LOST));
    }

    /** Bytes per member of a group READ, and of the group header (nr, enabled, running). */
    int groupMemberSize() {
        return 8 * (1 + bit(R_ID) + bit(R_LOST));
    }

    int groupHeaderSize() {
        return 8 * (1 + bit(R_TOTAL_TIME_ENABLED) + bit(R_TOTAL_TIME_RUNNING));
    }

    private int bit(long readBit) {
        return (readFormat & readBit) != 0 ? 1 : 0;
    }
}
