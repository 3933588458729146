package org.hyperprof.source.perf;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;

/**
 * Fills {@link SampleBatch}es sample by sample, with primitive arrays and no allocation per
 * sample, and hands each full batch on together with what consumers do not see but the importer's
 * own reports need ({@link Side}).
 */
final class BatchBuilder {

    /**
     * Per sample and per frame, what perf report keys and prints that a batch does not carry.
     * {@code period}: the sample's period; {@code selfFrame}: the report key of its own frame (see
     * {@link Machines#selfFrame()}); {@code rawFrame}: the key of its address as a callchain entry;
     * {@code cpumode}: perf's cpumode of the sample; {@code ipInChain}: whether its callchain began
     * with its own address (dropped from the callers); {@code chainFrame}, {@code chainCpumode}:
     * each caller's key and the context it was resolved in.
     */
    record Side(long[] period, int[] selfFrame, int[] rawFrame, byte[] cpumode, boolean[] ipInChain,
            int[] chainFrame, byte[] chainCpumode, Slab slab) {
    }

    /** Receives full batches. */
    interface Sink {
        void batch(SampleBatch batch, Side side);
    }

    /** What happens to a batch's arrays once it is handed on. */
    enum Reuse {
        /** Reused as soon as the sink returns: the sink only reads the batch while it is called. */
        AT_ONCE,
        /** Reused once the sink gives them back ({@link #release}): a sink on another thread. */
        WHEN_RELEASED,
        /** Never reused: consumers may keep batches. */
        NEVER
    }

    /** One set of a batch's arrays. */
    static final class Slab {
        int[] domain;
        int[] vcpu;
        byte[] mode;
        byte[] counter;
        long[] pc;
        int[] image;
        int[] symbol;
        int[] chainStart;
        long[] chainPc;
        int[] chainImage;
        int[] chainSymbol;
        long[] period;
        int[] selfFrame;
        int[] rawFrame;
        byte[] cpumode;
        boolean[] ipInChain;
        byte[] chainCpumode;
        int[] chainFrame;
    }

    /**
     * Slabs in circulation when they are reused once released. The call-graph report's speed comes
     * in bursts (a stack new to the tree costs several times one met before): with 4 the resolving
     * thread waited 7-10 ms of a 65 ms import for the report to give arrays back, with 12 it waits
     * 2-3 ms. Each slab of 4,096 samples is about 0.5 MB.
     */
    static final int POOL = 12;

    private final long sessionId;
    private final int capacity;
    private final Reuse reuse;
    private final Sink sink;
    private final java.util.concurrent.ArrayBlockingQueue<Slab> released =
            new java.util.concurrent.ArrayBlockingQueue<>(POOL);
    private int slabs;

    private int[] domain;
    private int[] vcpu;
    private byte[] mode;
    private byte[] counter;
    private long[] pc;
    private int[] image;
    private int[] symbol;
    private int[] chainStart;
    private long[] chainPc;
    private int[] chainImage;
    private int[] chainSymbol;
    private long[] period;
    private int[] selfFrame;
    private int[] rawFrame;
    private byte[] cpumode;
    private boolean[] ipInChain;
    private byte[] chainCpumode;
    private int[] chainFrame;
    private int size;
    private int chainCount;
    private long samples;

    BatchBuilder(long sessionId, int capacity, Reuse reuse, Sink sink) {
        this.sessionId = sessionId;
        this.capacity = capacity;
        this.reuse = reuse;
        this.sink = sink;
        allocate(capacity * 4);
        slabs = 1;
    }

    /** Gives back the arrays of a batch handed on (with {@link Reuse#WHEN_RELEASED}). */
    void release(Side side) {
        released.offer(side.slab());
    }

    private Slab slab() {
        Slab s = new Slab();
        s.domain = domain;
        s.vcpu = vcpu;
        s.mode = mode;
        s.counter = counter;
        s.pc = pc;
        s.image = image;
        s.symbol = symbol;
        s.chainStart = chainStart;
        s.chainPc = chainPc;
        s.chainImage = chainImage;
        s.chainSymbol = chainSymbol;
        s.period = period;
        s.selfFrame = selfFrame;
        s.rawFrame = rawFrame;
        s.cpumode = cpumode;
        s.ipInChain = ipInChain;
        s.chainCpumode = chainCpumode;
        s.chainFrame = chainFrame;
        return s;
    }

    private void adopt(Slab s) {
        domain = s.domain;
        vcpu = s.vcpu;
        mode = s.mode;
        counter = s.counter;
        pc = s.pc;
        image = s.image;
        symbol = s.symbol;
        chainStart = s.chainStart;
        chainPc = s.chainPc;
        chainImage = s.chainImage;
        chainSymbol = s.chainSymbol;
        period = s.period;
        selfFrame = s.selfFrame;
        rawFrame = s.rawFrame;
        cpumode = s.cpumode;
        ipInChain = s.ipInChain;
        chainCpumode = s.chainCpumode;
        chainFrame = s.chainFrame;
    }

