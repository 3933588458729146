package org.hyperprof.api.pmu;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A model's event table: its events in the order of OProfile's {@code events} file and its unit
 * masks by name, each event tied to the simulated {@link Signal} it counts. Immutable.
 *
 * <p>How a model gets its table (reading OProfile's files from its resources, say) is the model's
 * business; this is what every model hands the core through {@link PmuModel#events()}.
 */
public final class EventTable {
    private final Map<String, EventDescriptor> byName;
    private final Map<String, UnitMask> unitMasks;

    private EventTable(Map<String, EventDescriptor> byName, Map<String, UnitMask> unitMasks) {
        this.byName = Collections.unmodifiableMap(byName);
        this.unitMasks = Collections.unmodifiableMap(unitMasks);
    }

    /**
     * A table of {@code events}, in that order, with {@code unitMasks} by name.
     *
     * @throws IllegalArgumentException when two events share a name, or an event's unit mask is
     *                                  not the one {@code unitMasks} holds under its name
     */
    public static EventTable of(List<EventDescriptor> events, Map<String, UnitMask> unitMasks) {
        Map<String, UnitMask> masks = new LinkedHashMap<>(unitMasks);
        Map<String, EventDescriptor> byName = new LinkedHashMap<>();
        for (EventDescriptor e : events) {
            if (byName.put(e.name(), e) != null) {
                throw new IllegalArgumentException("event " + e.name() + " is in the table twice");
            }
            if (!e.unitMask().equals(masks.get(e.unitMask().name()))) {
                throw new IllegalArgumentException("event " + e.name() + " has unit mask " + e.unitMask().name()
                        + ", which is not among the table's unit masks " + masks.keySet());
            }
        }
        return new EventTable(byName, masks);
    }

    /** All events in file order. */
    public List<EventDescriptor> events() {
        return List.copyOf(byName.values());
    }

    /** The event of that name, if the model has it. */
    public Optional<EventDescriptor> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** All unit masks by name. */
    public Map<String, UnitMask> unitMasks() {
        return unitMasks;
    }

    /** The event names, comma-separated, for "allowed are ..." messages. */
    public String namesText() {
        return String.join(", ", byName.keySet());
    }

    @Override
    public String toString() {
        return byName.values().stream().map(EventDescriptor::name).collect(Collectors.joining(",", "EventTable[", "]"));
    }
}
