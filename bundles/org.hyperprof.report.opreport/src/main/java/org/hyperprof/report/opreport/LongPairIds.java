package org.hyperprof.report.opreport;

import java.util.Arrays;

import org.hyperprof.report.kit.EntrySlots;
import org.hyperprof.report.kit.Hashing;

/**
 * Dense ids for pairs of {@code long}s: (domain, vCPU) contexts, (caller, callee) arcs of the call
 * graph, (symbol, PC) addresses of the per-instruction details. An open-addressing table of
 * {@code int} ids over two primitive arrays that hold each id's pair; looking up a known pair
 * allocates nothing, so it may run per sample.
 *
 * <p>It hands out at most {@code limit} ids: past that, {@link #id} answers {@link #FULL} and the
 * caller counts what it could not keep (a session must not grow without bound on hostile input).
 * Not thread-safe: {@link SessionAggregate} guards it.
 */
final class LongPairIds {

    /** What {@link #id} answers for a new pair once {@code limit} ids are handed out. */
    static final int FULL = -1;

    private final int limit;
    /** The index over the ids by their pairs' hashes. */
    private final EntrySlots slots;
    private long[] first;
    private long[] second;
    private int size;

    LongPairIds(int expectedPairs, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("an id table must allow at least 1 id, not " + limit);
        }
        this.limit = limit;
        int capacity = Integer.highestOneBit(Math.max(8, expectedPairs * 2 - 1)) << 1;
        slots = new EntrySlots(capacity, this::hashOf);
        first = new long[capacity / 2];
        second = new long[capacity / 2];
    }

    private LongPairIds(LongPairIds from) {
        this.limit = from.limit;
        this.slots = from.slots.copy(this::hashOf);
        this.first = Arrays.copyOf(from.first, from.size);
        this.second = Arrays.copyOf(from.second, from.size);
        this.size = from.size;
    }

    /** The id of ({@code a}, {@code b}), handing out the next one for a new pair, or {@link #FULL}. */
    int id(long a, long b) {
        long hash = hash(a, b);
        for (int slot = slots.first(hash); ; slot = slots.next(slot)) {
            int id = slots.entry(slot);
            if (id == EntrySlots.FREE) {
                break;
            }
            if (first[id] == a && second[id] == b) {
                return id;
            }
        }
        if (size == limit) {
            return FULL;
        }
        int id = size++;
        if (id == first.length) {
            first = Arrays.copyOf(first, Math.max(8, first.length * 2));
            second = Arrays.copyOf(second, first.length);
        }
        first[id] = a;
        second[id] = b;
        slots.add(id, hash);
        return id;
    }

    /** Ids handed out so far: they are 0 to {@code size() - 1}. */
    int size() {
        return size;
    }

    /** Whether the limit stopped a new pair from getting an id. */
    boolean full() {
        return size == limit;
    }

    long first(int id) {
        return first[id];
    }

    long second(int id) {
        return second[id];
    }

    /** An independent copy (for a report snapshot taken while samples keep arriving). */
    LongPairIds copy() {
        return new LongPairIds(this);
    }

    private long hashOf(int id) {
        return hash(first[id], second[id]);
    }

    private static long hash(long a, long b) {
        return Hashing.mix(a * 0x9E3779B97F4A7C15L + b);
    }
}
