package org.hyperprof.report.pprof;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;

/** Builds {@link SampleBatch}es with call chains, sample by sample, as a daemon fills its arrays. */
final class ChainBatches {

    /** One frame: a PC resolved to an image and a symbol. */
    record Frame(long pc, int image, int symbol) {
    }

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

    ChainBatches(long sessionId) {
        this.sessionId = sessionId;
    }

    /** Adds {@code times} identical samples taken at {@code leaf} with the given callers, innermost first. */
    ChainBatches add(int times, int domid, int vcpuId, CpuMode cpuMode, int counterIndex, Frame leaf,
            Frame... callers) {
        return addRaw(times, domid, vcpuId, (byte) cpuMode.code(), counterIndex, leaf, callers);
    }

    /** As {@link #add}, with a raw Xenoprof mode byte (to send values the enum has no name for). */
    ChainBatches addRaw(int times, int domid, int vcpuId, byte rawMode, int counterIndex, Frame leaf,
            Frame... callers) {
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
            mode[size] = rawMode;
            counter[size] = (byte) counterIndex;
            pc[size] = leaf.pc();
            image[size] = leaf.image();
            symbol[size] = leaf.symbol();
            chainStart[size] = chainCount;
            for (Frame f : callers) {
                if (chainCount == chainPc.length) {
                    int n = chainCount * 2;
                    chainPc = Arrays.copyOf(chainPc, n);
                    chainImage = Arrays.copyOf(chainImage, n);
                    chainSymbol = Arrays.copyOf(chainSymbol, n);
                }
                chainPc[chainCount] = f.pc();
                chainImage[chainCount] = f.image();
                chainSymbol[chainCount] = f.symbol();
                chainCount++;
            }
            size++;
            chainStart[size] = chainCount;
        }
        return this;
    }

    int size() {
        return size;
    }

    SampleBatch build() {
        return new SampleBatch(sessionId, size, domain.clone(), vcpu.clone(), mode.clone(), counter.clone(), pc.clone(),
                image.clone(), symbol.clone(), Arrays.copyOf(chainStart, size + 1), chainPc.clone(),
                chainImage.clone(), chainSymbol.clone());
    }
}
