package org.hyperprof.pmu.kit;

import java.util.Map;
import java.util.Objects;

import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;

/**
 * What every PMU model states the same way: its cpu_type, display name, counter count and width,
 * event table and default event, fixed when it is made, and the check of the CPU number before a
 * register file is made. Each model keeps its own {@link #allocate} and makes its register file in
 * {@link #newPmu}.
 */
public abstract class AbstractPmuModel implements PmuModel {
    private final String cpuType;
    private final String displayName;
    private final int counterCount;
    private final int counterWidth;
    private final EventTable table;
    private final String defaultEvent;

    /**
     * @param cpuType      OProfile's cpu_type ({@code i386/p6})
     * @param displayName  the processor's name as opreport prints it ({@code PIII})
     * @param counterCount the counters Xenoprof may configure
     * @param counterWidth a counter's width in bits
     * @param table        the event table
     * @param defaultEvent OProfile's default event, in {@code EventSpec} syntax
     */
    protected AbstractPmuModel(String cpuType, String displayName, int counterCount, int counterWidth,
            EventTable table, String defaultEvent) {
        this.cpuType = Objects.requireNonNull(cpuType, "cpuType");
        this.displayName = Objects.requireNonNull(displayName, "displayName");
        this.counterCount = counterCount;
        this.counterWidth = counterWidth;
        this.table = Objects.requireNonNull(table, "table");
        this.defaultEvent = Objects.requireNonNull(defaultEvent, "defaultEvent");
    }

    @Override
    public final String cpuType() {
        return cpuType;
    }

    @Override
    public final String displayName() {
        return displayName;
    }

    @Override
    public final int counterCount() {
        return counterCount;
    }

    @Override
    public final int counterWidth() {
        return counterWidth;
    }

    @Override
    public final EventTable events() {
        return table;
    }

    @Override
    public final String defaultEvent() {
        return defaultEvent;
    }

    @Override
    public final PhysicalPmu createPmu(int cpu, Map<String, String> options) {
        if (cpu < 0) {
            throw new IllegalArgumentException("physical CPU number " + cpu + " is negative; CPUs are numbered from 0");
        }
        return newPmu(cpu, options == null ? Map.of() : options);
    }

    /**
     * Creates the register file of physical CPU {@code cpu} (0 or more), in its power-on state.
     *
     * @param options the host's model options, never null (empty when none were given)
     * @throws IllegalArgumentException for an unknown option or value, naming the allowed ones
     */
    protected abstract PhysicalPmu newPmu(int cpu, Map<String, String> options);
}
