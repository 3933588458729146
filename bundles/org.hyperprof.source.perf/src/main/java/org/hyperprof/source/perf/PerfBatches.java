package org.hyperprof.source.perf;

import java.util.Arrays;

import org.hyperprof.pipeline.BatchBuilder;

/**
 * The pipeline's batch builder with the columns perf report keys and prints that a batch does not
 * carry ({@link Keys}); they travel with each batch's lease and come back with its arrays.
 */
final class PerfBatches extends BatchBuilder {

    /**
     * Per sample and per frame, what perf report keys and prints beside a batch's columns (the
     * sample's period is the batch's weight). {@code selfFrame}: the report key of the sample's own
     * frame (see {@link Machines#selfFrame()}); {@code rawFrame}: the key of its address as a
     * callchain entry; {@code cpumode}: perf's cpumode of the sample; {@code ipInChain}: whether its
     * callchain began with its own address (dropped from the callers); {@code chainFrame},
     * {@code chainCpumode}: each caller's key and the context it was resolved in.
     */
    static final class Keys {
        int[] selfFrame;
        int[] rawFrame;
        byte[] cpumode;
        boolean[] ipInChain;
        int[] chainFrame;
        byte[] chainCpumode;
    }

    /**
     * Sets of arrays a report thread may hold at once. The call-graph report's speed comes in bursts
     * (a stack new to the tree costs several times one met before): with 4 the resolving thread
     * waited 7-10 ms of a 65 ms import for the report to give arrays back, with 12 it waits 2-3 ms.
     * Each set of 4,096 samples is about 0.5 MB.
     */
    static final int POOL = 12;

    // The current arrays of perf's keys, as fields: the resolving thread writes them per sample and frame.
    private int[] selfFrame;
    private int[] rawFrame;
    private byte[] cpumode;
    private boolean[] ipInChain;
    private int[] chainFrame;
    private byte[] chainCpumode;

    PerfBatches(long sessionId, int capacity, Reuse reuse, Sink sink) {
        super(sessionId, capacity, reuse, 0, sink);
    }

    @Override
    protected void allocateColumns(int capacity, int chainCapacity) {
        selfFrame = new int[capacity];
        rawFrame = new int[capacity];
        cpumode = new byte[capacity];
        ipInChain = new boolean[capacity];
        chainFrame = new int[chainCapacity];
        chainCpumode = new byte[chainCapacity];
    }

    @Override
    protected void growChainColumns(int length) {
        chainFrame = Arrays.copyOf(chainFrame, length);
        chainCpumode = Arrays.copyOf(chainCpumode, length);
    }

    @Override
    protected Object columns() {
        Keys k = new Keys();
        k.selfFrame = selfFrame;
        k.rawFrame = rawFrame;
        k.cpumode = cpumode;
        k.ipInChain = ipInChain;
        k.chainFrame = chainFrame;
        k.chainCpumode = chainCpumode;
        return k;
    }

    @Override
    protected void adoptColumns(Object columns) {
        Keys k = (Keys) columns;
        selfFrame = k.selfFrame;
        rawFrame = k.rawFrame;
        cpumode = k.cpumode;
        ipInChain = k.ipInChain;
        chainFrame = k.chainFrame;
        chainCpumode = k.chainCpumode;
    }

    /** Starts a sample: the batch's columns, then perf report's keys of it. */
    void sample(int domain, int cpu, int mode, int counter, long pc, int image, int symbol, long period, long time,
            int pid, int tid, int sampleSelfFrame, int sampleRawFrame, int sampleCpumode) {
        int i = pending();
        begin(domain, cpu, mode, counter, pc, image, symbol, period, time, cpu, pid, tid);
        selfFrame[i] = sampleSelfFrame;
        rawFrame[i] = sampleRawFrame;
        cpumode[i] = (byte) sampleCpumode;
        ipInChain[i] = false;
    }

    /** A sample's resolved callers, innermost first: one set per import, reused for every sample. */
    static final class Frames {
        long[] pc = new long[0];
        int[] image = new int[0];
        int[] symbol = new int[0];
        int[] key = new int[0];
        byte[] cpumode = new byte[0];

        /** Room for {@code n} frames (grown only for a chain longer than any before). */
        Frames ensure(int n) {
            if (pc.length < n) {
                int c = Math.max(n, 128);
                pc = new long[c];
                image = new int[c];
                symbol = new int[c];
                key = new int[c];
                cpumode = new byte[c];
            }
            return this;
        }
    }

    /** Whether the current sample's callchain began with its own address (dropped from its callers). */
    void ipInChain(boolean began) {
        ipInChain[pending()] = began;
    }

    /** The current sample's callers, all at once: the batch's columns, then perf report's key and context of each. */
    void frames(Frames f, int n) {
        if (n <= 0) {
            return;
        }
        int at = chainMark();
        callers(f.pc, f.image, f.symbol, 0, n);
        System.arraycopy(f.key, 0, chainFrame, at, n);
        System.arraycopy(f.cpumode, 0, chainCpumode, at, n);
    }
}
