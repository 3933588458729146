package org.hyperprof.pipeline;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The dictionary's address symbols: each (image, address) pair that no symbol covers, as perf keys
 * its {@code [unknown]} rows, numbered densely as met so that reports index arrays by them.
 *
 * <p>A recording of many short processes meets such an address in every process anew (a stripped
 * program's addresses move with each run), so {@link #intern} is on a resolver's miss path hundreds
 * of thousands of times, and most of those keys are new: the table keeps each key and its number in
 * one pair of longs, one cache line per probe, and the adding side keeps a byte per slot beside it
 * ({@link #marks}), so that it learns a key is new from a few hundred kilobytes that stay in the
 * cache rather than from the table's megabytes, which mostly do not.
 *
 * <p>Threads: one adds at a time ({@link Dictionary} serialises them); any thread looks up. A
 * slot's address is written before its second long, which is written with release semantics and
 * read with acquire: a lookup that sees a slot taken sees its key whole, and one that sees it empty
 * goes on as if it were (a key added before the lookup was handed to it is always found). A grown
 * table holds every older entry and is published whole.
 */
final class AddressSymbols {

    /** By number, the image (as owner) and the address. */
    private final DictionaryTable entries = new DictionaryTable(1024, false, false, true);

    /** Pairs of (address, image << 32 | number + 1); a second long of 0 marks an empty pair. */
    private volatile long[] table = new long[2 * 2048];

    /**
     * The adding side's copy of which slots are taken, one byte per slot of {@link #table}: 0 for
     * an empty slot, else {@link #mark} of the key there. Only the one adding reads or writes it.
     */
    private byte[] marks = new byte[2048];

    /** The second long of a slot, written last (release) and read first (acquire). */
    private static final VarHandle TAG = MethodHandles.arrayElementVarHandle(long[].class);

    private static long hash(int img, long addr) {
        return (addr ^ ((long) img << 47)) * 0x9E3779B97F4A7C15L;
    }

    /** A key's first slot: the hash's high bits. */
    private static int slot(long hash, int mask) {
        return (int) (hash >>> 32) & mask;
    }

    /** A key's mark: the top bit set, and seven bits of the hash that {@link #slot} does not use. */
    private static byte mark(long hash) {
        return (byte) (0x80 | (int) (hash >>> 25) & 0x7F);
    }

    /** The number of (image, address), or -1 if it has none yet. */
    int find(int img, long addr) {
        long[] t = table;
        int m = (t.length >>> 1) - 1;
        int i = slot(hash(img, addr), m);
        while (true) {
            long v = (long) TAG.getAcquire(t, 2 * i + 1);
            if (v == 0) {
                return -1;
            }
            if (t[2 * i] == addr && (int) (v >>> 32) == img) {
                return (int) v - 1;
            }
            i = (i + 1) & m;
        }
    }

    /**
     * The number of (image, address), made on first sight; the caller is the only one adding. The
     * table itself is read only where the key's mark is met (the key, or one in 128 others).
     */
    int intern(int img, long addr) {
        long h = hash(img, addr);
        byte mark = mark(h);
        long[] t = table;
        byte[] mk = marks;
        int m = mk.length - 1;
        int i = slot(h, m);
        for (byte b; (b = mk[i]) != 0; i = (i + 1) & m) {
            if (b == mark && t[2 * i] == addr && (int) (t[2 * i + 1] >>> 32) == img) {
                return (int) t[2 * i + 1] - 1;
            }
        }
        int id = entries.add(null, img, null, addr);
        if (2 * (id + 1) > mk.length) {
            grow(id + 1);
        } else {
            t[2 * i] = addr;
            TAG.setRelease(t, 2 * i + 1, ((long) img << 32) | (id + 1));
            mk[i] = mark;
        }
        return id;
    }

    /**
     * Room for {@code more} new keys beyond those numbered, made at once: a caller about to add
     * many grows the table once rather than by doubling as they come.
     */
    void reserve(int more) {
        int n = entries.count();
        long needed = 2L * (n + more + 1);
        if (needed > marks.length && needed <= 1 << 30) {
            int slots = Integer.highestOneBit((int) needed - 1) << 1;
            entries.reserve(n + more);
            rehash(n, slots);
        }
    }

    /** A table of twice the slots, placing every entry from the dense arrays, published whole. */
    private void grow(int n) {
        rehash(n, 2 * marks.length);
    }

    /** A table of {@code slots} slots (a power of two), placing the first {@code n} entries, published whole. */
    private void rehash(int n, int slots) {
        long[] t = new long[2 * slots];
        byte[] mk = new byte[slots];
        int m = slots - 1;
        DictionaryTable.Entries e = entries.entries();
        for (int id = 0; id < n; id++) {
            long h = hash(e.owners[id], e.addresses[id]);
            int i = slot(h, m);
            while (mk[i] != 0) {
                i = (i + 1) & m;
            }
            t[2 * i] = e.addresses[id];
            t[2 * i + 1] = ((long) e.owners[id] << 32) | (id + 1);
            mk[i] = mark(h);
        }
        marks = mk;
        table = t;
    }

    int count() {
        return entries.count();
    }

    int image(int id) {
        return entries(id).owners[id];
    }

    long address(int id) {
        return entries(id).addresses[id];
    }

    private DictionaryTable.Entries entries(int id) {
        int n = entries.count();
        if (id < 0 || id >= n) {
            throw new IllegalArgumentException("address symbol " + id + " is not in this session's dictionary, "
                    + "which has " + n + " (numbers 0.." + (n - 1) + ")");
        }
        return entries.entries();
    }
}
