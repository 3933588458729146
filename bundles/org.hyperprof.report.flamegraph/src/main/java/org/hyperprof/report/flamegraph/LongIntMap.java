package org.hyperprof.report.flamegraph;

import java.util.Arrays;

/**
 * A map from non-negative {@code long} keys to {@code int} values: open addressing with linear
 * probing over two primitive arrays. A lookup allocates nothing and boxes nothing, so interning a
 * stack that was seen before costs no allocation; the arrays double only when the map is half full,
 * which happens once per power of two of distinct stack frames over a session, never per sample.
 *
 * <p>Not thread-safe: {@link StackAggregate} guards it.
 */
final class LongIntMap {

    /** Marks a free slot; real keys are never negative (see {@link StackTrie#edge}). */
    private static final long FREE = -1L;

    /** What {@link #get} answers for a key it does not hold. */
    static final int ABSENT = -1;

    private long[] keys;
    private int[] values;
    private int size;

    LongIntMap(int expectedKeys) {
        int capacity = Integer.highestOneBit(Math.max(8, expectedKeys * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
        Arrays.fill(keys, FREE);
    }

    private LongIntMap(long[] keys, int[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
    }

    /** The value of {@code key}, or {@link #ABSENT}. */
    int get(long key) {
        int mask = keys.length - 1;
        int slot = slot(key, mask);
        while (true) {
            long k = keys[slot];
            if (k == key) {
                return values[slot];
            }
            if (k == FREE) {
                return ABSENT;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Sets {@code key} (non-negative) to {@code value}, which must not be {@link #ABSENT}. */
    void put(long key, int value) {
        if (key < 0) {
            throw new IllegalArgumentException("map key " + key + " is negative; keys are packed non-negative ids");
        }
        int mask = keys.length - 1;
        int slot = slot(key, mask);
        while (true) {
            long k = keys[slot];
            if (k == key) {
                values[slot] = value;
                return;
            }
            if (k == FREE) {
                keys[slot] = key;
                values[slot] = value;
                if (++size * 2 > keys.length) {
                    grow();
                }
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    /** An independent copy. */
    LongIntMap copy() {
        return new LongIntMap(keys.clone(), values.clone(), size);
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(keys, FREE);
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            long k = oldKeys[i];
            if (k != FREE) {
                int slot = slot(k, mask);
                while (keys[slot] != FREE) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = k;
                values[slot] = oldValues[i];
            }
        }
    }

    /**
     * Mixes all 64 bits (MurmurHash3's finalizer): an edge key holds the parent node in its high
     * half and the frame in its low half, and both must reach the slot.
     */
    private static int slot(long key, int mask) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
