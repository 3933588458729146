package org.hyperprof.source.perf;

/**
 * An open-addressing map from (long, long) keys to non-negative ints, with primitive arrays: no
 * boxing and no allocation per lookup or insert (only when it grows).
 */
final class LongPairIntMap {

    static final int ABSENT = -1;

    private long[] first;
    private long[] second;
    private int[] values;
    private int size;
    private int mask;

    LongPairIntMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        first = new long[cap];
        second = new long[cap];
        values = new int[cap];
        java.util.Arrays.fill(values, ABSENT);
        mask = cap - 1;
    }

    int size() {
        return size;
    }

    private static int hash(long a, long b) {
        long h = (a * 0x9E3779B97F4A7C15L) ^ (b * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        return (int) (h ^ (h >>> 32));
    }

    /** Empties the map (keeping its room). */
    void clear() {
        java.util.Arrays.fill(values, ABSENT);
        size = 0;
    }

    int get(long a, long b) {
        int i = hash(a, b) & mask;
        while (values[i] != ABSENT) {
            if (first[i] == a && second[i] == b) {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        return ABSENT;
    }

    void put(long a, long b, int value) {
        int i = hash(a, b) & mask;
        while (values[i] != ABSENT) {
            if (first[i] == a && second[i] == b) {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        first[i] = a;
        second[i] = b;
        values[i] = value;
        if (++size * 2 > values.length) {
            long[] f = first;
            long[] s = second;
            int[] v = values;
            int cap = v.length * 2;
            first = new long[cap];
            second = new long[cap];
            values = new int[cap];
            java.util.Arrays.fill(values, ABSENT);
            mask = cap - 1;
            size = 0;
            for (int k = 0; k < v.length; k++) {
                if (v[k] != ABSENT) {
                    put(f[k], s[k], v[k]);
                }
            }
        }
    }
}
