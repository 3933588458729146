package org.hyperprof.source.perf;

import java.util.Arrays;

import org.hyperprof.pipeline.Dictionary;

/**
 * The mappings of an image the session has not named yet (no sample hit it): kept here, in the
 * order met, and added to the dictionary when a sample names the image. Images no sample touches
 * (most of the libraries a system-wide recording maps) are never named, so their mappings cost
 * only these arrays.
 */
final class PendingMappings {

    private int[] pid = new int[4];
    private long[] start = new long[4];
    private long[] limit = new long[4];
    private long[] fileOffset = new long[4];
    private int count;

    void add(int pid, long start, long limit, long fileOffset) {
        if (count == this.pid.length) {
            int cap = count * 2;
            this.pid = Arrays.copyOf(this.pid, cap);
            this.start = Arrays.copyOf(this.start, cap);
            this.limit = Arrays.copyOf(this.limit, cap);
            this.fileOffset = Arrays.copyOf(this.fileOffset, cap);
        }
        this.pid[count] = pid;
        this.start[count] = start;
        this.limit[count] = limit;
        this.fileOffset[count] = fileOffset;
        count++;
    }

    int size() {
        return count;
    }

    /** Adds every mapping kept, in the order met, as image {@code image} of domain {@code domain}. */
    void addTo(Dictionary dictionary, int domain, int image) {
        for (int i = 0; i < count; i++) {
            dictionary.addMapping(domain, pid[i], image, start[i], limit[i], fileOffset[i]);
        }
    }
}
