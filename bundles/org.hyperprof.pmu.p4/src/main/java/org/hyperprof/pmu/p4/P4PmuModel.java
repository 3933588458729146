package org.hyperprof.pmu.p4;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.CounterAllocator;
import org.hyperprof.pmu.kit.ModelResources;

/**
 * A Pentium 4 / NetBurst model: the wiring and OProfile's binding table, OProfile's event table
 * for its cpu_type, and one {@link P4Pmu} per logical CPU.
 *
 * <p>The DS components {@link Pentium4PmuModel} ({@code i386/p4}, one logical CPU per package,
 * eight OProfile counters) and {@link Pentium4HtPmuModel} ({@code i386/p4-ht}, two siblings with
 * four counters each) are this class, each stating its cpu_type and nothing else: this class finds
 * the variant by it.
 *
 * <p>Options of {@link #createPmu}:
 * <ul>
 * <li>{@code ht.thread} = {@code 0|1} ({@code i386/p4-ht} only): which sibling of its package the
 * logical CPU is; default {@code cpu % 2};</li>
 * <li>{@code cpu.model} = {@code 0|1|2|3|4|6}: the family 0Fh model number (Xen refuses models 5
 * and above 6); IQ_ESCR0/1 exist on models 1 and 2 only; default 2;</li>
 * <li>{@code lvtpc.automask} = {@code true|false}: the APIC sets LVTPC.mask when it delivers a PMI;
 * default true, as on every P4 (pmu-facts 1.1). False is a what-if override (a host description
 * written for a P6 passes it to every model); the handler unmasks either way.</li>
 * </ul>
 */
abstract class P4PmuModel extends AbstractPmuModel {
    static final String DEFAULT_EVENT = "GLOBAL_POWER_EVENTS:100000:1:1:1";
    static final String OPTION_THREAD = "ht.thread";
    static final String OPTION_MODEL = "cpu.model";
    static final String OPTION_AUTOMASK = "lvtpc.automask";
    static final int DEFAULT_CPU_MODEL = 2;

    /**
     * What tells the two P4 models apart.
     *
     * @param displayName    OProfile's CPU name, as opreport prints it
     * @param hyperThreading whether a package has two siblings, each with half of OProfile's counters
     * @param eventsFolder   the resource folder of the model's {@code events} (the unit masks are shared)
     */
    private record Variant(String displayName, boolean hyperThreading, String eventsFolder) {
    }

    /** The variants, by the cpu_type of their model component. */
    private static final Map<String, Variant> VARIANTS = Map.of(
            "i386/p4", new Variant("Pentium 4 / Xeon", false, "p4"),
            "i386/p4-ht", new Variant("Pentium 4 / Xeon with 2 hyper-threads", true, "p4_ht"));

    private final boolean hyperThreading;
    private final P4Wiring wiring;
    /** [unit * 64 + ESCR event select] to Signal ordinal, from the full i386/p4 table; -1 for none. */
    private final int[] signalByUnitEvent;
    /** Checks events against the table and places them on this logical CPU's counters. */
    private final CounterAllocator allocator;

    /** The model of the variant of the cpu_type its component states, with the wiring read from the bundle's resources. */
    P4PmuModel() {
        super(P4PmuModel::definition);
        this.hyperThreading = details(Variant.class).hyperThreading();
        String cpuType = cpuType();
        this.wiring = ModelResources.parse(P4PmuModel.class, "wiring", cpuType + " wiring",
                in -> P4Wiring.parse(cpuType + "/wiring", in));
        EventTable full = hyperThreading ? table("i386/p4", "p4") : events();
        this.signalByUnitEvent = signals(wiring, full);
        this.allocator = allocator();
    }

    /** OProfile's counters per logical CPU: 8 without Hyper-Threading, 4 per sibling with it. */
    private static Definition<Variant> definition(String cpuType) {
        Variant variant = member(VARIANTS, cpuType);
        return new Definition<>(variant, variant.displayName(),
                variant.hyperThreading() ? P4Wiring.VIRTUAL_COUNTERS / 2 : P4Wiring.VIRTUAL_COUNTERS,
                P4Registers.COUNTER_WIDTH, table(cpuType, variant.eventsFolder()), DEFAULT_EVENT);
    }

    /** The event table of {@code cpuType}, from the events of folder {@code dir} and the shared unit masks. */
    private static EventTable table(String cpuType, String dir) {
        return ModelResources.eventTable(P4PmuModel.class, cpuType, dir + "/events", "unit_masks");
    }

