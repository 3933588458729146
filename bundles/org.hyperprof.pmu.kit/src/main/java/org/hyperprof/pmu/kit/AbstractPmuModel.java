package org.hyperprof.pmu.kit;

import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;

/**
 * What every PMU model states the same way: its cpu_type, display name, counter count and width,
 * event table and default event, fixed when it is made, and the check of the CPU number before a
 * register file is made. Each model keeps its own {@link #allocate} and makes its register file in
 * {@link #newPmu}.
 *
 * <p>A model of a family whose members differ only in a row of a table is its identity and nothing
 * else: its component states the cpu_type once ({@code @PmuModel.CpuType("i386/athlon")}), and the
 * family's base passes {@link #AbstractPmuModel(Function)} the function that finds the member's
 * {@link Definition} by that cpu_type.
 */
public abstract class AbstractPmuModel implements PmuModel {
    private final String cpuType;
    private final String displayName;
    private final int counterCount;
    private final int counterWidth;
    private final EventTable table;
    private final String defaultEvent;
    /** The family's own row of this member; null for a model made with the explicit description. */
    private final Object details;

    /**
     * What a family states of one member, found by the member's cpu_type.
     *
     * @param <D>          the family's own description of the member (its row, its data files), which
     *                     the family's base takes back with {@link #details(Class)}
     * @param details      that description
     * @param displayName  the processor's name as opreport prints it ({@code Athlon})
     * @param counterCount the counters Xenoprof may configure
     * @param counterWidth a counter's width in bits
     * @param events       the event table
     * @param defaultEvent OProfile's default event, in {@code EventSpec} syntax
     */
    public record Definition<D>(D details, String displayName, int counterCount, int counterWidth, EventTable events,
            String defaultEvent) {
        public Definition {
            Objects.requireNonNull(details, "details");
        }
    }

    /**
     * The model of the cpu_type its class states with {@link PmuModel.CpuType}, described by
     * {@code definitions}' answer for that cpu_type.
     *
     * @param definitions the family's definition of a member, by cpu_type (a static function of the
     *                    family's base); it throws {@link IllegalArgumentException} for a cpu_type
     *                    the family has no row for
     * @throws IllegalStateException when the model's class states no cpu_type
     */
    protected AbstractPmuModel(Function<String, ? extends Definition<?>> definitions) {
        this.cpuType = statedCpuType(getClass());
        Definition<?> d = definitions.apply(cpuType);
        this.displayName = Objects.requireNonNull(d.displayName(), "displayName");
        this.counterCount = d.counterCount();
        this.counterWidth = d.counterWidth();
        this.table = Objects.requireNonNull(d.events(), "events");
        this.defaultEvent = Objects.requireNonNull(d.defaultEvent(), "defaultEvent");
        this.details = d.details();
    }

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
        this.details = null;
    }

    /**
     * The row of {@code cpuType} in a family's table, for the family's definition function.
     *
     * @throws IllegalArgumentException when the table has no row for it, naming the cpu_types it has
     */
    protected static <R> R member(Map<String, R> family, String cpuType) {
        R row = family.get(cpuType);
        if (row == null) {
            throw new IllegalArgumentException("no model of this family has cpu_type " + cpuType + "; its models are "
                    + new TreeSet<>(family.keySet()));
        }
        return row;
    }

    private static String statedCpuType(Class<?> model) {
        PmuModel.CpuType stated = model.getAnnotation(PmuModel.CpuType.class);
        if (stated == null || stated.value().isBlank()) {
            throw new IllegalStateException(model.getName() + " states no cpu_type: a model's component is annotated"
                    + " @PmuModel.CpuType(\"<cpu_type>\"), which DS registers as its " + CPU_TYPE + " property");
        }
        return stated.value();
    }

    /**
     * The family's own description of this member, as its {@link Definition} carried it.
     *
     * @throws IllegalStateException when the model was made with the explicit description
     * @throws ClassCastException    when the family described it with another type
     */
    protected final <D> D details(Class<D> type) {
        if (details == null) {
            throw new IllegalStateException(cpuType + " was described explicitly, not by a family's definition");
        }
        return type.cast(details);
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
