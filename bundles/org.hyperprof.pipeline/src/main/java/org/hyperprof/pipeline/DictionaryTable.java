package org.hyperprof.pipeline;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.hyperprof.api.sample.ImageKind;

/**
 * One kind of dictionary entry (images, symbols, address symbols) by id: an owner (an image's
 * domain, a symbol's image) and, as the kind needs, a name, an image kind, an address. One writer
 * at a time adds (the caller serialises); any thread reads. An entry is written into the arrays
 * first, then the count is raised (a release write): a reader that sees a count also sees every
 * entry below it. Grown arrays hold every older entry and are published before the count, so
 * whichever arrays a reader picks up after reading the count are long enough.
 */
final class DictionaryTable {

    /** The columns, by id; a column the kind does not have is null. */
    static final class Entries {
        final String[] names;
        final int[] owners;
        final ImageKind[] kinds;
        final long[] addresses;

        private Entries(int capacity, boolean withNames, boolean withKinds, boolean withAddresses) {
            names = withNames ? new String[capacity] : null;
            owners = new int[capacity];
            kinds = withKinds ? new ImageKind[capacity] : null;
            addresses = withAddresses ? new long[capacity] : null;
        }

        private Entries grown(int used) {
            return grown(used, owners.length * 2);
        }

        private Entries grown(int used, int capacity) {
            Entries g = new Entries(capacity, names != null, kinds != null, addresses != null);
            System.arraycopy(owners, 0, g.owners, 0, used);
            if (names != null) {
                System.arraycopy(names, 0, g.names, 0, used);
            }
            if (kinds != null) {
                System.arraycopy(kinds, 0, g.kinds, 0, used);
            }
            if (addresses != null) {
                System.arraycopy(addresses, 0, g.addresses, 0, used);
            }
            return g;
        }
    }

    private volatile Entries entries;
    /** Raised with release semantics, read with acquire (volatile): a release store needs no fence after it. */
    private volatile int count;

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(DictionaryTable.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    DictionaryTable(int capacity, boolean withNames, boolean withKinds, boolean withAddresses) {
        entries = new Entries(capacity, withNames, withKinds, withAddresses);
    }

    /** Adds an entry (the columns it does not have are ignored); the caller is the only one adding. */
    int add(String name, int owner, ImageKind kind, long address) {
        int id = count;
        Entries e = entries;
        if (id == e.owners.length) {
            e = e.grown(id);
            entries = e;
        }
        e.owners[id] = owner;
        if (e.names != null) {
            e.names[id] = name;
        }
        if (e.kinds != null) {
            e.kinds[id] = kind;
        }
        if (e.addresses != null) {
            e.addresses[id] = address;
        }
        COUNT.setRelease(this, id + 1);
        return id;
    }

    /** Room for {@code capacity} entries in all, made at once (the caller is the only one adding). */
    void reserve(int capacity) {
        Entries e = entries;
        if (capacity > e.owners.length) {
            entries = e.grown(count, capacity);
        }
    }

    int count() {
        return count;
    }

    /** The columns, for an id read below {@link #count()} before. */
    Entries entries() {
        return entries;
    }
}
