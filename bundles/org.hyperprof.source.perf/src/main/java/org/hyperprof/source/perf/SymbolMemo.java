package org.hyperprof.source.perf;

import org.hyperprof.api.symbols.SymbolTable;

/**
 * The symbols a table's lookup found last, by the looked-up address's 256-byte block: a recording
 * meets tens of thousands of distinct kernel addresses (each a miss of the resolver's cache), most
 * of them in a function met before, whose symbol this gives without a binary search of the
 * kernel's hundred thousand. An entry holds the whole range of addresses for which the table's
 * lookup gives its symbol, so it answers only where the lookup would answer the same.
 */
final class SymbolMemo {

    private static final int ENTRY_BITS = 10;

    private final SymbolTable table;
    /** Per entry: the range's start, its length (0 for an empty entry) and the symbol's index. */
    private final long[] ranges = new long[3 << ENTRY_BITS];

    SymbolMemo(SymbolTable table) {
        this.table = table;
    }

    SymbolTable table() {
        return table;
    }

    /** What {@code table().lookup(address)} gives. */
    int lookup(long address) {
        long[] r = ranges;
        int e = 3 * (int) (((address >>> 8) * 0x9E3779B97F4A7C15L) >>> (64 - ENTRY_BITS));
        if (Long.compareUnsigned(address - r[e], r[e + 1]) < 0) {
            return (int) r[e + 2];
        }
        int idx = table.lookup(address);
        if (idx >= 0) {
            // The lookup gives idx from its start up to its end or the next symbol's start, whichever is first.
            long start = table.start(idx);
            long length = table.symbolSize(idx);
            if (idx + 1 < table.size() && Long.compareUnsigned(table.start(idx + 1) - start, length) < 0) {
                length = table.start(idx + 1) - start;
            }
            r[e] = start;
            r[e + 1] = length;
            r[e + 2] = idx;
        }
        return idx;
    }
}
