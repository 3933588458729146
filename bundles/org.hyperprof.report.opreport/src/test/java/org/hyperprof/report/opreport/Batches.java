package org.hyperprof.report.opreport;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.testing.sample.TestBatches;

/** Samples repeated, with or without callers, for report tests. */
final class Batches {
    private final TestBatches columns;

    Batches(long sessionId) {
        columns = new TestBatches(sessionId);
    }

    /** Adds {@code times} identical samples on vCPU 0, each at its own PC, without callers. */
    Batches add(int times, int domid, CpuMode cpuMode, int counterIndex, int imageId, int symbolId) {
        for (int t = 0; t < times; t++) {
            columns.sample(domid, 0, (byte) cpuMode.code(), counterIndex, 0xC0100000L + columns.size(), imageId,
                    symbolId);
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
            columns.sample(domid, vcpuId, (byte) cpuMode.code(), counterIndex, samplePc, imageId, symbolId);
            for (int k = 0; k < callers.length; k += 2) {
                columns.caller(0x08048000L + columns.chainCount(), callers[k], callers[k + 1]);
            }
        }
        return this;
    }

    SampleBatch build() {
        return columns.build();
    }
}
