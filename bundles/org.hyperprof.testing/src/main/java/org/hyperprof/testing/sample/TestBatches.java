package org.hyperprof.testing.sample;

import java.util.Arrays;

import org.hyperprof.api.sample.SampleBatch;

/**
 * The columns of a {@link SampleBatch}, filled sample by sample as a daemon fills its arrays, call
 * chains included (callers innermost first, as the batch carries them). Tests give each sample its
 * values; the shapes they find convenient (repeated samples, callers as pairs or frames) are theirs.
 */
public final class TestBatches {
    private final long sessionId;
    private int size;
    private int[] domain = new int[16];
    private int[] vcpu = new int[16];
    private byte[] mode = new byte[16];
    private byte[] counter = new byte[16];
    private long[] pc = new long[16];
    private int[] image = new int[16];
    private int[] symbol = new int[16];
    private long[] weight = new long[16];
    private long[] time = new long[16];
    private int[] cpu = new int[16];
    private int[] pid = new int[16];
    private int[] tid = new int[16];
    private int[] chainStart = new int[17];
    private int chainCount;
    private long[] chainPc = new long[16];
    private int[] chainImage = new int[16];
    private int[] chainSymbol = new int[16];

    public TestBatches(long sessionId) {
        this.sessionId = sessionId;
    }

    /**
     * Adds a sample of weight 1 with no time, CPU or process and no callers yet ({@link #caller}
     * adds them); {@code rawMode} is Xenoprof's mode byte.
     */
    public TestBatches sample(int domid, int vcpuId, byte rawMode, int counterIndex, long samplePc, int imageId,
            int symbolId) {
        return sample(domid, vcpuId, rawMode, counterIndex, samplePc, imageId, symbolId, 1, SampleBatch.UNKNOWN,
                SampleBatch.UNKNOWN, SampleBatch.UNKNOWN, SampleBatch.UNKNOWN);
    }

    /** Adds a sample with every column given, and no callers yet. */
    public TestBatches sample(int domid, int vcpuId, byte rawMode, int counterIndex, long samplePc, int imageId,
            int symbolId, long sampleWeight, long sampleTime, int sampleCpu, int samplePid, int sampleTid) {
        if (size == domain.length) {
            int n = size * 2;
            domain = Arrays.copyOf(domain, n);
            vcpu = Arrays.copyOf(vcpu, n);
            mode = Arrays.copyOf(mode, n);
            counter = Arrays.copyOf(counter, n);
            pc = Arrays.copyOf(pc, n);
            image = Arrays.copyOf(image, n);
            symbol = Arrays.copyOf(symbol, n);
            weight = Arrays.copyOf(weight, n);
            time = Arrays.copyOf(time, n);
            cpu = Arrays.copyOf(cpu, n);
            pid = Arrays.copyOf(pid, n);
            tid = Arrays.copyOf(tid, n);
            chainStart = Arrays.copyOf(chainStart, n + 1);
        }
        domain[size] = domid;
        vcpu[size] = vcpuId;
        mode[size] = rawMode;
        counter[size] = (byte) counterIndex;
        pc[size] = samplePc;
        image[size] = imageId;
        symbol[size] = symbolId;
        weight[size] = sampleWeight;
        time[size] = sampleTime;
        cpu[size] = sampleCpu;
        pid[size] = samplePid;
        tid[size] = sampleTid;
        chainStart[size] = chainCount;
        size++;
        chainStart[size] = chainCount;
        return this;
    }

    /** Adds a caller of the last sample, outward of those added before. */
    public TestBatches caller(long callerPc, int imageId, int symbolId) {
        if (size == 0) {
            throw new IllegalStateException("a caller belongs to a sample: add the sample first");
        }
        if (chainCount == chainPc.length) {
            int n = chainCount * 2;
            chainPc = Arrays.copyOf(chainPc, n);
            chainImage = Arrays.copyOf(chainImage, n);
            chainSymbol = Arrays.copyOf(chainSymbol, n);
        }
        chainPc[chainCount] = callerPc;
        chainImage[chainCount] = imageId;
        chainSymbol[chainCount] = symbolId;
        chainCount++;
        chainStart[size] = chainCount;
        return this;
    }

    /** Samples added so far. */
    public int size() {
        return size;
    }

    /** Frames of call chains added so far. */
    public int chainCount() {
        return chainCount;
    }

    /** A batch of copies of the samples added so far. */
    public SampleBatch build() {
        return new SampleBatch(sessionId, size, domain.clone(), vcpu.clone(), mode.clone(), counter.clone(), pc.clone(),
                image.clone(), symbol.clone(), weight.clone(), time.clone(), cpu.clone(), pid.clone(), tid.clone(),
                Arrays.copyOf(chainStart, size + 1), Arrays.copyOf(chainPc, chainCount),
                Arrays.copyOf(chainImage, chainCount), Arrays.copyOf(chainSymbol, chainCount));
    }
}
