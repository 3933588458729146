package org.hyperprof.source.perf;

import java.util.Arrays;

/**
 * The frames that no symbol covers, each an (image, address) pair as perf keys its
 * {@code [unknown]} rows, numbered densely as they are met, so that reports index arrays by them.
 * Written by the importing thread; read by reports on the same thread.
 *
 * <p>A recording of many short processes meets such a frame in every process anew (a stripped
 * program's addresses move with each run), so the lookup is on the resolver's miss path hundreds
 * of thousands of times: the table keeps each key and its id in one pair of longs, one cache line
 * per probe, rather than in three arrays.
 */
final class UnknownFrames {

    /** Pairs of (address, image << 32 | id + 1); a second long of 0 marks an empty pair. */
    private long[] table = new long[2 * 2048];
    private int mask = 2047;
    private int[] image = new int[1024];
    private long[] address = new long[1024];
    private int count;

    private static int slot(int img, long addr, int mask) {
        long h = (addr ^ ((long) img << 47)) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }

    /** The id of (image, address), made on first sight. */
    int id(int img, long addr) {
        long[] t = table;
        int m = mask;
        int i = slot(img, addr, m);
        while (true) {
            long v = t[2 * i + 1];
            if (v == 0) {
                break;
            }
            if (t[2 * i] == addr && (int) (v >>> 32) == img) {
                return (int) v - 1;
            }
            i = (i + 1) & m;
        }
        int id = count++;
        if (id == image.length) {
            image = Arrays.copyOf(image, id * 2);
            address = Arrays.copyOf(address, id * 2);
        }
        image[id] = img;
        address[id] = addr;
        t[2 * i] = addr;
        t[2 * i + 1] = ((long) img << 32) | (id + 1);
        if (count * 2 > m + 1) {
            grow();
        }
        return id;
    }

    /** Doubles the table, placing every id again from the dense arrays. */
    private void grow() {
        int m = 2 * (mask + 1) - 1;
        long[] t = new long[2 * (m + 1)];
        for (int id = 0; id < count; id++) {
            int i = slot(image[id], address[id], m);
            while (t[2 * i + 1] != 0) {
                i = (i + 1) & m;
            }
            t[2 * i] = address[id];
            t[2 * i + 1] = ((long) image[id] << 32) | (id + 1);
        }
        table = t;
        mask = m;
    }

    int count() {
        return count;
    }

    int image(int id) {
        return image[id];
    }

    long address(int id) {
        return address[id];
    }
}
