package org.hyperprof.report.opreport;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;

/** Builds {@link SampleBatch}es sample by sample, as a daemon fills its arrays, call chains included. */
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

    /** Adds {@code times} identical samples on vCPU 0, each at its own PC, without callers. */
    Batches add(int times, int domid, CpuMode cpuMode, int counterIndex, int imageId, int symbolId) {
        for (int t = 0; t < times; t++) {
            sample(domid, 0, cpuMode, counterIndex, 0xC0100000L + size, imageId, symbolId);
        }
        return this;
    }

    /**
     * Adds {@code times} identical samples at {@code samplePc} whose callers, innermost first, are
     * the (image, symbol) pairs of {@code callers}.
     */
    Batches stack(int times, int domid, int vcpuId, CpuMode cpuMode, int counterIndex, long samplePc, int imageId,
            int symbolId, int... callers) {
        if (callers.length % 2 != 0) {
            throw new IllegalArgumentException("callers come as (image, symbol) pairs");
        }
        for (int t = 0; t < times; t++) {
            sample(domid, vcpuId, cpuMode, counterIndex, samplePc, imageId, symbolId, callers);
        }
        return this;
    }

    private void sample(int domid, int vcpuId, CpuMode cpuMode, int counterIndex, long samplePc, int imageId,
            int symbolId, int... callers) {
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
        pc[size] = samplePc;
        image[size] = imageId;
        symbol[size] = symbolId;
        chainStart[size] = chainCount;
        for (int k = 0; k < callers.length; k += 2) {
            if (chainCount == chainPc.length) {
                int n = chainCount * 2;
                chainPc = Arrays.copyOf(chainPc, n);
                chainImage = Arrays.copyOf(chainImage, n);
                chainSymbol = Arrays.copyOf(chainSymbol, n);
            }
            chainPc[chainCount] = 0x08048000L + chainCount;
            chainImage[chainCount] = callers[k];
            chainSymbol[chainCount] = callers[k + 1];
            chainCount++;
        }
        size++;
        chainStart[size] = chainCount;
    }

    SampleBatch build() {
        return new SampleBatch(sessionId, size, domain.clone(), vcpu.clone(), mode.clone(), counter.clone(), pc.clone(),
                image.clone(), symbol.clone(), Arrays.copyOf(chainStart, size + 1),
                Arrays.copyOf(chainPc, chainCount), Arrays.copyOf(chainImage, chainCount),
                Arrays.copyOf(chainSymbol, chainCount));
    }
}
