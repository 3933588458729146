package org.hyperprof.api.symbols;

import java.util.Arrays;

/**
 * An image's function symbols as sorted primitive arrays: start address, size, name. Lookup is a
 * binary search and does not allocate. Immutable and shared between sessions.
 */
public final class SymbolTable {
    private final String imageName;
    private final long[] starts;
    private final long[] sizes;
    private final String[] names;
    private final String[] modules;

    /**
     * @param imageName the image
     * @param starts    start addresses, strictly ascending
     * @param sizes     sizes in bytes (each &gt; 0)
     * @param names     symbol names
     * @param modules   module names (kallsyms' {@code [module]} column), or null entries
     */
    public SymbolTable(String imageName, long[] starts, long[] sizes, String[] names, String[] modules) {
        int n = starts.length;
        if (sizes.length != n || names.length != n || modules.length != n) {
            throw new IllegalArgumentException("symbol arrays of " + imageName + " differ in length");
        }
        for (int i = 1; i < n; i++) {
            if (Long.compareUnsigned(starts[i - 1], starts[i]) >= 0) {
                throw new IllegalArgumentException("symbols of " + imageName + " are not strictly ascending at "
                        + names[i] + " (0x" + Long.toHexString(starts[i]) + ")");
            }
        }
        this.imageName = imageName;
        this.starts = starts.clone();
        this.sizes = sizes.clone();
        this.names = names.clone();
        this.modules = modules.clone();
    }

    public String imageName() {
        return imageName;
    }

    /** Number of symbols. */
    public int size() {
        return starts.length;
    }

    public long start(int index) {
        return starts[index];
    }

    public long symbolSize(int index) {
        return sizes[index];
    }

    public String name(int index) {
        return names[index];
    }

    /** The module a symbol belongs to (kallsyms' module column), or null. */
    public String module(int index) {
        return modules[index];
    }

    /** Index of the symbol containing {@code address} (start &lt;= address &lt; start + size), or -1. */
    public int lookup(long address) {
        int lo = 0;
        int hi = starts.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (hi < 0) {
            return -1;
        }
        return Long.compareUnsigned(address - starts[hi], sizes[hi]) < 0 ? hi : -1;
    }

    /** Index of the symbol with that name, or -1 (linear; not for the sampling path). */
    public int indexOf(String name) {
        return Arrays.asList(names).indexOf(name);
    }

    @Override
    public String toString() {
        return "SymbolTable[" + imageName + ", " + starts.length + " symbols]";
    }
}
