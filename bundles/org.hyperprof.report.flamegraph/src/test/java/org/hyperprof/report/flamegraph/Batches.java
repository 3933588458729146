package org.hyperprof.report.flamegraph;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.testing.sample.TestBatches;

/** Samples repeated with their callers (innermost first), each at its own PC, for flame graph tests. */
final class Batches {
    private final TestBatches columns;

    Batches(long sessionId) {
        columns = new TestBatches(sessionId);
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
            columns.sample(domid, vcpuId, (byte) cpuMode.code(), counterIndex, 0xC0100000L + columns.size(), imageId,
                    symbolId);
            for (Caller c : innermostFirst) {
                columns.caller(0xC0200000L + columns.chainCount(), c.image(), c.symbol());
            }
        }
        return this;
    }

    SampleBatch build() {
        return columns.build();
    }
}
