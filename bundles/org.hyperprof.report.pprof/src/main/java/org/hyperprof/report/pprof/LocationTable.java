package org.hyperprof.report.pprof;

import java.util.Arrays;

import org.hyperprof.report.kit.EntrySlots;
import org.hyperprof.report.kit.Hashing;

/**
 * The distinct program counters of a session, each with the image and symbol the daemon resolved
 * it to: a pprof {@code Location} each. Interning a PC that is already known allocates nothing;
 * the arrays double only when a new entry fills half the slots.
 *
 * <p>Memory is bounded: past {@code exactLimit} distinct PCs, a PC not seen before is folded into
 * one location per function ({@link #FUNCTION_LEVEL} as its PC), so the table then grows only with
 * the session's symbols. Per-function totals stay exact; only per-address detail is lost, and the
 * folded samples are counted.
 *
 * <p>Not thread-safe: {@link SessionStacks} guards it.
 */
final class LocationTable {

    /** The PC of a location that stands for a whole function (its address is unknown). */
    static final long FUNCTION_LEVEL = -1L;

    private final int exactLimit;
    private long[] pcs;
    private int[] images;
    private int[] symbols;
    private int size;
    private int exact;
    /** The index over the locations (null in a read-only copy). */
    private final EntrySlots slots;
    private long folded;

    LocationTable(int exactLimit) {
        if (exactLimit < 1) {
            throw new IllegalArgumentException("the location table must hold at least 1 exact PC, not " + exactLimit);
        }
        this.exactLimit = exactLimit;
        pcs = new long[64];
        images = new int[64];
        symbols = new int[64];
        slots = new EntrySlots(128, this::hashOf);
    }

    private LocationTable(LocationTable from) {
        exactLimit = from.exactLimit;
        pcs = Arrays.copyOf(from.pcs, from.size);
        images = Arrays.copyOf(from.images, from.size);
        symbols = Arrays.copyOf(from.symbols, from.size);
        size = from.size;
        exact = from.exact;
        slots = null;
        folded = from.folded;
    }

    /**
     * The location index of (image, symbol, pc), added if new. When the table already holds its
     * limit of exact PCs, a new PC gets its function's folded location instead.
     */
    int intern(int image, int symbol, long pc) {
        int found = find(image, symbol, pc);
        if (found >= 0) {
            return found;
        }
        if (pc != FUNCTION_LEVEL && exact >= exactLimit) {
            folded++;
            return intern(image, symbol, FUNCTION_LEVEL);
        }
        if (pc != FUNCTION_LEVEL) {
            exact++;
        }
        return add(image, symbol, pc);
    }

    /** The location index of (image, symbol, pc), or -1. */
    int find(int image, int symbol, long pc) {
        for (int slot = slots.first(hash(image, symbol, pc)); ; slot = slots.next(slot)) {
            int index = slots.entry(slot);
            if (index == EntrySlots.FREE || pcs[index] == pc && images[index] == image && symbols[index] == symbol) {
                return index;
            }
        }
    }

    int size() {
        return size;
    }

    long pc(int location) {
        return pcs[location];
    }

    int image(int location) {
        return images[location];
    }

    int symbol(int location) {
        return symbols[location];
    }

    /** PCs that met a full table and were counted at their function's location instead. */
    long folded() {
        return folded;
    }

    int exactLimit() {
        return exactLimit;
    }

    /** A read-only copy of the entries (for a snapshot); it cannot intern. */
    LocationTable copy() {
        return new LocationTable(this);
    }

    private int add(int image, int symbol, long pc) {
        int index = size;
        if (index == pcs.length) {
            int n = index * 2;
            pcs = Arrays.copyOf(pcs, n);
            images = Arrays.copyOf(images, n);
            symbols = Arrays.copyOf(symbols, n);
        }
        pcs[index] = pc;
        images[index] = image;
        symbols[index] = symbol;
        size = index + 1;
        slots.add(index, hash(image, symbol, pc));
        return index;
    }

    private long hashOf(int index) {
        return hash(images[index], symbols[index], pcs[index]);
    }

    private static long hash(int image, int symbol, long pc) {
        return Hashing.mix(pc ^ Hashing.mix(((long) image << 32) | (symbol & 0xFFFFFFFFL)));
    }
}