    /**
     * What each ESCR unit's event-select codes count: an event of the table counts its signal on
     * every ESCR of the units its binding names (the hardware decodes the code per unit).
     */
    private static int[] signals(P4Wiring wiring, EventTable table) {
        int[] byUnitEvent = new int[wiring.unitCount() * 64];
        Arrays.fill(byUnitEvent, -1);
        for (EventDescriptor e : table.events()) {
            P4Wiring.Binding b = wiring.binding(e.code());
            if (b == null || e.signal() == null) {
                continue;
            }
            for (int escr : b.escrs()) {
                int index = wiring.escrUnit(escr) * 64 + b.eventSelect();
                if (byUnitEvent[index] < 0) {
                    byUnitEvent[index] = e.signal().ordinal();
                }
            }
        }
        return byUnitEvent;
    }

    P4Wiring wiring() {
        return wiring;
    }

    boolean hyperThreading() {
        return hyperThreading;
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        return allocator.allocate(specs);
    }

    /**
     * Allocation on OProfile's counters of one logical CPU, named by their hardware counters
     * ({@code 0 (BPU_COUNTER0)}). The table's {@code counters:} field holds the P4 rule: an event
     * may use only the pair of counters of its group (BPU 0/4, MS 1/5, FLAME 2/6, IQ 3/7), one per
     * half, so a group holds at most two events at a time; on i386/p4-ht a logical CPU has one
     * half, so one event per group.
     */
    private CounterAllocator allocator() {
        List<String> names = new ArrayList<>();
        for (int c = 0; c < counterCount(); c++) {
            names.add(P4Registers.counterName(wiring.hardwareCounter(c)));
        }
        return new CounterAllocator(events(), cpuType(), displayName(), DEFAULT_EVENT, counterCount(),
                P4Registers.MAX_COUNT,
                "the handler takes bit 31 of the -count preload clearing as an overflow")
                .withCounterNoun("counters per logical CPU")
                .withCounterNames(names)
                .withSharingAdvice("events of one counter group share its counters, so choose events of different"
                        + " groups");
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        String cpuType = cpuType();
        int thread = hyperThreading ? cpu % 2 : 0;
        int cpuModel = DEFAULT_CPU_MODEL;
        boolean autoMask = true;
        for (Map.Entry<String, String> option : options.entrySet()) {
            String key = option.getKey() == null ? "" : option.getKey();
            String value = option.getValue() == null ? "" : option.getValue().trim();
            switch (key) {
                case OPTION_THREAD -> {
                    if (!hyperThreading) {
                        throw new IllegalArgumentException(cpuType + " has one logical CPU per package; option "
                                + OPTION_THREAD + " applies to i386/p4-ht only");
                    }
                    thread = switch (value) {
                        case "0" -> 0;
                        case "1" -> 1;
                        default -> throw new IllegalArgumentException(cpuType + " option " + OPTION_THREAD + "="
                                + value + " is not a sibling of a two-thread package; allowed values: 0, 1");
                    };
                }
                case OPTION_MODEL -> cpuModel = cpuModel(value);
                case OPTION_AUTOMASK -> {
                    if (!"true".equalsIgnoreCase(value) && !"false".equalsIgnoreCase(value)) {
                        throw new IllegalArgumentException(cpuType + " option " + OPTION_AUTOMASK + "=" + value
                                + " is not a boolean; allowed values: true, false");
                    }
                    autoMask = "true".equalsIgnoreCase(value);
                }
                default -> throw new IllegalArgumentException("unknown " + cpuType + " PMU option '" + key
                        + "'; allowed options: " + (hyperThreading ? OPTION_THREAD + " (0 or 1), " : "")
                        + OPTION_MODEL + " (0, 1, 2, 3, 4 or 6), " + OPTION_AUTOMASK + " (true or false)");
            }
        }
        return new P4Pmu(cpu, this, wiring, signalByUnitEvent, hyperThreading, thread, cpuModel,
                autoMask);
    }

    private int cpuModel(String value) {
        String cpuType = cpuType();
        int m;
        try {
            m = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            m = -1;
        }
        if (m < 0 || m == 5 || m > 6) {
            throw new IllegalArgumentException(cpuType + " option " + OPTION_MODEL + "=" + value + " is not a family 0Fh"
                    + " model the P4 driver supports (Xen refuses model 5 and models above 6); allowed values: 0, 1, 2,"
                    + " 3, 4, 6");
        }
        return m;
    }

    @Override
    public String toString() {
        return "Pentium 4 PMU model " + cpuType() + " (" + displayName() + ")";
    }
}
