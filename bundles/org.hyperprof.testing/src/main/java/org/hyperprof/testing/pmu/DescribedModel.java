package org.hyperprof.testing.pmu;

import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PmuModel;

/**
 * A test model's description held as values (CPU type, name, counters, events, default event), so
 * that a fake says only how it allocates and which PMUs it builds.
 */
public abstract class DescribedModel implements PmuModel {
    private final String cpuType;
    private final String displayName;
    private final int counterCount;
    private final int counterWidth;
    private final EventTable events;
    private final String defaultEvent;

    /**
     * A model with counters 40 bits wide, as P6's.
     *
     * @param events the model's event table; {@code null} for a model with no counters to program
     */
    protected DescribedModel(String cpuType, String displayName, int counterCount, EventTable events,
            String defaultEvent) {
        this(cpuType, displayName, counterCount, 40, events, defaultEvent);
    }

    protected DescribedModel(String cpuType, String displayName, int counterCount, int counterWidth,
            EventTable events, String defaultEvent) {
        this.cpuType = cpuType;
        this.displayName = displayName;
        this.counterCount = counterCount;
        this.counterWidth = counterWidth;
        this.events = events;
        this.defaultEvent = defaultEvent;
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
        return events;
    }

    @Override
    public final String defaultEvent() {
        return defaultEvent;
    }
}
