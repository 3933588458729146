package org.hyperprof.pmu.amd;

import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.pmu.kit.CounterAllocator;

/**
 * OProfile's IBS-derived events of family 10h ({@code IBS_FETCH_*}, {@code IBS_OP_*}): which events
 * of the table they are, the rules opcontrol's {@code verify_ibs} applied to them, and the
 * {@code ibs_counter} settings they ask for. No counter counts them: each gets a column number no
 * counter has ({@link #FETCH_COLUMNS} + k, {@link #OP_COLUMNS} + k), which its samples carry.
 */
final class IbsEvents {
    /** OProfile's codes: fetch events from 0xf000, op events (with load/store and northbridge ones) 0xf100-0xf2ff. */
    static final int FETCH_BASE = 0xF000;
    static final int OP_BASE = 0xF100;
    static final int OP_END = 0xF2FF;
    /** Column numbers of fetch and op events: above Xenoprof's 8 counters, below the 256 a sample's byte holds. */
    static final int FETCH_COLUMNS = 0x10;
    static final int OP_COLUMNS = 0x20;
    /** The largest count opcontrol accepts on family 10h, fetch and op: IbsFetchMaxCnt/IbsOpMaxCnt hold count >> 4 in 16 bits. */
    static final long MAX_COUNT = 1_048_575;
    /** Bit 0 of the ibs_op unit mask: count dispatched ops instead of cycles (IbsOpCntCtl). */
    static final long DISPATCHED_OPS = 0x01;

    private IbsEvents() {
    }

    /** Whether the table's event is sampled by IBS rather than counted by a counter. */
    static boolean isIbs(EventDescriptor e) {
        return e.counterMask() == 0 && e.code() >= FETCH_BASE && e.code() <= OP_END;
    }

    static boolean isFetch(EventDescriptor e) {
        return isIbs(e) && e.code() < OP_BASE;
    }

    /** The pseudo-PC of the block whose samples feed the event's column, 0 for a counter event. */
    static int sample(CounterConfig c) {
        if (c == null || !isIbs(c.event())) {
            return 0;
        }
        return isFetch(c.event()) ? PmuModel.IBS_FETCH_SAMPLE : PmuModel.IBS_OP_SAMPLE;
    }

    /** The ibs_counter settings for the IBS events among {@code configs}, or null when there are none. */
    static IbsConfig config(List<CounterConfig> configs) {
        CounterConfig fetch = null;
        CounterConfig op = null;
        for (CounterConfig c : configs) {
            int s = sample(c);
            if (s == PmuModel.IBS_FETCH_SAMPLE && fetch == null) {
                fetch = c;
            } else if (s == PmuModel.IBS_OP_SAMPLE && op == null) {
                op = c;
            }
        }
        if (fetch == null && op == null) {
            return null;
        }
        // opcontrol always wrote ibs_fetch/rand_enable 1 (IbsRandEn randomises the fetch count's low bits).
        return new IbsConfig(op != null, fetch != null, fetch == null ? 0 : fetch.count(), op == null ? 0 : op.count(),
                fetch != null, op != null && (op.unitMask() & DISPATCHED_OPS) != 0);
    }

    /**
     * Checks the IBS events among {@code specs} (given with their table entries, null for a counter
     * event) as opcontrol did, and returns their configurations by position (null for a counter event).
     */
    static CounterConfig[] check(String cpuType, List<EventSpec> specs, EventDescriptor[] events)
            throws EventSpecException {
        CounterConfig[] out = new CounterConfig[specs.size()];
        CounterConfig firstFetch = null;
        CounterConfig firstOp = null;
        int fetches = 0;
        int ops = 0;
        for (int i = 0; i < specs.size(); i++) {
            EventDescriptor e = events[i];
            if (e == null) {
                continue;
            }
            EventSpec spec = specs.get(i);
            boolean fetch = isFetch(e);
            String kind = fetch ? "IBS fetch" : "IBS op";
            long count = spec.count();
            if (count < e.minimumCount()) {
                throw new EventSpecException("count " + count + " for " + e.name() + " is below its minimum of "
                        + e.minimumCount() + " on " + cpuType + "; give a count of at least " + e.minimumCount());
            }
            if (count > MAX_COUNT) {
                throw new EventSpecException("count " + count + " for " + e.name() + " is too large: the maximum "
                        + kind + " count on " + cpuType + " is " + MAX_COUNT + " (the max-count field keeps count >> 4"
                        + " in 16 bits); give a count of at most " + MAX_COUNT);
            }
            long um = CounterAllocator.checkedUnitMask(spec, e);
            if (!spec.kernel() || !spec.user()) {
                throw new EventSpecException(e.name() + " is given kernel " + (spec.kernel() ? 1 : 0) + " and user "
                        + (spec.user() ? 1 : 0) + ", but IBS samples at every privilege level (IbsFetchCtl and IbsOpCtl"
                        + " have no kernel/user filter, nor has Xenoprof's ibs_counter); give " + e.name() + ":" + count
                        + ":0x" + Long.toHexString(um) + ":1:1");
            }
            CounterConfig first = fetch ? firstFetch : firstOp;
            if (first != null) {
                if (first.event().name().equals(e.name())) {
                    throw new EventSpecException(e.name() + " is given twice; give each IBS event once");
                }
                if (first.count() != count) {
                    throw new EventSpecException("all " + kind + " events must have the same count (one " + kind
                            + " sampler serves them all): " + first.event().name() + " has " + first.count() + ", "
                            + e.name() + " has " + count + "; give both " + first.count());
                }
                if (first.unitMask() != um) {
                    throw new EventSpecException(String.format("all %s events must have the same unit mask: %s has"
                            + " 0x%x, %s has 0x%x; give both 0x%x", kind, first.event().name(), first.unitMask(),
                            e.name(), um, first.unitMask()));
                }
            }
            int column = fetch ? FETCH_COLUMNS + fetches++ : OP_COLUMNS + ops++;
            // The column's ground truth is what the sampler's counter counts: micro-ops when it counts dispatched ops.
            EventDescriptor counted = !fetch && (um & DISPATCHED_OPS) != 0 && e.signal() != Signal.UOPS
                    ? new EventDescriptor(e.name(), e.code(), e.counterMask(), e.minimumCount(), e.unitMask(), Signal.UOPS,
                            e.description())
                    : e;
            CounterConfig c = new CounterConfig(column, counted, count, um, true, true);
            out[i] = c;
            if (fetch && firstFetch == null) {
                firstFetch = c;
            } else if (!fetch && firstOp == null) {
                firstOp = c;
            }
        }
        return out;
    }
}
