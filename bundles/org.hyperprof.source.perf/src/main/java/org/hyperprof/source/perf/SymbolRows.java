package org.hyperprof.source.perf;

import java.util.Arrays;

import org.hyperprof.api.symbols.SymbolTable;

/**
 * Symbols as a file gives them (labels, PLT stubs, JIT map lines): each one's start, a value that
 * goes with it (its size, or an end still to be settled) and its name, made into a
 * {@link SymbolTable} once complete.
 */
final class SymbolRows {
    long[] starts;
    long[] values;
    String[] names;
    int count;

    SymbolRows(int capacity) {
        int c = Math.max(capacity, 1);
        starts = new long[c];
        values = new long[c];
        names = new String[c];
    }

    void add(long start, long value, String name) {
        if (count == starts.length) {
            starts = Arrays.copyOf(starts, count * 2);
            values = Arrays.copyOf(values, count * 2);
            names = Arrays.copyOf(names, count * 2);
        }
        starts[count] = start;
        values[count] = value;
        names[count] = name;
        count++;
    }

    /**
     * Sorts the rows by start (unsigned, stable); of several at one start the one read last stands,
     * as perf keeps the last of labels at one address and of JIT map lines for code regenerated there.
     */
    void sortByStart() {
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        long[] from = starts;
        Arrays.sort(order, (a, b) -> Long.compareUnsigned(from[a], from[b]));
        long[] s = new long[count];
        long[] v = new long[count];
        String[] m = new String[count];
        int k = 0;
        for (int i : order) {
            if (k > 0 && s[k - 1] == starts[i]) {
                k--;
            }
            s[k] = starts[i];
            v[k] = values[i];
            m[k] = names[i];
            k++;
        }
        starts = s;
        values = v;
        names = m;
        count = k;
    }

    /** Drops the rows whose value (a size by now) is not positive. */
    void dropEmpty() {
        int m = 0;
        for (int j = 0; j < count; j++) {
            if (values[j] > 0) {
                starts[m] = starts[j];
                values[m] = values[j];
                names[m] = names[j];
                m++;
            }
        }
        count = m;
    }

    /** The rows as a table whose sizes are the values, or null when there are none. */
    SymbolTable table(String imageName) {
        return count == 0 ? null : new SymbolTable(imageName, Arrays.copyOf(starts, count),
                Arrays.copyOf(values, count), Arrays.copyOf(names, count), new String[count]);
    }
}
