package org.hyperprof.profiler;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.EventTableReader;

/** A two-counter P6-like model: two events, in-order counter assignment, minimum counts checked. */
final class FakeModel extends AbstractPmuModel {
    FakeModel() {
        super("i386/p6", "PIII", 2, 40, table(), "CPU_CLK_UNHALTED:100000:0:1:1");
    }

    private static EventTable table() {
        String events = """
                event:0x79 counters:0,1 um:zero minimum:6000 name:CPU_CLK_UNHALTED signal:CYCLES : clocks processor is not halted
                event:0xc0 counters:0,1 um:zero minimum:6000 name:INST_RETIRED signal:INSTRUCTIONS : instructions retired
                """;
        String masks = "name:zero type:mandatory default:0x0\n\t0x0 No unit mask\n";
        try {
            return EventTableReader.parse("fake", new StringReader(events), new StringReader(masks));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs.size() > 2) {
            throw new EventSpecException(specs.size() + " events given; this CPU has 2 counters");
        }
        CounterConfig[] out = new CounterConfig[specs.size()];
        for (int i = 0; i < out.length; i++) {
            EventSpec s = specs.get(i);
            EventDescriptor d = events().find(s.eventName()).orElseThrow(() -> new EventSpecException(
                    "unknown event " + s.eventName() + "; allowed are " + events().namesText()));
            if (s.count() < d.minimumCount()) {
                throw new EventSpecException("count " + s.count() + " of " + d.name() + " is below the minimum "
                        + d.minimumCount());
            }
            out[i] = new CounterConfig(i, d, s.count(), s.unitMask() < 0 ? d.unitMask().defaultValue() : s.unitMask(),
                    s.kernel(), s.user());
        }
        return out;
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        throw new IllegalStateException("the profiler's tests never build physical PMUs");
    }
}
