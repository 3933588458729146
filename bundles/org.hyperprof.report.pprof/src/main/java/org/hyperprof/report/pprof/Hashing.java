package org.hyperprof.report.pprof;

/** The hash mixing the primitive tables share. */
final class Hashing {

    private Hashing() {
    }

    /**
     * A full 64-bit mix (MurmurHash3's finalizer): keys that differ in only a few bits, high or low
     * (neighbouring PCs, consecutive ids), must land in unrelated slots.
     */
    static long mix(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
