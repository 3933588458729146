package org.hyperprof.profiler;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;

/**
 * Builds a session's {@link SampleBatch}es: resolved samples are appended into primitive arrays;
 * when {@code capacity} samples are in, or on a flush, the arrays are handed over as an immutable
 * batch and fresh ones are allocated (once per batch, never per sample).
 *
 * <p>The collector's monitor is the lock every daemon holds while it appends a drained buffer's
 * entries; {@link #beginSample}, {@link #addCaller} and {@link #endSample} must be called with it
 * held. After {@link #close()} samples are refused and nothing more is published.
 */
final class BatchCollector {

    /** Receives each full or flushed batch; must not block. */
    @FunctionalInterface
    interface Sink {
        void publish(SampleBatch batch);
    }

    private final long sessionId;
    private final int capacity;
    private final Sink sink;

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

    private int size;
    private int chainCount;
    private boolean sampleOpen;
    private boolean closed;
    private long publishedSamples;
    private long publishedBatches;

    BatchCollector(long sessionId, int capacity, Sink sink) {
        if (capacity < 1) {
            throw new IllegalArgumentException("batch capacity " + capacity + " must be at least 1");
        }
        this.sessionId = sessionId;
        this.capacity = capacity;
        this.sink = sink;
        allocate(capacity);
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
        chainPc = new long[chainCapacity];
        chainImage = new int[chainCapacity];
        chainSymbol = new int[chainCapacity];
    }

    /** Starts sample number {@code size}; its callers follow through {@link #addCaller}. */
    void beginSample(int domid, int vcpuId, int xenoprofMode, int counterIndex, long sampledPc, long resolved) {
        if (closed) {
            return;
        }
        int i = size;
        domain[i] = domid;
        vcpu[i] = vcpuId;
        mode[i] = (byte) xenoprofMode;
        counter[i] = (byte) counterIndex;
        pc[i] = sampledPc;
        image[i] = DomainView.image(resolved);
        symbol[i] = DomainView.symbol(resolved);
        chainStart[i] = chainCount;
        sampleOpen = true;
    }

    /** Appends a caller (return address) of the open sample, innermost first. */
    void addCaller(long returnAddress, long resolved) {
        if (!sampleOpen) {
            return;
        }
        if (chainCount == chainPc.length) {
            int n = chainPc.length * 2;
            chainPc = Arrays.copyOf(chainPc, n);
            chainImage = Arrays.copyOf(chainImage, n);
            chainSymbol = Arrays.copyOf(chainSymbol, n);
        }
        chainPc[chainCount] = returnAddress;
        chainImage[chainCount] = DomainView.image(resolved);
        chainSymbol[chainCount] = DomainView.symbol(resolved);
        chainCount++;
    }

    /** Closes the open sample; publishes the batch when it is full. */
    void endSample() {
        if (!sampleOpen) {
            return;
        }
        sampleOpen = false;
        size++;
        chainStart[size] = chainCount;
        if (size == capacity) {
            flush();
        }
    }

    /** Hands the samples gathered so far to the sink as one batch. */
    synchronized void flush() {
        if (size == 0 || closed) {
            return;
        }
        SampleBatch batch = new SampleBatch(sessionId, size, domain, vcpu, mode, counter, pc, image, symbol,
                chainStart, chainPc, chainImage, chainSymbol);
        publishedSamples += size;
        publishedBatches++;
        int chainCapacity = Math.max(capacity, chainPc.length);
        size = 0;
        chainCount = 0;
        allocate(chainCapacity);
        sink.publish(batch);
    }

    /** Flushes and refuses everything after. */
    synchronized void close() {
        flush();
        closed = true;
    }

    /**
     * --reset: removes the samples of {@code domid} not yet handed to consumers.
     *
     * @return how many samples were removed
     */
    synchronized int discardDomain(int domid) {
        int kept = 0;
        int keptChain = 0;
        int removed = 0;
        for (int i = 0; i < size; i++) {
            int from = chainStart[i];
            int to = chainStart[i + 1];
            if (domain[i] == domid) {
                removed++;
                continue;
            }
            domain[kept] = domain[i];
            vcpu[kept] = vcpu[i];
            mode[kept] = mode[i];
            counter[kept] = counter[i];
            pc[kept] = pc[i];
            image[kept] = image[i];
            symbol[kept] = symbol[i];
            chainStart[kept] = keptChain;
            for (int c = from; c < to; c++) {
                chainPc[keptChain] = chainPc[c];
                chainImage[keptChain] = chainImage[c];
                chainSymbol[keptChain] = chainSymbol[c];
                keptChain++;
            }
            kept++;
        }
        size = kept;
        chainCount = keptChain;
        chainStart[size] = chainCount;
        return removed;
    }

    synchronized int pending() {
        return size;
    }

    synchronized long publishedSamples() {
        return publishedSamples;
    }

    synchronized long publishedBatches() {
        return publishedBatches;
    }
}
