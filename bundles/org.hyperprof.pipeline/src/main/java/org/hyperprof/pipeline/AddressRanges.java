package org.hyperprof.pipeline;

/**
 * The search every sorted table of address ranges of a source makes (mappings, perf's overlaps,
 * stretched symbols, a domain's images): addresses are u64, compared unsigned.
 */
public final class AddressRanges {

    private AddressRanges() {
    }

    /** The index of the last of {@code starts[0..count)} (sorted unsigned) at or below {@code address}, or -1. */
    public static int floor(long[] starts, int count, long address) {
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return hi;
    }

    /**
     * The index of the range of {@code [starts[i], ends[i])} ({@code i < count}, sorted, not
     * overlapping) that holds {@code address}, or -1.
     */
    public static int holding(long[] starts, long[] ends, int count, long address) {
        int i = floor(starts, count, address);
        return i >= 0 && Long.compareUnsigned(address, ends[i]) < 0 ? i : -1;
    }
}
