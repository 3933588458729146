package org.hyperprof.pmu.x86_64;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.CounterAllocator;

/**
 * An Intel architectural performance-monitoring model: the CPUID leaf 0x0A of the part it
 * describes, OProfile's event table for its cpu_type, and one {@link ArchPerfmonPmu} per CPU.
 *
 * <p>The DS components {@link ArchPerfmonPmuModel} ({@code i386/arch_perfmon}) and
 * {@link Core2PmuModel} ({@code i386/core_2}) are this class with their resources, each stating its
 * cpu_type and nothing else: this class finds the part and its resources by it. When
 * {@link #createPmu} options change the CPUID leaf, the register file belongs to a model derived
 * from this one with that leaf (same cpu_type and table; counter count, width and event
 * availability from the new leaf), so {@code pmu.model().allocate(...)} checks against the CPU
 * it will run on.
 */
class IntelArchPmuModel extends AbstractPmuModel {
    static final String DEFAULT_EVENT = "CPU_CLK_UNHALTED:100000:0:1:1";

    /**
     * What tells the Intel models apart.
     *
     * @param resourceFolder   the resource folder of the model's {@code events}, {@code unit_masks} and
     *                         {@code cpuid}
     * @param allowVersionZero whether option {@code cpuid.version=0} (a BIOS that reports an empty leaf)
     *                         is allowed
     */
    private record Part(String resourceFolder, boolean allowVersionZero) {
    }

    /** The parts, by the cpu_type of their model component. */
    private static final Map<String, Part> PARTS = Map.of(
            "i386/arch_perfmon", new Part("arch_perfmon", false),
            "i386/core_2", new Part("core_2", true));

    private final ArchEventData data;
    private final CpuidLeaf0A cpuid;
    private final boolean allowVersionZero;
    /** Checks events against the table and this CPU's CPUID, and places them on its general-purpose counters. */
    private final CounterAllocator allocator;

    /** The model of the part of the cpu_type its component states, as its resources describe it. */
    IntelArchPmuModel() {
        super(IntelArchPmuModel::definition);
        this.data = details(ArchEventData.class);
        this.cpuid = data.cpuid;
        this.allowVersionZero = member(PARTS, cpuType()).allowVersionZero();
        this.allocator = allocator();
    }

    /**
     * The model of {@code data}'s part on a CPU whose CPUID leaf 0x0A is {@code cpuid}: the
     * general-purpose counters and their width are the ones CPUID reports (Xen uses no more than eight).
     */
    private IntelArchPmuModel(ArchEventData data, CpuidLeaf0A cpuid, boolean allowVersionZero) {
        super(data.cpuType, data.displayName, cpuid.gpCounters(), cpuid.gpWidth(), data.table, DEFAULT_EVENT);
        this.data = data;
        this.cpuid = cpuid;
        this.allowVersionZero = allowVersionZero;
        this.allocator = allocator();
    }

    /** The model of {@code cpuType}: its part's resources, with the counters its CPUID leaf reports. */
    private static Definition<ArchEventData> definition(String cpuType) {
        ArchEventData data = ArchEventData.load(cpuType, member(PARTS, cpuType).resourceFolder());
        return new Definition<>(data, data.displayName, data.cpuid.gpCounters(), data.cpuid.gpWidth(), data.table,
                DEFAULT_EVENT);
    }

    /**
     * Allocation on the general-purpose counters CPUID reports, of the events CPUID reports
     * available. The fixed counters take no events: Xen's arch perfmon driver programs the
     * general-purpose counters only and never touches the fixed ones.
     */
    private CounterAllocator allocator() {
        List<String> names = new ArrayList<>();
        for (int c = 0; c < cpuid.gpCounters(); c++) {
            names.add("IA32_PMC" + c);
        }
        return new CounterAllocator(data.table, data.cpuType, data.displayName, DEFAULT_EVENT, cpuid.gpCounters(),
                ArchRegisters.MAX_COUNT, "Xen preloads the counter with -count through IA32_PMCx, which takes 32 bits"
                        + " and sign-extends them")
                .withCounterNoun("general-purpose counters (CPUID.0AH EAX[15:8])")
                .withCounterNames(names)
                .withEventCheck(new CpuidAvailability());
    }

    /** The same model on a CPU whose CPUID leaf 0x0A is {@code leaf}. */
    IntelArchPmuModel withCpuid(CpuidLeaf0A leaf) {
        return new IntelArchPmuModel(data, leaf, allowVersionZero);
    }

    /** The CPUID leaf 0x0A this model describes. */
    CpuidLeaf0A cpuid() {
        return cpuid;
    }

    /** Whether this CPU counts {@code event}: false when OProfile's filter bit for it is set in CPUID. */
    boolean available(EventDescriptor event) {
        Integer bit = data.filterBits.get(event.name());
        return bit == null || cpuid.eventAvailable(bit);
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        return allocator.allocate(specs);
    }

    /**
     * The table's events as this CPU's CPUID leaf 0x0A has them: an architectural event whose
     * EBX bit is set, or lies beyond the EAX[31:24] vector length, is not counted.
     */
    private final class CpuidAvailability implements CounterAllocator.EventCheck {
        @Override
        public void check(EventDescriptor event, EventSpec spec) throws EventSpecException {
            if (available(event)) {
                return;
            }
            int bit = data.filterBits.get(event.name());
            String why = bit < cpuid.eventVectorLength()
                    ? "CPUID.0AH EBX bit " + bit + " (" + CpuidLeaf0A.ARCHITECTURAL_EVENTS[bit] + ") is set"
                    : "its CPUID.0AH EBX bit " + bit + " lies beyond the vector length " + cpuid.eventVectorLength()
                            + " (EAX[31:24])";
            throw new EventSpecException(event.name() + " is not available on this " + displayName() + " CPU: "
                    + why + "; events this CPU counts: " + availableNames());
        }

        @Override
        public boolean offers(EventDescriptor event) {
            return available(event);
        }
    }

    /** The names of the events this CPU counts, for messages. */
    private String availableNames() {
        StringJoiner j = new StringJoiner(", ");
        for (EventDescriptor e : data.table.events()) {
            if (available(e)) {
                j.add(e.name());
            }
        }
        return j.toString();
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        ArchPmuOptions o = ArchPmuOptions.parse(cpuType(), cpuid, allowVersionZero, options);
        IntelArchPmuModel owner = o.cpuidChanged() ? withCpuid(o.cpuid()) : this;
        return new ArchPerfmonPmu(cpu, owner, o.cpuid(), data.signalBySelect, o.clearStatusInHandler(),
                o.fullWidthWrites(), o.autoMask());
    }

    @Override
    public String toString() {
        return "Intel architectural perfmon model " + cpuType() + " (" + displayName() + ", " + cpuid + ")";
    }
}
