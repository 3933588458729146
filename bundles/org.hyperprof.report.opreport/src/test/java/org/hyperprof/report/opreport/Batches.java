package org.hyperprof.report.opreport;

import java.util.Arrays;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;

/** Builds {@link SampleBatch}es sample by sample, as a daemon fills its arrays. */
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

    Batches(long sessionId) {
        this.sessionId = sessionId;
    }

    /** Adds {@code times} identical samples. */
    Batches add(int times, int domid, CpuMode cpuMode, int counterIndex, int imageId, int symbolId) {
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
            }
            domain[size] = domid;
            vcpu[size] = 0;
            mode[size] = (byte) cpuMode.code();
            counter[size] = (byte) counterIndex;
            pc[size] = 0xC0100000L + size;
            image[size] = imageId;
            symbol[size] = symbolId;
            size++;
        }
        return this;
    }

    SampleBatch build() {
        return new SampleBatch(sessionId, size, domain.clone(), vcpu.clone(), mode.clone(), counter.clone(), pc.clone(),
                image.clone(), symbol.clone(), new int[size + 1], new long[0], new int[0], new int[0]);
    }
}
