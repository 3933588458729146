package org.hyperprof.hypervisor.xenoprof;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.xenoprof.XenoprofCounter;

/**
 * x86's {@code counter_config[OP_MAX_COUNTER]}: what {@code XENOPROF_counter} stored for each
 * counter index. Xen keeps it across sessions (nothing clears it) and copies count, enabled,
 * event, kernel, user and unit_mask; it ignores {@code hypervisor}.
 */
final class CounterSettings {
    /** {@code OP_MAX_COUNTER}: Xen stores at most 8 configurations, whatever the model has. */
    static final int OP_MAX_COUNTER = 8;

    private static final UnitMask NO_UNIT_MASK = new UnitMask("none", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "No unit mask")));

    private final long[] count = new long[OP_MAX_COUNTER];
    private final int[] enabled = new int[OP_MAX_COUNTER];
    private final int[] event = new int[OP_MAX_COUNTER];
    private final int[] kernel = new int[OP_MAX_COUNTER];
    private final int[] user = new int[OP_MAX_COUNTER];
    private final long[] unitMask = new long[OP_MAX_COUNTER];

    /** Whether {@code ind}, read as Xen's {@code uint32}, is a storable index. */
    static boolean storable(int ind) {
        return ind >= 0 && ind < OP_MAX_COUNTER;
    }

    void store(XenoprofCounter c) {
        int i = c.ind;
        count[i] = c.count;
        enabled[i] = c.enabled;
        event[i] = c.event;
        kernel[i] = c.kernel;
        user[i] = c.user;
        unitMask[i] = c.unitMask;
    }

    /**
     * The configurations {@code setup_events} programs: enabled counters below the model's counter
     * count, each with a non-zero count (Xen's {@code reset_value} of 0 means "ignored").
     */
    CounterConfig[] build(PmuModel model) {
        List<EventDescriptor> table = model.events().events();
        int n = Math.min(OP_MAX_COUNTER, model.counterCount());
        List<CounterConfig> configs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (enabled[i] == 0 || count[i] == 0) {
                continue;
            }
            configs.add(new CounterConfig(i, resolve(table, model.cpuType(), event[i], i), count[i], unitMask[i],
                    kernel[i] != 0, user[i] != 0));
        }
        return configs.toArray(new CounterConfig[0]);
    }

    /**
     * The model's event with that code usable on {@code counter} (the first in table order), or,
     * when the table has none, a descriptor with no signal: Xen programs any event number it is
     * given, and an event the simulated machine never emits simply never counts.
     */
    static EventDescriptor resolve(List<EventDescriptor> table, String cpuType, int code, int counter) {
        for (EventDescriptor d : table) {
            if (d.code() == code && d.canUseCounter(counter)) {
                return d;
            }
        }
        return new EventDescriptor(String.format("event 0x%02x", code), code, 1L << counter, 0, NO_UNIT_MASK, null,
                String.format("event code 0x%02x is not in the %s event table for counter %d; it never counts", code,
                        cpuType, counter));
    }

    /** One line per stored enabled configuration, for messages. */
    String describe(int modelCounters) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < OP_MAX_COUNTER; i++) {
            if (enabled[i] == 0) {
                continue;
            }
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(String.format("counter %d: event 0x%02x count %d unit mask 0x%02x%s%s", i, event[i], count[i],
                    unitMask[i], kernel[i] != 0 ? " kernel" : "", user[i] != 0 ? " user" : ""));
            if (i >= modelCounters) {
                b.append(" (stored, but the model has only ").append(modelCounters).append(" counters)");
            }
        }
        return b.length() == 0 ? "no counter enabled" : b.toString();
    }
}
