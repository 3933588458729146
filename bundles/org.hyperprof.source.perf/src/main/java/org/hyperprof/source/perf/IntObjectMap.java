package org.hyperprof.source.perf;

/** An open-addressing map from int keys (pids) to objects: no boxing on lookups. */
final class IntObjectMap<T> {

    private int[] keys;
    private Object[] values;
    private int size;
    private int mask;

    IntObjectMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new int[cap];
        values = new Object[cap];
        mask = cap - 1;
    }

    private static int slot(int key, int mask) {
        int h = key * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    @SuppressWarnings("unchecked")
    T get(int key) {
        int i = slot(key, mask);
        while (values[i] != null) {
            if (keys[i] == key) {
                return (T) values[i];
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /** Sets the value of {@code key} (not null). */
    void put(int key, T value) {
        int i = slot(key, mask);
        while (values[i] != null) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        if (++size * 2 > keys.length) {
            int[] oldKeys = keys;
            Object[] oldValues = values;
            keys = new int[oldKeys.length * 2];
            values = new Object[oldKeys.length * 2];
            mask = keys.length - 1;
            size = 0;
            for (int k = 0; k < oldKeys.length; k++) {
                if (oldValues[k] != null) {
                    @SuppressWarnings("unchecked")
                    T v = (T) oldValues[k];
                    put(oldKeys[k], v);
                }
            }
        }
    }

    int size() {
        return size;
    }

    /** Each value, in no particular order. */
    @SuppressWarnings("unchecked")
    void forEach(java.util.function.Consumer<T> action) {
        for (Object v : values) {
            if (v != null) {
                action.accept((T) v);
            }
        }
    }
}
