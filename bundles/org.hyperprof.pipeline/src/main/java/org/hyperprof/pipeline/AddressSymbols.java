package org.hyperprof.pipeline;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The dictionary's address symbols: each (image, address) pair that no symbol covers, as perf keys
 * its {@code [unknown]} rows, numbered densely as met so that reports index arrays by them.
 *
 * <p>A recording of many short processes meets such an address in every process anew (a stripped
 * program's addresses move with each run), so the lookup is on a resolver's miss path hundreds of
 * thousands of times: the table keeps each key and its number in one pair of longs, one cache line
 * per probe, rather than in three arrays.
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

    /** The second long of a slot, written last (release) and read first (acquire). */
    private static final VarHandle TAG = MethodHandles.arrayElementVarHandle(long[].class);

    private static int slot(int img, long addr, int mask) {
        long h = (addr ^ ((long) img << 47)) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }

    /** The number of (image, address), or -1 if it has none yet. */
    int find(int img, long addr) {
        long[] t = table;
        int m = (t.length >>> 1) - 1;
        int i = slot(img, addr, m);
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

    /** Numbers (image, address), which has none yet; the caller is the only one adding. */
    int add(int img, long addr) {
        int id = entries.add(null, img, null, addr);
        long[] t = table;
        if (2 * (id + 1) > t.length >>> 1) {
            t = grown(t.length, entries.entries(), id + 1);
            table = t;
        } else {
            int m = (t.length >>> 1) - 1;
            int i = slot(img, addr, m);
            while (t[2 * i + 1] != 0) {
                i = (i + 1) & m;
            }
            t[2 * i] = addr;
            TAG.setRelease(t, 2 * i + 1, ((long) img << 32) | (id + 1));
        }
        return id;
    }

    /** A table of twice the length, placing every entry from the dense arrays. */
    private static long[] grown(int length, DictionaryTable.Entries e, int n) {
        long[] t = new long[2 * length];
        int m = length - 1;
        for (int id = 0; id < n; id++) {
            int i = slot(e.owners[id], e.addresses[id], m);
            while (t[2 * i + 1] != 0) {
                i = (i + 1) & m;
            }
            t[2 * i] = e.addresses[id];
            t[2 * i + 1] = ((long) e.owners[id] << 32) | (id + 1);
        }
        return t;
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
