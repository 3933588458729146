package org.hyperprof.report.kit;

/** The hash mixing the reports' primitive tables share. */
public final class Hashing {

    private Hashing() {
    }

    /**
     * A full 64-bit mix (MurmurHash3's finalizer): keys that differ in only a few bits, high or low
     * (neighbouring PCs, consecutive ids, a parent node and a frame packed in two halves), must land
     * in unrelated slots.
     */
    public static long mix(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
