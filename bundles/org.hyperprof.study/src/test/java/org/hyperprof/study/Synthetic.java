package org.hyperprof.study;

import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.sample.ImageKind;

/** Ground-truth rows and profiles made by hand for the metric tests. */
final class Synthetic {
    private Synthetic() {
    }

    /** A row with {@code cycles} whole cycles (stored in thousandths) and nothing else. */
    static GroundTruth.Row cycles(int domid, CpuMode mode, String image, String symbol, long cycles) {
        return row(domid, mode, image, symbol, Signal.CYCLES, cycles);
    }

    static GroundTruth.Row row(int domid, CpuMode mode, String image, String symbol, Signal signal, long events) {
        long[] milli = new long[Signal.COUNT];
        milli[signal.ordinal()] = events * 1000;
        ImageKind kind = switch (mode) {
            case HYPERVISOR -> ImageKind.HYPERVISOR;
            case KERNEL -> ImageKind.KERNEL;
            case USER -> ImageKind.USER;
        };
        return new GroundTruth.Row(domid, 0, mode, image, kind, symbol, milli);
    }

    /** A profile or truth from pairs ("image:symbol", count). */
    static Map<SymbolKey, Long> shares(Object... pairs) {
        Map<SymbolKey, Long> m = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            String[] is = ((String) pairs[i]).split(":", 2);
            m.put(new SymbolKey(is[0], is[1]), ((Number) pairs[i + 1]).longValue());
        }
        return m;
    }
}
