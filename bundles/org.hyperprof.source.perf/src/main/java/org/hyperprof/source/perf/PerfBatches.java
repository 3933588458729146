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

    /** The current sample's callchain began with its own address. */
    void ipInChain() {
        ipInChain[pending()] = true;
    }

    /** A caller of the current sample (innermost first), resolved in context {@code frameCpumode}. */
    void frame(long pc, int image, int symbol, int key, int frameCpumode) {
        int c = caller(pc, image, symbol);
        chainFrame[c] = key;
        chainCpumode[c] = (byte) frameCpumode;
    }

    /** Drops the current sample's frames from {@code mark} on (a corrupt callchain). */
    void dropFrames(int mark) {
        dropCallers(mark);
        ipInChain[pending()] = false;
    }
}