    private void allocate(int chainCapacity) {
        domain = new int[capacity];
        vcpu = new int[capacity];
        mode = new byte[capacity];
        counter = new byte[capacity];
        pc = new long[capacity];
        image = new int[capacity];
        symbol = new int[capacity];
        chainStart = new int[capacity + 1];
        period = new long[capacity];
        selfFrame = new int[capacity];
        rawFrame = new int[capacity];
        cpumode = new byte[capacity];
        ipInChain = new boolean[capacity];
        chainPc = new long[chainCapacity];
        chainImage = new int[chainCapacity];
        chainSymbol = new int[chainCapacity];
        chainCpumode = new byte[chainCapacity];
        chainFrame = new int[chainCapacity];
    }

    /** Starts a sample; its frames follow with {@link #frame}, then {@link #end}. */
    void sample(int sampleDomain, int sampleVcpu, int sampleMode, int sampleCounter, long samplePc, int sampleImage,
            int sampleSymbol, long samplePeriod, int sampleSelfFrame, int sampleRawFrame, int sampleCpumode) {
        int i = size;
        domain[i] = sampleDomain;
        vcpu[i] = sampleVcpu;
        mode[i] = (byte) sampleMode;
        counter[i] = (byte) sampleCounter;
        pc[i] = samplePc;
        image[i] = sampleImage;
        symbol[i] = sampleSymbol;
        period[i] = samplePeriod;
        selfFrame[i] = sampleSelfFrame;
        rawFrame[i] = sampleRawFrame;
        cpumode[i] = (byte) sampleCpumode;
        ipInChain[i] = false;
        chainStart[i] = chainCount;
    }

    /** The current sample's callchain began with its own address. */
    void ipInChain() {
        ipInChain[size] = true;
    }

    /** A caller of the current sample (innermost first), resolved in context {@code frameCpumode}. */
    void frame(long framePc, int frameImage, int frameSymbol, int frameKey, int frameCpumode) {
        int c = chainCount;
        if (c == chainPc.length) {
            int n = c * 2;
            chainPc = Arrays.copyOf(chainPc, n);
            chainImage = Arrays.copyOf(chainImage, n);
            chainSymbol = Arrays.copyOf(chainSymbol, n);
            chainCpumode = Arrays.copyOf(chainCpumode, n);
            chainFrame = Arrays.copyOf(chainFrame, n);
        }
        chainPc[c] = framePc;
        chainImage[c] = frameImage;
        chainSymbol[c] = frameSymbol;
        chainCpumode[c] = (byte) frameCpumode;
        chainFrame[c] = frameKey;
        chainCount = c + 1;
    }

    /** Where the current sample's frames start, for {@link #dropFrames}. */
    int chainMark() {
        return chainStart[size];
    }

    /** Drops the current sample's frames from {@code mark} on (a corrupt callchain). */
    void dropFrames(int mark) {
        chainCount = mark;
        ipInChain[size] = false;
    }

    /** Ends the current sample; a full batch is handed on. */
    void end() {
        size++;
        chainStart[size] = chainCount;
        samples++;
        if (size == capacity) {
            flush();
        }
    }

    /** Hands on the samples gathered so far, if any. */
    void flush() {
        if (size == 0) {
            return;
        }
        SampleBatch b = new SampleBatch(sessionId, size, domain, vcpu, mode, counter, pc, image, symbol, chainStart,
                chainPc, chainImage, chainSymbol);
        Slab handed = reuse == Reuse.AT_ONCE ? null : slab();
        Side side = new Side(period, selfFrame, rawFrame, cpumode, ipInChain, chainFrame, chainCpumode, handed);
        int chainCapacity = chainPc.length;
        if (reuse == Reuse.NEVER) {
            allocate(chainCapacity);
        } else if (reuse == Reuse.WHEN_RELEASED) {
            Slab next = released.poll();
            if (next == null && slabs < POOL) {
                allocate(chainCapacity);
                slabs++;
            } else {
                if (next == null) {
                    next = awaitRelease();
                }
                adopt(next);
            }
        }
        size = 0;
        chainCount = 0;
        sink.batch(b, side);
        chainStart[0] = 0;
    }

    private Slab awaitRelease() {
        try {
            return released.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the report to take a batch", e);
        }
    }

    /** Samples gathered in all (handed on or pending). */
    long samples() {
        return samples;
    }

    /** Samples not yet handed on. */
    int pending() {
        return size;
    }
}
