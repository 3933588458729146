package org.hyperprof.source.perf;

import java.util.Arrays;

/**
 * Samples and period counted by address key (a pair of longs), for a flat import that resolves
 * each distinct address once at the end instead of each sample as it comes. A recording holds tens
 * of thousands of distinct addresses, so the table outgrows the caches: each slot keeps its key
 * and its counts side by side (one cache line for a lookup, not one per array), and the keys are
 * remembered in the order first met, which is the order they are resolved in.
 */
final class AddressCounts {

    /** Longs per slot: first, second, samples (0 for a free slot), period. */
    private static final int SLOT = 4;

    private long[] table;
    private int mask;
    /** Slot of each key, in the order first met. */
    private int[] firstMet;
    /** What the caller tells of each key's first sample ({@link #add(long, long, long, long, long)}), in the same order. */
    private long[] firstSample;
    private int size;

    AddressCounts(int expected) {
        int slots = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        table = new long[slots * SLOT];
        mask = slots - 1;
        firstMet = new int[Math.max(16, expected)];
        firstSample = new long[firstMet.length];
    }

    int size() {
        return size;
    }

    private static int hash(long a, long b) {
        long h = (a * 0x9E3779B97F4A7C15L) ^ (b * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 29;
        return (int) (h ^ (h >>> 32));
    }

    /** Counts one sample of {@code period} at key (a, b). */
    void add(long a, long b, long period) {
        add(a, b, 1, period);
    }

    /** Counts {@code samples} samples of {@code period} in all at key (a, b). */
    void add(long a, long b, long samples, long period) {
        add(a, b, samples, period, 0);
    }

    /**
     * Counts {@code samples} samples of {@code period} in all at key (a, b); {@code first} is kept
     * for a key met for the first time, and handed on with it (the first sample's thread, say).
     */
    void add(long a, long b, long samples, long period, long first) {
        long[] t = table;
        int m = mask;
        int i = hash(a, b) & m;
        while (true) {
            int s = i * SLOT;
            long had = t[s + 2];
            if (had == 0) {
                t[s] = a;
                t[s + 1] = b;
                t[s + 2] = samples;
                t[s + 3] = period;
                added(s, first);
                return;
            }
            if (t[s] == a && t[s + 1] == b) {
                t[s + 2] = had + samples;
                t[s + 3] += period;
                return;
            }
            i = (i + 1) & m;
        }
    }

    private void added(int slot, long first) {
        if (size == firstMet.length) {
            firstMet = Arrays.copyOf(firstMet, size * 2);
            firstSample = Arrays.copyOf(firstSample, size * 2);
        }
        firstSample[size] = first;
        firstMet[size++] = slot;
        if (size * 2 > mask + 1) {
            grow();
        }
    }

    private void grow() {
        long[] old = table;
        int slots = (mask + 1) * 2;
        table = new long[slots * SLOT];
        mask = slots - 1;
        for (int k = 0; k < size; k++) {
            int s = firstMet[k];
            int i = hash(old[s], old[s + 1]) & mask;
            while (table[i * SLOT + 2] != 0) {
                i = (i + 1) & mask;
            }
            int n = i * SLOT;
            System.arraycopy(old, s, table, n, SLOT);
            firstMet[k] = n;
        }
    }

    /** Receives each key once, in the order first met. */
    interface Visitor {
        void key(long a, long b, long samples, long period, long first);
    }

    /** Hands on every key in the order first met, then empties the table (keeping its room). */
    void drain(Visitor to) {
        long[] t = table;
        int n = size;
        size = 0;
        for (int k = 0; k < n; k++) {
            int s = firstMet[k];
            long a = t[s];
            long b = t[s + 1];
            long samples = t[s + 2];
            long period = t[s + 3];
            t[s + 2] = 0;
            to.key(a, b, samples, period, firstSample[k]);
        }
    }
}
