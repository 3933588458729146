package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.PmuModel;

/**
 * The columns a session's IBS samples feed, by the kind of block Xen logs: every IBS fetch block
 * is one event of each fetch column, every op block one of each op column (OProfile's daemon
 * turned each IBS sample into one sample of every selected IBS-derived event it satisfied; the
 * family 10h model offers only events every sample satisfies). A column is the number its
 * {@link CounterConfig} carries.
 */
record IbsColumns(int[] fetch, int[] op) {

    /** The IBS columns among the session's events, as the CPU model tells them apart; null when there are none. */
    static IbsColumns of(PmuModel model, List<CounterConfig> counters) {
        if (model == null) {
            return null;
        }
        List<Integer> fetch = new ArrayList<>();
        List<Integer> op = new ArrayList<>();
        for (CounterConfig c : counters) {
            int kind = model.ibsSample(c);
            if (kind == PmuModel.IBS_FETCH_SAMPLE) {
                fetch.add(c.counter());
            } else if (kind == PmuModel.IBS_OP_SAMPLE) {
                op.add(c.counter());
            }
        }
        if (fetch.isEmpty() && op.isEmpty()) {
            return null;
        }
        return new IbsColumns(fetch.stream().mapToInt(Integer::intValue).toArray(),
                op.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The columns of the block a marker begins (13 fetch, 14 op), or null. */
    int[] of(long marker) {
        return marker == PmuModel.IBS_FETCH_SAMPLE ? fetch : marker == PmuModel.IBS_OP_SAMPLE ? op : null;
    }
}
