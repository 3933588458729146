package org.hyperprof.pmu.ppc970;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.CounterAllocator;
import org.hyperprof.pmu.kit.ModelResources;
import org.osgi.service.component.annotations.Component;

/**
 * The IBM PowerPC 970 performance monitor ({@code ppc64/970}, printed as {@code ppc64 970}):
 * eight 32-bit PMCs programmed by event group, OProfile's 970 event table and group mappings,
 * and one {@link Ppc970Pmu} register file per physical CPU.
 *
 * <p>Options of {@link #createPmu} (see {@link Ppc970Options}):
 * <ul>
 * <li>{@code mmcra.hvpr} = {@code linux|xnu}: how software reads MMCRA's sampled HV/PR bits
 * (default linux: bit 35 = HV, bit 36 = PR);</li>
 * <li>{@code mmcra.hvpr.hardware} = {@code linux|xnu}: which bits the simulated part sets
 * (default linux);</li>
 * <li>{@code fcs.states} = {@code privileged|supervisor}: MMCR0[FCS] freezes MSR[PR]=0 (default)
 * or only MSR[HV,PR]=00;</li>
 * <li>{@code pmxe.clear} = {@code alert|interrupt}: when the hardware clears MMCR0[PMXE]
 * (default alert);</li>
 * <li>{@code msr.pmm} = {@code 0|1}: MSR[PMM] of the profiled code (default 0).</li>
 * </ul>
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType(Ppc970PmuModel.CPU_TYPE_VALUE)
public final class Ppc970PmuModel extends AbstractPmuModel {
    /** The service's cpu.type. */
    static final String CPU_TYPE_VALUE = "ppc64/970";
    /** OProfile's name for the CPU ({@code op_cpu_type.c}). */
    static final String DISPLAY_NAME = "ppc64 970";
    private static final String DEFAULT_EVENT = "CYCLES:100000:0:1:1";

    private final EventTable table;
    private final Ppc970EventGroups groups;
    /** The checks of one event that every model makes (placement is by group, below). */
    private final CounterAllocator checks;

    /** The model with its event table and group mappings read from the bundle's resources. */
    public Ppc970PmuModel() {
        this(readTable());
    }

    private Ppc970PmuModel(EventTable table) {
        super(CPU_TYPE_VALUE, DISPLAY_NAME, Ppc970Registers.COUNTERS, Ppc970Registers.COUNTER_WIDTH, table,
                DEFAULT_EVENT);
        this.table = table;
        this.checks = new CounterAllocator(table, CPU_TYPE_VALUE, DISPLAY_NAME, DEFAULT_EVENT, Ppc970Registers.COUNTERS,
                Ppc970Registers.MAX_COUNT, "a 970 PMC is preloaded with 0x80000000 - count and samples when it turns"
                        + " negative (bit 31 set)")
                .withCounterNoun("counters (PMC1-PMC8)");
        this.groups = ModelResources.parse(Ppc970PmuModel.class, "event_mappings", CPU_TYPE_VALUE + " event groups",
                in -> Ppc970EventGroups.parse(CPU_TYPE_VALUE, in, table));
    }

    private static EventTable readTable() {
        return ModelResources.eventTable(Ppc970PmuModel.class, CPU_TYPE_VALUE, "events", "unit_masks");
    }

    /** The group mappings and selector decoding shared by every CPU's register file. */
    Ppc970EventGroups groups() {
        return groups;
    }

    /**
     * OProfile's 970 rules: every event belongs to one group and is tied to one counter of it
     * (its number is {@code group*16 + counter}), all events of a session come from one group,
     * and the kernel and user flags are global (MMCR0[FCS] and [FCP]), so all events give the same.
     */
    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs == null || specs.isEmpty()) {
            throw new EventSpecException("no event given; give at least one, e.g. the default " + DEFAULT_EVENT);
        }
        int n = specs.size();
        if (n > Ppc970Registers.COUNTERS) {
            throw new EventSpecException(n + " events given, but the " + DISPLAY_NAME + " has only "
                    + Ppc970Registers.COUNTERS + " counters (PMC1-PMC8); give at most " + Ppc970Registers.COUNTERS
                    + " events, all from one group");
        }
        EventDescriptor[] events = new EventDescriptor[n];
        long[] unitMasks = new long[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            if (spec == null) {
                throw new EventSpecException("event " + (i + 1) + " of " + n + " is missing (null)");
            }
            CounterAllocator.Checked checked = checks.check(spec, i, n);
            events[i] = checked.event();
            unitMasks[i] = checked.unitMask();
        }
        int group = Ppc970EventGroups.groupOf(events[0].code());
        String[] takenBy = new String[Ppc970Registers.COUNTERS];
        for (int i = 0; i < n; i++) {
            EventDescriptor e = events[i];
            int g = Ppc970EventGroups.groupOf(e.code());
            if (g != group) {
                throw new EventSpecException(e.name() + " is in " + groupText(g) + " but " + events[0].name()
                        + " is in " + groupText(group) + ": the " + DISPLAY_NAME
                        + " counts one event group at a time, so all events of a session must come from one group;"
                        + " the groups are: " + groups.groupsText());
            }
            int counter = Ppc970EventGroups.counterOf(e.code());
            if (takenBy[counter] != null) {
                throw new EventSpecException(e.name() + " needs " + Ppc970EventGroups.counterText(counter)
                        + ", which " + takenBy[counter] + " already uses: each event of a group is tied to its"
                        + " own counter, so give each event once; " + groupText(group) + " has "
                        + eventsOf(group));
            }
            takenBy[counter] = e.name();
            EventSpec spec = specs.get(i);
            EventSpec first = specs.get(0);
            if (spec.kernel() != first.kernel() || spec.user() != first.user()) {
                throw new EventSpecException(e.name() + " asks for kernel=" + flag(spec.kernel()) + " user="
                        + flag(spec.user()) + " but " + events[0].name() + " for kernel=" + flag(first.kernel())
                        + " user=" + flag(first.user()) + ": the " + DISPLAY_NAME
                        + " filters privilege for all counters at once (MMCR0 FCS and FCP);"
                        + " give every event the same kernel and user flags");
            }
        }
        CounterConfig[] configs = new CounterConfig[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            configs[i] = new CounterConfig(Ppc970EventGroups.counterOf(events[i].code()), events[i], spec.count(),
                    unitMasks[i], spec.kernel(), spec.user());
        }
        return configs;
    }

    private static String flag(boolean b) {
        return b ? "1" : "0";
    }

    private static String groupText(int group) {
        return group == 0 ? "the default group (group 0)" : "group " + group;
    }

    private String eventsOf(int group) {
        StringBuilder b = new StringBuilder();
        for (EventDescriptor e : table.events()) {
            if (Ppc970EventGroups.groupOf(e.code()) == group) {
                b.append(b.length() == 0 ? "" : ", ").append(e.name()).append(" on ")
                        .append(Ppc970EventGroups.counterText(Ppc970EventGroups.counterOf(e.code())));
            }
        }
        return b.toString();
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        return new Ppc970Pmu(cpu, this, groups, Ppc970Options.parse(options));
    }

    @Override
    public String toString() {
        return "PowerPC 970 PMU model " + CPU_TYPE_VALUE + " (" + DISPLAY_NAME + ")";
    }
}
