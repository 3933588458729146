package org.hyperprof.source.perf;

import java.util.Arrays;

/**
 * The frames that no symbol covers, each an (image, address) pair as perf keys its
 * {@code [unknown]} rows, numbered densely as they are met, so that reports index arrays by them.
 * Written by the importing thread; read by reports on the same thread.
 */
final class UnknownFrames {

    private final LongPairIntMap ids = new LongPairIntMap(1024);
    private int[] image = new int[1024];
    private long[] address = new long[1024];
    private int count;

    /** The id of (image, address), made on first sight. */
    int id(int img, long addr) {
        int id = ids.get(img, addr);
        if (id != LongPairIntMap.ABSENT) {
            return id;
        }
        id = count++;
        if (id == image.length) {
            image = Arrays.copyOf(image, id * 2);
            address = Arrays.copyOf(address, id * 2);
        }
        image[id] = img;
        address[id] = addr;
        ids.put(img, addr, id);
        return id;
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
