package org.hyperprof.store.duckdb;

import java.util.Arrays;
import java.util.BitSet;

import org.hyperprof.api.sample.SessionDictionary;

/**
 * The ids a session's rows, stacks and mappings use, each once and in order: only their names are
 * stored (a kernel's symbol table has tens of thousands of names; a session uses a few hundred).
 *
 * @param images    image ids (those of the dictionary's mappings too)
 * @param symbols   symbol ids (address symbols included, "no symbol" not)
 * @param processes each process as its domain in the high 32 bits and its pid in the low
 */
record UsedNames(int[] images, int[] symbols, long[] processes) {

    static UsedNames of(SessionDictionary dictionary, SampleRows rows) {
        StackTable stacks = rows.stacks();
        int frames = stacks.frames();
        int mappings = dictionary.mappingCount();
        int[] images = new int[rows.size() + frames + mappings];
        int[] symbols = new int[rows.size() + frames];
        long[] processes = new long[rows.size()];
        int p = 0;
        for (int r = 0; r < rows.size(); r++) {
            images[r] = rows.column(r, SampleRows.IMAGE);
            symbols[r] = rows.column(r, SampleRows.SYMBOL);
            if (rows.column(r, SampleRows.PID) >= 0) {
                processes[p++] = ((long) rows.column(r, SampleRows.DOMAIN) << 32) | rows.column(r, SampleRows.PID);
            }
        }
        int[] next = {rows.size()};
        stacks.forEachFrame((stack, depth, pc, image, symbol, mode) -> {
            images[next[0]] = image;
            symbols[next[0]++] = symbol;
        });
        for (int m = 0; m < mappings; m++) {
            images[rows.size() + frames + m] = dictionary.mapping(m).image();
        }
        return new UsedNames(distinct(images, 0, dictionary.imageCount()),
                distinct(symbols, SessionDictionary.addressSymbolOf(dictionary.addressCount() - 1),
                        dictionary.symbolCount()),
                Arrays.stream(processes, 0, p).sorted().distinct().toArray());
    }

    /**
     * The distinct ids in [{@code from}, {@code to}), in order, "no symbol" left out: marked in a
     * bit set over the range (the rows and frames of a large import are a million ids; sorting
     * them took most of a session's end write).
     */
    private static int[] distinct(int[] ids, int from, int to) {
        BitSet seen = new BitSet(Math.max(0, to - from));
        for (int i : ids) {
            if (i >= from && i < to && i != SessionDictionary.NO_SYMBOL) {
                seen.set(i - from);
            }
        }
        int[] out = new int[seen.cardinality()];
        int n = 0;
        for (int b = seen.nextSetBit(0); b >= 0; b = seen.nextSetBit(b + 1)) {
            out[n++] = b + from;
        }
        return out;
    }
}
