package org.hyperprof.source.perf;

import org.hyperprof.pipeline.AddressRanges;

/**
 * One process's executable mappings, sorted by start address: what MMAP and MMAP2 records built.
 * A new mapping replaces whatever it overlaps; the parts of older mappings outside it stay, with
 * their file offsets moved along (the kernel's own rule when a mapping is placed over others).
 * Lookup is a binary search and allocates nothing.
 */
final class ProcessMaps {

    private long[] start;
    private long[] end;
    private long[] pgoff;
    private Dso[] dso;
    private int count;
    /**
     * Whether another process may use these arrays ({@link #copy}): a forked child shares its
     * parent's list until either maps something, so that a FORK costs one small object however many
     * mappings the parent has (thousands of forks of a process with thousands of mappings would
     * otherwise take memory out of all proportion to the records read).
     */
    private boolean shared;

    ProcessMaps() {
        this(new long[16], new long[16], new long[16], new Dso[16], 0);
    }

    private ProcessMaps(long[] start, long[] end, long[] pgoff, Dso[] dso, int count) {
        this.start = start;
        this.end = end;
        this.pgoff = pgoff;
        this.dso = dso;
        this.count = count;
    }
    /** The last two mappings found: a process's samples mostly fall into them (its program and its libc). */
    private int last = -1;
    private int before = -1;

    // The mapping that find() found.
    long foundStart;
    long foundPgoff;

    /** The image mapped at {@code address}, or null; sets {@link #foundStart} and {@link #foundPgoff}. */
    Dso find(long address) {
        int i = last;
        if (i < 0 || Long.compareUnsigned(address, start[i]) < 0 || Long.compareUnsigned(address, end[i]) >= 0) {
            i = before;
            if (i >= 0 && Long.compareUnsigned(address, start[i]) >= 0 && Long.compareUnsigned(address, end[i]) < 0) {
                before = last;
                last = i;
                foundStart = start[i];
                foundPgoff = pgoff[i];
                return dso[i];
            }
            i = AddressRanges.holding(start, end, count, address);
            if (i < 0) {
                return null;
            }
            before = last;
            last = i;
        }
        foundStart = start[i];
        foundPgoff = pgoff[i];
        return dso[i];
    }

    /**
     * Arrays a process's mappings are rebuilt into: a mapping change builds the new list in them and
     * hands the old arrays back in their place, so the thousands of MMAPs of a busy recording
     * allocate nothing once the arrays are large enough. One per import (the resolving thread's).
     */
    static final class Spare {
        long[] start = new long[0];
        long[] end = new long[0];
        long[] pgoff = new long[0];
        Dso[] dso = new Dso[0];
    }

    /**
     * Maps {@code [from, from + length)} of {@code image} at file offset {@code offset}, building the
     * new list in {@code spare}'s arrays.
     */
    void map(long from, long length, long offset, Dso image, Spare spare) {
        long to = from + length;
        if (length == 0 || Long.compareUnsigned(to, from) <= 0) {
            // perf's map ends at start + len, wrapped: an empty or wrapped one covers no address and,
            // starting at or after its own end, displaces none of the others.
            return;
        }
        int need = count + 3;
        if (spare.start.length < need) {
            int cap = Math.max(16, need * 2);
            spare.start = new long[cap];
            spare.end = new long[cap];
            spare.pgoff = new long[cap];
            spare.dso = new Dso[cap];
        }
        long[] ns = spare.start;
        long[] ne = spare.end;
        long[] np = spare.pgoff;
        Dso[] nd = spare.dso;
        int n = 0;
        for (int i = 0; i < count; i++) {
            long s = start[i];
            long e = end[i];
            if (Long.compareUnsigned(s, to) >= 0 || Long.compareUnsigned(from, e) >= 0) {
                ns[n] = s;
                ne[n] = e;
                np[n] = pgoff[i];
                nd[n++] = dso[i];
                continue;
            }
            if (Long.compareUnsigned(s, from) < 0) {
                ns[n] = s;
                ne[n] = from;
                np[n] = pgoff[i];
                nd[n++] = dso[i];
            }
            if (Long.compareUnsigned(to, e) < 0) {
                ns[n] = to;
                ne[n] = e;
                np[n] = pgoff[i] + (to - s);
                nd[n++] = dso[i];
            }
        }
        ns[n] = from;
        ne[n] = to;
        np[n] = offset;
        nd[n++] = image;
        // Insertion sort by start: all but the new mapping are in order already.
        for (int i = 1; i < n; i++) {
            for (int j = i; j > 0 && Long.compareUnsigned(ns[j - 1], ns[j]) > 0; j--) {
                swap(ns, ne, np, nd, j);
            }
        }
        if (shared) {
            // The old list is another process's too: it is not ours to rebuild into.
            spare.start = new long[0];
            spare.end = new long[0];
            spare.pgoff = new long[0];
            spare.dso = new Dso[0];
            shared = false;
        } else {
            spare.start = start;
            spare.end = end;
            spare.pgoff = pgoff;
            spare.dso = dso;
        }
        start = ns;
        end = ne;
        pgoff = np;
        dso = nd;
        count = n;
        last = -1;
        before = -1;
    }

    private static void swap(long[] s, long[] e, long[] p, Dso[] d, int n) {
        long ts = s[n];
        long te = e[n];
        long tp = p[n];
        Dso td = d[n];
        s[n] = s[n - 1];
        e[n] = e[n - 1];
        p[n] = p[n - 1];
        d[n] = d[n - 1];
        s[n - 1] = ts;
        e[n - 1] = te;
        p[n - 1] = tp;
        d[n - 1] = td;
    }

    /** A copy, for a child process (FORK of a new process): the same list, shared until either maps something. */
    ProcessMaps copy() {
        shared = true;
        ProcessMaps c = new ProcessMaps(start, end, pgoff, dso, count);
        c.shared = true;
        return c;
    }
}
