package org.hyperprof.api.symbols;

import java.util.Arrays;

/**
 * An image's function symbols as sorted primitive arrays: start address, size, name. Lookup is a
 * binary search and does not allocate. Immutable and shared between sessions.
 *
 * <p>A table made with {@link #adopting} makes each name when it is first asked for: a kernel
 * has about 120,000 symbols and a profile names a few thousand of them.
 */
public final class SymbolTable {
    private final String imageName;
    private final long[] starts;
    private final long[] sizes;
    /** The names made so far (all of them for a table made with the constructor). */
    private final String[] names;
    /** Makes name {@code i} when it is first asked for; null when every name is in {@link #names}. */
    private final java.util.function.IntFunction<String> nameOf;
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
        this.nameOf = null;
        this.modules = modules.clone();
    }

    private SymbolTable(String imageName, long[] starts, long[] sizes, java.util.function.IntFunction<String> nameOf,
            String[] modules) {
        this.imageName = imageName;
        this.starts = starts;
        this.sizes = sizes;
        this.names = new String[starts.length];
        this.nameOf = nameOf;
        this.modules = modules;
    }

    /**
     * A table that takes the arrays as its own (the caller made them for it and must not change
     * them: nothing is copied) and makes each name only when it is first asked for.
     *
     * @param imageName the image
     * @param starts    start addresses, strictly ascending
     * @param sizes     sizes in bytes (each &gt; 0)
     * @param nameOf    the name of symbol {@code i}; called at most about once per symbol, from any
     *                  thread, so it must be safe to call from several (a decoding of bytes that no
     *                  one changes)
     * @param modules   module names (kallsyms' {@code [module]} column), or null entries
     */
    public static SymbolTable adopting(String imageName, long[] starts, long[] sizes,
            java.util.function.IntFunction<String> nameOf, String[] modules) {
        int n = starts.length;
        if (sizes.length != n || modules.length != n) {
            throw new IllegalArgumentException("symbol arrays of " + imageName + " differ in length");
        }
        java.util.Objects.requireNonNull(nameOf, "nameOf");
        for (int i = 1; i < n; i++) {
            if (Long.compareUnsigned(starts[i - 1], starts[i]) >= 0) {
                throw new IllegalArgumentException("symbols of " + imageName + " are not strictly ascending at "
                        + nameOf.apply(i) + " (0x" + Long.toHexString(starts[i]) + ")");
            }
        }
        return new SymbolTable(imageName, starts, sizes, nameOf, modules);
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
        String name = names[index];
        if (name == null && nameOf != null) {
            // Two threads may both make it: the same immutable string, kept by whichever writes last.
            name = nameOf.apply(index);
            names[index] = name;
        }
        return name;
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
        if (nameOf == null) {
            return Arrays.asList(names).indexOf(name);
        }
        for (int i = 0; i < starts.length; i++) {
            if (name.equals(name(i))) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "SymbolTable[" + imageName + ", " + starts.length + " symbols]";
    }
}
