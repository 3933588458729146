package org.hyperprof.report.pprof;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.testing.sample.TestBatches;

/** Samples repeated with call chains of frames given whole (PC, image, symbol), for profile tests. */
final class ChainBatches {

    /** One frame: a PC resolved to an image and a symbol. */
    record Frame(long pc, int image, int symbol) {
    }

    private final TestBatches columns;
    /** Each counter's weight per sample, or null for weight 1. */
    private final long[] periods;

    ChainBatches(long sessionId) {
        columns = new TestBatches(sessionId);
        periods = null;
    }

    /** Samples of {@code info}'s session weighed by their counter's period, as the simulator weighs them. */
    ChainBatches(SessionInfo info) {
        columns = new TestBatches(info.sessionId());
        periods = info.counters().stream().mapToLong(CounterConfig::count).toArray();
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
            columns.sample(domid, vcpuId, rawMode, counterIndex, leaf.pc(), leaf.image(), leaf.symbol(),
                    periods == null ? 1 : periods[counterIndex], SampleBatch.UNKNOWN, SampleBatch.UNKNOWN,
                    SampleBatch.UNKNOWN, SampleBatch.UNKNOWN);
            for (Frame f : callers) {
                columns.caller(f.pc(), f.image(), f.symbol());
            }
        }
        return this;
    }

    int size() {
        return columns.size();
    }

    SampleBatch build() {
        return columns.build();
    }
}
