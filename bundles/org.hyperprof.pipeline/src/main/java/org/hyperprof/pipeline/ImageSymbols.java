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
        long offset = address - base;
        if (Long.compareUnsigned(offset, NO_OFFSET) >= 0) {
            return resolve(address);
        }
        long[] t = slots;
        int mask = t.length - 1;
        int at = (int) ((offset * 0x9E3779B97F4A7C15L) >>> shift);
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
                int at = (int) (((slot >>> 32) * 0x9E3779B97F4A7C15L) >>> shift);
                while (t[at] != EMPTY) {
                    at = (at + 1) & mask;
                }
                t[at] = slot;
            }
        }
        slots = t;
    }
}
