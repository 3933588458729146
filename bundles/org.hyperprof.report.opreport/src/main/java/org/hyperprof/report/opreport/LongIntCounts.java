package org.hyperprof.report.opreport;

import java.util.Arrays;

/**
 * Sample counts keyed by a non-negative {@code long}: an open-addressing hash map with linear
 * probing over two primitive arrays. Adding to an existing key allocates nothing and boxes nothing,
 * so the per-sample path stays allocation-free; the arrays double only when the map is half full,
 * which happens a logarithmic number of times over a session (once per new row, never per sample).
 *
 * <p>Not thread-safe: {@link SessionAggregate} guards it.
 */
final class LongIntCounts {

    /** Marks a free slot. Real keys are never negative (see {@link SessionAggregate#key}). */
    private static final long FREE = -1L;

    private long[] keys;
    private int[] values;
    private int size;

    LongIntCounts(int expectedKeys) {
        int capacity = Integer.highestOneBit(Math.max(8, expectedKeys * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
        Arrays.fill(keys, FREE);
    }

    private LongIntCounts(long[] keys, int[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
    }

    /** Adds {@code delta} to the count of {@code key} (a key never seen counts from 0). */
    void add(long key, int delta) {
        if (key < 0) {
            throw new IllegalArgumentException("count key " + key + " is negative; keys are packed non-negative ids");
        }
        int mask = keys.length - 1;
        int slot = slot(key, mask);
        while (true) {
            long k = keys[slot];
            if (k == key) {
                values[slot] += delta;
                return;
            }
            if (k == FREE) {
                keys[slot] = key;
                values[slot] = delta;
                if (++size * 2 > keys.length) {
                    grow();
                }
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** The count of {@code key}, 0 when absent. */
    int get(long key) {
        int mask = keys.length - 1;
        int slot = slot(key, mask);
        while (true) {
            long k = keys[slot];
            if (k == key) {
                return values[slot];
            }
            if (k == FREE) {
                return 0;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Number of distinct keys. */
    int size() {
        return size;
    }

    /** An independent copy (for a report snapshot taken while samples keep arriving). */
    LongIntCounts copy() {
        return new LongIntCounts(keys.clone(), values.clone(), size);
    }

    /** Visits every key with its count, in no particular order. */
    void forEach(Entry visitor) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != FREE) {
                visitor.accept(keys[i], values[i]);
            }
        }
    }

    /** A primitive (key, count) visitor: no boxing while walking the map. */
    @FunctionalInterface
    interface Entry {
        void accept(long key, int count);
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
     * A full 64-bit mix (MurmurHash3's finalizer): packed keys differ in their high bits (domain,
     * counter) as well as their low bits (image or symbol id), and every bit must reach the slot.
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
