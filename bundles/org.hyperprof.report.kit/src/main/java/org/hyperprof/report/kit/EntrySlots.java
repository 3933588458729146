package org.hyperprof.report.kit;

import java.util.function.IntToLongFunction;

/**
 * The open-addressing index of a table whose entries live in its owner's own arrays (the owner
 * numbers them 0, 1, 2, ... and compares them itself): each slot holds an entry number + 1, 0 for
 * a free slot, and a lookup probes linearly from the entry's hash. The index doubles when half
 * full, placing every entry again by the hash its owner gives; a lookup allocates nothing.
 *
 * <pre>
 * for (int slot = index.first(hash); ; slot = index.next(slot)) {
 *     int entry = index.entry(slot);
 *     if (entry == EntrySlots.FREE || sameKey(entry, key)) {
 *         return entry;
 *     }
 * }
 * </pre>
 *
 * <p>Not thread-safe: its owner guards it.
 */
public final class EntrySlots {

    /** What {@link #entry} gives for a free slot: the key is not in the table. */
    public static final int FREE = -1;

    private final IntToLongFunction hashOf;
    private int[] slots;
    private int mask;

    /**
     * @param capacity slots at first: a power of two, at least 2
     * @param hashOf   the hash of entry {@code e}, the same the owner probes with: for regrowing
     */
    public EntrySlots(int capacity, IntToLongFunction hashOf) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("the slots of a table are a power of two, at least 2, not " + capacity);
        }
        this.hashOf = hashOf;
        this.slots = new int[capacity];
        this.mask = slots.length - 1;
    }

    /** The slot to probe first for {@code hash}. */
    public int first(long hash) {
        return (int) hash & mask;
    }

    /** The slot to probe after {@code slot}. */
    public int next(int slot) {
        return (slot + 1) & mask;
    }

    /** The entry in {@code slot}, or {@link #FREE}. */
    public int entry(int slot) {
        return slots[slot] - 1;
    }

    /**
     * Indexes the owner's newest entry, {@code entry} (the owner now holds {@code entry + 1}), under
     * {@code hash}; doubles the index when it is half full.
     */
    public void add(int entry, long hash) {
        place(entry, hash);
        int size = entry + 1;
        if (size * 2 > slots.length) {
            slots = new int[slots.length * 2];
            mask = slots.length - 1;
            for (int e = 0; e < size; e++) {
                place(e, hashOf.applyAsLong(e));
            }
        }
    }

    private void place(int entry, long hash) {
        int slot = first(hash);
        while (slots[slot] != 0) {
            slot = next(slot);
        }
        slots[slot] = entry + 1;
    }

    /** An independent copy, for a table's copy that keeps looking up. */
    public EntrySlots copy(IntToLongFunction copyHashOf) {
        EntrySlots copy = new EntrySlots(2, copyHashOf);
        copy.slots = slots.clone();
        copy.mask = mask;
        return copy;
    }
}
