package org.hyperprof.report.flamegraph;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;

/**
 * Builds {@link SampleBatch}es sample by sample, as a daemon fills its arrays, call chains
 * included (callers innermost first, as the batch carries them).
 */
final class Batches {
    private final long sessionId;
    private int size;
    private int[] domain = new int[16];
    private int[] vcpu = new int[16];
    private byte[] mode = new byte[16];
    private byte[] counter = new byte[16];
    private long[] pc = new long[16];
    private int[] image = new int[16];
    private int[] symbol = new int[16];
    private int[] chainStart = new int[17];
    private int chainCount;
    private long[] chainPc = new long[16];
    private int[] chainImage = new int[16];
    private int[] chainSymbol = new int[16];

    Batches(long sessionId) {
        this.sessionId = sessionId;
    }

    /** A frame of a call chain: the image and symbol (-1: none) of one caller. */
    record Caller(int image, int symbol) {
    }

    static Caller caller(int image, int symbol) {
        return new Caller(image, symbol);
    }

    /** Adds {@code times} identical samples on counter 0, vCPU 0. */
    Batches add(int times, int domid, CpuMode cpuMode, int imageId, int symbolId, Caller... innermostFirst) {
        return add(times, domid, 0, cpuMode, 0, imageId, symbolId, innermostFirst);
    }

    /** Adds {@code times} identical samples. */
    Batches add(int times, int domid, int vcpuId, CpuMode cpuMode, int counterIndex, int imageId, int symbolId,
            Caller... innermostFirst) {
        for (int t = 0; t < times; t++) {
            if (size == domain.length) {
                int n = size * 2;
                domain = Arrays.copyOf(domain, n);
                vcpu = Arrays.copyOf(vcpu, n);
                mode = Arrays.copyOf(mode, n);
                counter = Arrays.copyOf(counter, n);
                pc = Arrays.copyOf(pc, n);
                image = Arrays.copyOf(image, n);
                symbol = Arrays.copyOf(symbol, n);
                chainStart = Arrays.copyOf(chainStart, n + 1);
            }
            domain[size] = domid;
            vcpu[size] = vcpuId;
            mode[size] = (byte) cpuMode.code();
            counter[size] = (byte) counterIndex;
            pc[size] = 0xC0100000L + size;
            image[size] = imageId;
            symbol[size] = symbolId;
            chainStart[size] = chainCount;
            for (Caller c : innermostFirst) {
                if (chainCount == chainImage.length) {
                    int n = chainCount * 2;
                    chainPc = Arrays.copyOf(chainPc, n);
                    chainImage = Arrays.copyOf(chainImage, n);
                    chainSymbol = Arrays.copyOf(chainSymbol, n);
                }
                chainPc[chainCount] = 0xC0200000L + chainCount;
                chainImage[chainCount] = c.image();
                chainSymbol[chainCount] = c.symbol();
                chainCount++;
            }
            size++;
            chainStart[size] = chainCount;
        }
        return this;
    }

    SampleBatch build() {
        return new SampleBatch(sessionId, size, domain.clone(), vcpu.clone(), mode.clone(), counter.clone(), pc.clone(),
                image.clone(), symbol.clone(), Arrays.copyOf(chainStart, size + 1), chainPc.clone(), chainImage.clone(),
                chainSymbol.clone());
    }
}
