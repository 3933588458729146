package org.hyperprof.report.pprof;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.kit.EntrySlots;
import org.hyperprof.report.kit.Hashing;

/**
 * Sample counts per distinct (domain, vCPU, mode, process, thread, comm, call stack) and counter: a
 * pprof {@code Sample} each. A stack key is an int sequence {@code domain, vcpu, mode, pid, tid,
 * comm, leaf location, caller location, ...} (pid, tid and comm {@link SampleBatch#UNKNOWN} for a
 * source without comms, so that its samples are not split by process); keys are stored back to back in one int array, with an open-addressing index over their
 * hashes. Counting a stack that is already known allocates nothing.
 *
 * <p>Memory is bounded: past {@code stackLimit} distinct stacks, a new stack is counted under its
 * leaf location alone (its callers are cut), so the table then grows only with the distinct
 * (domain, vCPU, mode, leaf) rows. Flat totals stay exact; the samples whose callers were cut are
 * counted.
 *
 * <p>Not thread-safe: {@link SessionStacks} guards it.
 */
final class StackTable {

    /** Key entries before the locations: domain, vcpu, mode, pid, tid, comm. */
    static final int HEADER = 6;

    private final int counters;
    private final int stackLimit;

    private int[] keys = new int[1024];
    private int used;
    private int[] offsets = new int[64];
    private int[] lengths = new int[64];
    private long[] hashes = new long[64];
    private long[] counts;
    /** The summed weights (the events the samples stand for), beside the counts. */
    private long[] weights;
    private int size;
    /** The index over the stacks by their hashes (null in a read-only copy). */
    private final EntrySlots slots;
    private long cutSamples;

    StackTable(int counters, int stackLimit) {
        if (counters < 1) {
            throw new IllegalArgumentException("a session has at least 1 counter, not " + counters);
        }
        if (stackLimit < 1) {
            throw new IllegalArgumentException("the stack table must hold at least 1 stack, not " + stackLimit);
        }
        this.counters = counters;
        this.stackLimit = stackLimit;
        counts = new long[64 * counters];
        weights = new long[64 * counters];
        slots = new EntrySlots(128, stack -> hashes[stack]);
    }

    private StackTable(StackTable from) {
        counters = from.counters;
        stackLimit = from.stackLimit;
        keys = Arrays.copyOf(from.keys, from.used);
        used = from.used;
        offsets = Arrays.copyOf(from.offsets, from.size);
        lengths = Arrays.copyOf(from.lengths, from.size);
        hashes = new long[0];
        counts = Arrays.copyOf(from.counts, from.size * from.counters);
        weights = Arrays.copyOf(from.weights, from.size * from.counters);
        size = from.size;
        slots = null;
        cutSamples = from.cutSamples;
    }

    /**
     * Counts one sample of {@code counter} and its {@code weight} on the stack {@code key[0 .. length)}
     * (a header of {@value #HEADER} entries, then at least the leaf location).
     */
    void count(int[] key, int length, int counter, long weight) {
        long hash = hash(key, length);
        int stack = find(key, length, hash);
        if (stack < 0) {
            if (size >= stackLimit && length > HEADER + 1) {
                cutSamples++;
                length = HEADER + 1;
                hash = hash(key, length);
                stack = find(key, length, hash);
            }
            if (stack < 0) {
                stack = add(key, length, hash);
            }
        }
        counts[stack * counters + counter]++;
        weights[stack * counters + counter] += weight;
    }

    int size() {
        return size;
    }

    int counters() {
        return counters;
    }

    int domain(int stack) {
        return keys[offsets[stack]];
    }

    int vcpu(int stack) {
        return keys[offsets[stack] + 1];
    }

    int mode(int stack) {
        return keys[offsets[stack] + 2];
    }

    int pid(int stack) {
        return keys[offsets[stack] + 3];
    }

    int tid(int stack) {
        return keys[offsets[stack] + 4];
    }

    /** The comm id ({@link SampleBatch#comm}) of the stack's samples. */
    int comm(int stack) {
        return keys[offsets[stack] + 5];
    }

    /** Locations of the stack, leaf first. */
    int depth(int stack) {
        return lengths[stack] - HEADER;
    }

    /** The {@code level}-th location of the stack: 0 is the leaf, 1 its caller, ... */
    int location(int stack, int level) {
        return keys[offsets[stack] + HEADER + level];
    }

    long count(int stack, int counter) {
        return counts[stack * counters + counter];
    }

    /** The summed weights of the stack's samples of {@code counter}: the events they stand for. */
    long weight(int stack, int counter) {
        return weights[stack * counters + counter];
    }

    /** Samples counted under their leaf alone because the table was full. */
    long cutSamples() {
        return cutSamples;
    }

    int stackLimit() {
        return stackLimit;
    }

    /** A read-only copy (for a snapshot); it cannot count. */
    StackTable copy() {
        return new StackTable(this);
    }

    private int find(int[] key, int length, long hash) {
        for (int slot = slots.first(hash); ; slot = slots.next(slot)) {
            int stack = slots.entry(slot);
            if (stack == EntrySlots.FREE || hashes[stack] == hash && lengths[stack] == length
                    && Arrays.equals(keys, offsets[stack], offsets[stack] + length, key, 0, length)) {
                return stack;
            }
        }
    }

    private int add(int[] key, int length, long hash) {
        int stack = size;
        if (stack == offsets.length) {
            int n = stack * 2;
            offsets = Arrays.copyOf(offsets, n);
            lengths = Arrays.copyOf(lengths, n);
            hashes = Arrays.copyOf(hashes, n);
            counts = Arrays.copyOf(counts, n * counters);
            weights = Arrays.copyOf(weights, n * counters);
        }
        if (used + length > keys.length) {
            keys = Arrays.copyOf(keys, Math.max(keys.length * 2, used + length));
        }
        System.arraycopy(key, 0, keys, used, length);
        offsets[stack] = used;
        lengths[stack] = length;
        hashes[stack] = hash;
        used += length;
        size = stack + 1;
        slots.add(stack, hash);
        return stack;
    }

    private static long hash(int[] key, int length) {
        long h = length;
        for (int i = 0; i < length; i++) {
            h = (h ^ (key[i] & 0xFFFFFFFFL)) * 0x9E3779B97F4A7C15L;
        }
        return Hashing.mix(h);
    }
}
