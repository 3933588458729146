package org.hyperprof.source.perf;

import java.util.Arrays;

/**
 * Mappings in the order their records came: those of an image the session has not named yet (no
 * sample hit it), kept until a sample names it, and those of one process told to the session
 * ({@link MappingFeed}). Images no sample touches (most of the libraries a system-wide recording
 * maps) are never named, so their mappings cost only these arrays.
 */
final class PendingMappings {

    private long[] seq = new long[4];
    private int[] pid = new int[4];
    private int[] image = new int[4];
    private long[] start = new long[4];
    private long[] limit = new long[4];
    private long[] fileOffset = new long[4];
    private int count;

    /** Adds a mapping whose record was the {@code seq}-th, keeping the list in record order. */
    void add(long seq, int pid, int image, long start, long limit, long fileOffset) {
        if (count == this.seq.length) {
            int cap = count * 2;
            this.seq = Arrays.copyOf(this.seq, cap);
            this.pid = Arrays.copyOf(this.pid, cap);
            this.image = Arrays.copyOf(this.image, cap);
            this.start = Arrays.copyOf(this.start, cap);
            this.limit = Arrays.copyOf(this.limit, cap);
            this.fileOffset = Arrays.copyOf(this.fileOffset, cap);
        }
        int at = count;
        while (at > 0 && this.seq[at - 1] > seq) {
            at--;
        }
        int move = count - at;
        System.arraycopy(this.seq, at, this.seq, at + 1, move);
        System.arraycopy(this.pid, at, this.pid, at + 1, move);
        System.arraycopy(this.image, at, this.image, at + 1, move);
        System.arraycopy(this.start, at, this.start, at + 1, move);
        System.arraycopy(this.limit, at, this.limit, at + 1, move);
        System.arraycopy(this.fileOffset, at, this.fileOffset, at + 1, move);
        this.seq[at] = seq;
        this.pid[at] = pid;
        this.image[at] = image;
        this.start[at] = start;
        this.limit[at] = limit;
        this.fileOffset[at] = fileOffset;
        count++;
    }

    int size() {
        return count;
    }

    long seq(int i) {
        return seq[i];
    }

    int pid(int i) {
        return pid[i];
    }

    int image(int i) {
        return image[i];
    }

    long start(int i) {
        return start[i];
    }

    long limit(int i) {
        return limit[i];
    }

    long fileOffset(int i) {
        return fileOffset[i];
    }

    /** Whether mapping {@code i} and {@code [from, to)} share an address. */
    boolean overlaps(int i, long from, long to) {
        return Long.compareUnsigned(start[i], to) < 0 && Long.compareUnsigned(from, limit[i]) < 0;
    }
}
