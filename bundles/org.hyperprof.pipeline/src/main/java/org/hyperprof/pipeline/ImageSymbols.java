package org.hyperprof.pipeline;

import java.util.Arrays;

import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * One image's symbols in one session: an address (as the image's table counts it) to the
 * dictionary's symbol id, the symbol interned the first time it is hit. Each address is looked up
 * in the table (a binary search) once: after that it is one probe into a table of the addresses
 * met, which grows with them (code addresses are few: an image's sampled PCs and return
 * addresses). No allocation but when that table grows. Not thread-safe: one resolving thread (or
 * the caller's lock).
 *
 * <p>A slot is one long: the address as an offset from the image's first symbol (upper half) and
 * the id (lower half), so the table is half the size it would be with the address in full and
 * stays in the cache while batches stream through it. An address more than 4 GiB past the first
 * symbol (or before it) is looked up in the table every time: no image's code spans that.
 */
public final class ImageSymbols {
    /** No address is at this offset (the largest one is never stored). */
    private static final long EMPTY = -1L;
    private static final long NO_OFFSET = 0xFFFF_FFFFL;
    private static final int NOT_YET = -2;
    /** Fibonacci hashing: the offset times 2^64 / phi, its top bits the slot. */
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final Dictionary dictionary;
    private final int image;
    private final SymbolTable table;
    /** The first symbol's address: slots hold offsets from it. */
    private final long base;
    /** By table index: the dictionary's id, or {@link #NOT_YET}. */
    private final int[] ids;
    /** Open addressing: offset << 32 | id, {@link #EMPTY} where none. */
    private long[] slots = new long[1 << 12];
    private int shift = 64 - 12;
    private int used;

    public ImageSymbols(Dictionary dictionary, int image, SymbolTable table) {
        this.dictionary = dictionary;
        this.image = image;
        this.table = table;
        this.base = table.size() == 0 ? 0 : table.start(0);
        this.ids = new int[table.size()];
        Arrays.fill(ids, NOT_YET);
        Arrays.fill(slots, EMPTY);
    }

    /** The image's dictionary id. */
    public int image() {
        return image;
    }

    /** The dictionary's symbol id of the symbol covering {@code address}, or {@link SessionDictionary#NO_SYMBOL}. */
    public int symbol(long address) {
        long slot = known(address);
        return slot != EMPTY ? (int) slot : probe(address);
    }

    /**
     * Resolves {@code count} addresses from {@code from} in {@code addresses} into {@code ids} from
     * {@code at}, each as {@link #symbol} answers it: a call chain in one call, whose loop keeps the
     * probe inlined (a compiled {@link #symbol} grows too big for the compiler to inline it).
     */
    public void symbols(long[] addresses, int from, int count, int[] ids, int at) {
        for (int k = 0; k < count; k++) {
            long address = addresses[from + k];
            long slot = known(address);
            ids[at + k] = slot != EMPTY ? (int) slot : probe(address);
        }
    }

    /**
     * The slot of an address met before and found at its first probe, as nearly every one is;
     * otherwise {@link #EMPTY}. It never calls out, so the compiler inlines it into the resolving
     * loop: a call per address would cost more than the probe.
     */
    private long known(long address) {
        long offset = address - base;
        long slot = slots[(int) ((offset * GOLDEN) >>> shift)];
        // A stored offset is below NO_OFFSET: only an empty slot matches that offset's upper half.
        return slot >>> 32 == offset ? slot : EMPTY;
    }

    /** The whole probe sequence, and the symbol table for an address not met before. */
    private int probe(long address) {
        long offset = address - base;
        if (Long.compareUnsigned(offset, NO_OFFSET) >= 0) {
            return resolve(address);
        }
        long[] t = slots;
        int mask = t.length - 1;
        int at = (int) ((offset * GOLDEN) >>> shift);
        while (true) {
            long slot = t[at];
            if (slot >>> 32 == offset) {
                return (int) slot;
            }
            if (slot == EMPTY) {
                break;
            }
            at = (at + 1) & mask;
        }
        int id = resolve(address);
        t[at] = offset << 32 | (id & 0xFFFF_FFFFL);
        if (++used > t.length >>> 1) {
            grow();
        }
        return id;
    }

    private int resolve(long address) {
        int index = table.lookup(address);
        if (index < 0) {
            return SessionDictionary.NO_SYMBOL;
        }
        int id = ids[index];
        if (id == NOT_YET) {
            id = dictionary.addSymbol(table.name(index), image);
            ids[index] = id;
        }
        return id;
    }

    private void grow() {
        long[] old = slots;
        long[] t = new long[old.length * 2];
        Arrays.fill(t, EMPTY);
        shift--;
        int mask = t.length - 1;
        for (long slot : old) {
            if (slot != EMPTY) {
                int at = (int) (((slot >>> 32) * GOLDEN) >>> shift);
                while (t[at] != EMPTY) {
                    at = (at + 1) & mask;
                }
                t[at] = slot;
            }
        }
        slots = t;
    }
}
