package org.hyperprof.hypervisor.xenoprof;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.EventTableReader;

/** A two-counter P6-like model whose event table is the test resource next to this class. */
final class FakeModel extends AbstractPmuModel {
    static final String CPU_TYPE = "i386/test_p6";
    /** CPUID 0x8000001B EAX this model reports; 0 = no IBS. */
    long ibsCaps;

    FakeModel(int counters) {
        this(counters, CPU_TYPE);
    }

    FakeModel(int counters, String cpuType) {
        super(cpuType, "Test P6", counters, 40, table(), "CPU_CLK_UNHALTED:100000");
    }

    private static EventTable table() {
        try (Reader ev = resource("events"); Reader um = resource("unit_masks")) {
            return EventTableReader.parse(CPU_TYPE, ev, um);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Reader resource(String name) {
        return new InputStreamReader(FakeModel.class.getResourceAsStream(name), StandardCharsets.UTF_8);
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) {
        throw new UnsupportedOperationException("the Xenoprof tests configure counters through XENOPROF_counter");
    }

    @Override
    public long ibsCapabilities() {
        return ibsCaps;
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        return new FakePmu(cpu, this);
    }
}
