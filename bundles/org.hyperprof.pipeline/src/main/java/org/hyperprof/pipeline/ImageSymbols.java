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
 */
public final class ImageSymbols {
    /** An address no slot holds yet (no image maps code there). */
    private static final long EMPTY = Long.MIN_VALUE;
    private static final int NOT_YET = -2;

    private final Dictionary dictionary;
    private final int image;
    private final SymbolTable table;
    /** By table index: the dictionary's id, or {@link #NOT_YET}. */
    private final int[] ids;
    /** Open addressing, key and id side by side (one cache line per probe): address, id, address, id, ... */
    private long[] slots = new long[2 << 12];
    private int shift = 64 - 12;
    private int used;

    public ImageSymbols(Dictionary dictionary, int image, SymbolTable table) {
        this.dictionary = dictionary;
        this.image = image;
        this.table = table;
        this.ids = new int[table.size()];
        Arrays.fill(ids, NOT_YET);
        emptied(slots);
    }

    /** The image's dictionary id. */
    public int image() {
        return image;
    }

    /** The dictionary's symbol id of the symbol covering {@code address}, or {@link SessionDictionary#NO_SYMBOL}. */
    public int symbol(long address) {
        long[] t = slots;
        int mask = t.length - 2;
        int at = (int) ((address * 0x9E3779B97F4A7C15L) >>> shift) << 1;
        while (true) {
            long k = t[at];
            if (k == address && address != EMPTY) {
                return (int) t[at + 1];
            }
            if (k == EMPTY) {
                break;
            }
            at = (at + 2) & mask;
        }
        int id = resolve(address);
        if (address != EMPTY) {
            t[at] = address;
            t[at + 1] = id;
            if (++used > t.length >>> 2) {
                grow();
            }
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

    private static void emptied(long[] t) {
        for (int i = 0; i < t.length; i += 2) {
            t[i] = EMPTY;
        }
    }

    private void grow() {
        long[] old = slots;
        long[] t = new long[old.length * 2];
        emptied(t);
        shift--;
        int mask = t.length - 2;
        for (int i = 0; i < old.length; i += 2) {
            long k = old[i];
            if (k != EMPTY) {
                int at = (int) ((k * 0x9E3779B97F4A7C15L) >>> shift) << 1;
                while (t[at] != EMPTY) {
                    at = (at + 2) & mask;
                }
                t[at] = k;
                t[at + 1] = old[i + 1];
            }
        }
        slots = t;
    }
}
