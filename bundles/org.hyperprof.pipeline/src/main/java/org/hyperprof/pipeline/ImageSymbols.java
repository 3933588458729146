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
    private long[] addresses = new long[1 << 12];
    private int[] addressIds = new int[1 << 12];
    private int shift = 64 - 12;
    private int used;

    public ImageSymbols(Dictionary dictionary, int image, SymbolTable table) {
        this.dictionary = dictionary;
        this.image = image;
        this.table = table;
        this.ids = new int[table.size()];
        Arrays.fill(ids, NOT_YET);
        Arrays.fill(addresses, EMPTY);
    }

    /** The image's dictionary id. */
    public int image() {
        return image;
    }

    /** The dictionary's symbol id of the symbol covering {@code address}, or {@link SessionDictionary#NO_SYMBOL}. */
    public int symbol(long address) {
        long[] keys = addresses;
        int mask = keys.length - 1;
        int slot = (int) ((address * 0x9E3779B97F4A7C15L) >>> shift);
        while (true) {
            long k = keys[slot];
            if (k == address && address != EMPTY) {
                return addressIds[slot];
            }
            if (k == EMPTY) {
                break;
            }
            slot = (slot + 1) & mask;
        }
        int id = resolve(address);
        if (address != EMPTY) {
            keys[slot] = address;
            addressIds[slot] = id;
            if (++used > keys.length >>> 1) {
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

    private void grow() {
        long[] oldKeys = addresses;
        int[] oldIds = addressIds;
        long[] keys = new long[oldKeys.length * 2];
        int[] values = new int[keys.length];
        Arrays.fill(keys, EMPTY);
        shift--;
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            long k = oldKeys[i];
            if (k != EMPTY) {
                int slot = (int) ((k * 0x9E3779B97F4A7C15L) >>> shift);
                while (keys[slot] != EMPTY) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = k;
                values[slot] = oldIds[i];
            }
        }
        addresses = keys;
        addressIds = values;
    }
}
