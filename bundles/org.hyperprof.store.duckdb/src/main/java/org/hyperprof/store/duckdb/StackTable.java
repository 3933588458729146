package org.hyperprof.store.duckdb;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.report.kit.EntrySlots;
import org.hyperprof.report.kit.Hashing;

/**
 * A session's call chains, each distinct one named once by a stack id (1, 2, ...; 0 is "no call
 * chain"), its frames kept in primitive arrays. Looking up a chain already named allocates nothing.
 * Named on the store's delivery thread of the session; read by its writer only while that thread
 * waits (a checkpoint) or is done (the end).
 */
final class StackTable {
    /** The stack id of a sample without callers. */
    static final int NO_STACK = 0;

    /** Frames of stack {@code s} (from 1) are {@code start[s - 1]} to {@code start[s] - 1}. */
    private int[] start = new int[64];
    private long[] pc = new long[256];
    private int[] image = new int[256];
    private int[] symbol = new int[256];
    private byte[] mode = new byte[256];
    private int stacks;
    /** Each stack's hash, kept: a lookup compares it first, and the index regrows without hashing frames again. */
    private long[] stackHash = new long[64];
    private final EntrySlots index = new EntrySlots(64, e -> this.stackHash[e]);

    /** The stack id of sample {@code i}'s callers, named now if new. */
    int id(SampleBatch b, int i) {
        return id(b.chainPc, b.chainImage, b.chainSymbol, b.chainMode, b.chainStart[i], b.chainStart[i + 1]);
    }

    /**
     * The stack id of the frames {@code from} to {@code to - 1} of the arrays (innermost first), named
     * now if new: stacks a reader names in the order of their stored ids get those ids back.
     */
    int id(long[] pcs, int[] images, int[] symbols, byte[] modes, int from, int to) {
        if (from == to) {
            return NO_STACK;
        }
        long hash = hashOf(pcs, images, symbols, modes, from, to);
        for (int slot = index.first(hash); ; slot = index.next(slot)) {
            int e = index.entry(slot);
            if (e == EntrySlots.FREE) {
                return add(pcs, images, symbols, modes, from, to, hash);
            }
            if (stackHash[e] == hash && same(e, pcs, images, symbols, modes, from, to)) {
                return e + 1;
            }
        }
    }

    private boolean same(int e, long[] pcs, int[] images, int[] symbols, byte[] modes, int from, int to) {
        int f = start[e];
        if (start[e + 1] - f != to - from) {
            return false;
        }
        for (int k = from; k < to; k++, f++) {
            if (pc[f] != pcs[k] || image[f] != images[k] || symbol[f] != symbols[k] || mode[f] != modes[k]) {
                return false;
            }
        }
        return true;
    }

    private int add(long[] pcs, int[] images, int[] symbols, byte[] modes, int from, int to, long hash) {
        int e = stacks;
        int f = start[e];
        int frames = f + to - from;
        if (frames > pc.length) {
            int n = Math.max(frames, pc.length * 2);
            pc = Arrays.copyOf(pc, n);
            image = Arrays.copyOf(image, n);
            symbol = Arrays.copyOf(symbol, n);
            mode = Arrays.copyOf(mode, n);
        }
        if (e + 2 > start.length) {
            start = Arrays.copyOf(start, start.length * 2);
        }
        if (e == stackHash.length) {
            stackHash = Arrays.copyOf(stackHash, e * 2);
        }
        stackHash[e] = hash;
        System.arraycopy(pcs, from, pc, f, to - from);
        System.arraycopy(images, from, image, f, to - from);
        System.arraycopy(symbols, from, symbol, f, to - from);
        System.arraycopy(modes, from, mode, f, to - from);
        start[e + 1] = frames;
        stacks = e + 1;
        index.add(e, hash);
        return e + 1;
    }

    /**
     * A chain's hash: a multiply-add per frame and one mix at the end (chains are tens of frames,
     * hashed at every sample; the index needs only its low bits spread, the stored hash and the
     * compare of frames do the rest).
     */
    private static long hashOf(long[] pcs, int[] images, int[] symbols, byte[] modes, int from, int to) {
        long h = to - from;
        for (int k = from; k < to; k++) {
            h = h * 0x9E3779B97F4A7C15L + pcs[k];
            h = h * 0xC2B2AE3D27D4EB4FL + ((((long) images[k] << 32) | (symbols[k] & 0xFFFFFFFFL)) ^ ((long) modes[k] << 56));
        }
        return Hashing.mix(h);
    }

    /** Stacks named: ids 1 to {@code size()}. */
    int size() {
        return stacks;
    }

    /** The frames of stack {@code stack} (from 1), innermost first, as callers of the sample {@code to} has open. */
    void appendCallers(int stack, org.hyperprof.pipeline.BatchBuilder to) {
        if (stack != NO_STACK) {
            int from = start[stack - 1];
            to.callers(pc, image, symbol, mode, from, start[stack] - from);
        }
    }

    /** Frames of all stacks. */
    int frames() {
        return start[stacks];
    }

    /** What receives the frames of a session's stacks. */
    @FunctionalInterface
    interface Frames<E extends Exception> {
        /** Frame {@code depth} (0: the innermost caller) of stack {@code stack}. */
        void frame(int stack, int depth, long pc, int image, int symbol, byte mode) throws E;
    }

    /** Hands every frame to {@code to}: stack by stack from id 1, innermost first. */
    <E extends Exception> void forEachFrame(Frames<E> to) throws E {
        for (int e = 0; e < stacks; e++) {
            for (int f = start[e]; f < start[e + 1]; f++) {
                to.frame(e + 1, f - start[e], pc[f], image[f], symbol[f], mode[f]);
            }
        }
    }
}
