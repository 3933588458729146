package org.hyperprof.report.kit;

import java.util.Arrays;

/**
 * A map from non-negative {@code long} keys to {@code int} values: open addressing with linear
 * probing over two primitive arrays. A lookup, a put over an existing key and an add to one
 * allocate nothing and box nothing, so the per-sample paths stay allocation-free; the arrays double
 * only when the table is half full, which happens once per power of two of distinct keys over a
 * session, never per sample.
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class LongIntTable {

    /** Marks a free slot; real keys are never negative. */
    private static final long FREE = -1L;

    private long[] keys;
    private int[] values;
    private int size;

    /** A table sized for {@code expectedKeys} keys before it first grows. */
    public LongIntTable(int expectedKeys) {
        int capacity = Integer.highestOneBit(Math.max(8, expectedKeys * 2 - 1)) << 1;
        keys = new long[capacity];
        values = new int[capacity];
        Arrays.fill(keys, FREE);
    }

    private LongIntTable(long[] keys, int[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
    }

    /** The value of {@code key}, or {@code absent} when the table does not hold it. */
    public int get(long key, int absent) {
        int mask = keys.length - 1;
        int slot = slot(key, mask);
        while (true) {
            long k = keys[slot];
            if (k == key) {
                return values[slot];
            }
            if (k == FREE) {
                return absent;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Sets {@code key} (non-negative) to {@code value}. */
    public void put(long key, int value) {
        values[claim(key)] = value;
        growWhenHalfFull();
    }

    /** Adds {@code delta} to the value of {@code key} (non-negative; a key never seen counts from 0). */
    public void add(long key, int delta) {
        values[claim(key)] += delta;
        growWhenHalfFull();
    }

    /** The number of distinct keys. */
    public int size() {
        return size;
    }

    /** An independent copy (for a report snapshot taken while samples keep arriving). */
    public LongIntTable copy() {
        return new LongIntTable(keys.clone(), values.clone(), size);
    }

    /** Visits every key with its value, in no particular order. */
    public void forEach(Entry visitor) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != FREE) {
                visitor.accept(keys[i], values[i]);
            }
        }
    }

    /** A primitive (key, value) visitor: no boxing while walking the table. */
    @FunctionalInterface
    public interface Entry {
        void accept(long key, int value);
    }

    /** The slot of {@code key}, taken with value 0 when the table did not hold it. */
    private int claim(long key) {
        if (key < 0) {
            throw new IllegalArgumentException("table key " + key + " is negative; keys are packed non-negative ids");
        }
        int mask = keys.length - 1;
        int slot = slot(key, mask);
        while (true) {
            long k = keys[slot];
            if (k == key) {
                return slot;
            }
            if (k == FREE) {
                keys[slot] = key;
                values[slot] = 0;
                size++;
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    private void growWhenHalfFull() {
        if (size * 2 > keys.length) {
            grow();
        }
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

    private static int slot(long key, int mask) {
        return (int) Hashing.mix(key) & mask;
    }
}
