package org.hyperprof.source.perf;

/**
 * An open-addressing map from long keys to non-negative int values. Each key and its value sit
 * side by side in one {@code long[]} (one cache line per probe); no boxing, and no allocation per
 * lookup or insert (only when it grows).
 */
final class LongIntMap {

    static final int ABSENT = -1;

    /** Pairs of (key, value + 1); a value slot of 0 marks an empty pair. */
    private long[] table;
    private int size;
    private int mask;

    LongIntMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        table = new long[cap * 2];
        mask = cap - 1;
    }

    int size() {
        return size;
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** The value of {@code key}, or {@link #ABSENT}. */
    int get(long key) {
        long[] t = table;
        int i = hash(key) & mask;
        while (true) {
            long v = t[2 * i + 1];
            if (v == 0) {
                return ABSENT;
            }
            if (t[2 * i] == key) {
                return (int) (v - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /** Sets the value of {@code key} (a non-negative int). */
    void put(long key, int value) {
        long[] t = table;
        int i = hash(key) & mask;
        while (t[2 * i + 1] != 0) {
            if (t[2 * i] == key) {
                t[2 * i + 1] = value + 1L;
                return;
            }
            i = (i + 1) & mask;
        }
        t[2 * i] = key;
        t[2 * i + 1] = value + 1L;
        if (++size * 2 > mask + 1) {
            grow();
        }
    }

    private void grow() {
        long[] old = table;
        int cap = (mask + 1) * 2;
        table = new long[cap * 2];
        mask = cap - 1;
        size = 0;
        for (int i = 0; i < old.length; i += 2) {
            if (old[i + 1] != 0) {
                put(old[i], (int) (old[i + 1] - 1));
            }
        }
    }
}
