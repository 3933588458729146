package org.hyperprof.pmu.x86_64;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.UnitMask;

/**
 * An Intel architectural performance-monitoring model: the CPUID leaf 0x0A of the part it
 * describes, OProfile's event table for its cpu_type, and one {@link ArchPerfmonPmu} per CPU.
 *
 * <p>The DS components {@link ArchPerfmonPmuModel} ({@code i386/arch_perfmon}) and
 * {@link Core2PmuModel} ({@code i386/core_2}) are this class with their resources. When
 * {@link #createPmu} options change the CPUID leaf, the register file belongs to a model derived
 * from this one with that leaf (same cpu_type and table; counter count, width and event
 * availability from the new leaf), so {@code pmu.model().allocate(...)} checks against the CPU
 * it will run on.
 */
class IntelArchPmuModel implements PmuModel {
    static final String DEFAULT_EVENT = "CPU_CLK_UNHALTED:100000:0:1:1";

    private final ArchEventData data;
    private final CpuidLeaf0A cpuid;
    private final boolean allowVersionZero;

    IntelArchPmuModel(String cpuType, String resourceDir, boolean allowVersionZero) {
        this.data = ArchEventData.load(cpuType, resourceDir);
        this.cpuid = data.cpuid;
        this.allowVersionZero = allowVersionZero;
    }

    private IntelArchPmuModel(IntelArchPmuModel base, CpuidLeaf0A cpuid) {
        this.data = base.data;
        this.cpuid = cpuid;
        this.allowVersionZero = base.allowVersionZero;
    }

    /** The same model on a CPU whose CPUID leaf 0x0A is {@code leaf}. */
    IntelArchPmuModel withCpuid(CpuidLeaf0A leaf) {
        return new IntelArchPmuModel(this, leaf);
    }

    /** The CPUID leaf 0x0A this model describes. */
    CpuidLeaf0A cpuid() {
        return cpuid;
    }

    @Override
    public String cpuType() {
        return data.cpuType;
    }

    @Override
    public String displayName() {
        return data.displayName;
    }

    /** The general-purpose counters CPUID reports (Xen uses no more than eight). */
    @Override
    public int counterCount() {
        return cpuid.gpCounters();
    }

    /** The general-purpose counter width CPUID reports. */
    @Override
    public int counterWidth() {
        return cpuid.gpWidth();
    }

    @Override
    public EventTable events() {
        return data.table;
    }

    @Override
    public String defaultEvent() {
        return DEFAULT_EVENT;
    }

    /** Whether this CPU counts {@code event}: false when OProfile's filter bit for it is set in CPUID. */
    boolean available(EventDescriptor event) {
        Integer bit = data.filterBits.get(event.name());
        return bit == null || cpuid.eventAvailable(bit);
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs == null || specs.isEmpty()) {
            throw new EventSpecException("no event given; give at least one, e.g. the default " + DEFAULT_EVENT);
        }
        int n = specs.size();
        int counters = counterCount();
        if (n > counters) {
            throw new EventSpecException(n + " events given, but this " + displayName() + " CPU has only " + counters
                    + " general-purpose counters (CPUID.0AH EAX[15:8]); give at most " + counters + " events");
        }
        EventDescriptor[] events = new EventDescriptor[n];
        long[] unitMasks = new long[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            if (spec == null) {
                throw new EventSpecException("event " + (i + 1) + " of " + n + " is missing (null)");
            }
            events[i] = checkedEvent(spec);
            unitMasks[i] = checkedUnitMask(spec, events[i]);
        }
        int[] assigned = new int[n];
        if (!assign(events, 0, 0L, assigned)) {
            throw new EventSpecException(noCounterMessage(events));
        }
        CounterConfig[] configs = new CounterConfig[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            configs[i] = new CounterConfig(assigned[i], events[i], spec.count(), unitMasks[i], spec.kernel(),
                    spec.user());
        }
        return configs;
    }

    private EventDescriptor checkedEvent(EventSpec spec) throws EventSpecException {
        String name = spec.eventName();
        EventDescriptor event = name == null ? null : data.table.find(name).orElse(null);
        if (event == null) {
            String hint = "";
            if (name != null) {
                EventDescriptor caseless = data.table.find(name.toUpperCase(Locale.ROOT)).orElse(null);
                if (caseless != null) {
                    hint = " (did you mean " + caseless.name() + "? names are upper case)";
                }
            }
            throw new EventSpecException("unknown event '" + name + "' for CPU type " + cpuType() + " ("
                    + displayName() + ")" + hint + "; allowed events: " + availableNames());
        }
        if (!available(event)) {
            int bit = data.filterBits.get(event.name());
            String why = bit < cpuid.eventVectorLength()
                    ? "CPUID.0AH EBX bit " + bit + " (" + CpuidLeaf0A.ARCHITECTURAL_EVENTS[bit] + ") is set"
                    : "its CPUID.0AH EBX bit " + bit + " lies beyond the vector length " + cpuid.eventVectorLength()
                            + " (EAX[31:24])";
            throw new EventSpecException(event.name() + " is not available on this " + displayName() + " CPU: "
                    + why + "; events this CPU counts: " + availableNames());
        }
        if (spec.count() < event.minimumCount()) {
            throw new EventSpecException("count " + spec.count() + " for " + event.name() + " is below its minimum of "
                    + event.minimumCount() + "; give a count of at least " + event.minimumCount());
        }
        if (spec.count() > ArchRegisters.MAX_COUNT) {
            throw new EventSpecException("count " + spec.count() + " for " + event.name() + " is above "
                    + ArchRegisters.MAX_COUNT + ": Xen preloads the counter with -count through IA32_PMCx, which takes"
                    + " 32 bits and sign-extends them; give a count of at most " + ArchRegisters.MAX_COUNT);
        }
        if (!spec.kernel() && !spec.user()) {
            throw new EventSpecException(event.name() + " counts in neither kernel nor user mode; set kernel or user to 1");
        }
        return event;
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

    private static long checkedUnitMask(EventSpec spec, EventDescriptor event) throws EventSpecException {
        UnitMask um = event.unitMask();
        if (spec.unitMask() == -1) {
            return um.defaultValue();
        }
        if (!um.allows(spec.unitMask())) {
            throw new EventSpecException(String.format("unit mask 0x%x is not valid for %s (unit mask '%s'); allowed: %s",
                    spec.unitMask(), event.name(), um.name(), um.describeAllowed()));
        }
        return spec.unitMask();
    }

    /**
     * Finds a counter for every event, events in order and counters lowest first, backtracking
     * when a later event needs a counter an earlier one took (Core 2's MEM_LOAD_RETIRED needs 0).
     */
    private boolean assign(EventDescriptor[] events, int index, long used, int[] assigned) {
        if (index == events.length) {
            return true;
        }
        for (int c = 0; c < counterCount(); c++) {
            if ((used & (1L << c)) == 0 && events[index].canUseCounter(c)) {
                assigned[index] = c;
                if (assign(events, index + 1, used | (1L << c), assigned)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The counters of {@code event} this CPU has, as OProfile writes them. */
    private String usableCounters(EventDescriptor event) {
        StringJoiner j = new StringJoiner(",");
        for (int c = 0; c < counterCount(); c++) {
            if (event.canUseCounter(c)) {
                j.add(Integer.toString(c));
            }
        }
        return j.toString();
    }

    /** Explains a failed assignment with the first event that finds its counters taken. */
    private String noCounterMessage(EventDescriptor[] events) {
        StringJoiner usable = new StringJoiner(", ");
        for (EventDescriptor e : events) {
            usable.add(e.name() + " can use counter(s) " + usableCounters(e));
        }
        String[] takenBy = new String[counterCount()];
        for (EventDescriptor e : events) {
            int free = -1;
            for (int c = 0; c < takenBy.length && free < 0; c++) {
                if (takenBy[c] == null && e.canUseCounter(c)) {
                    free = c;
                }
            }
            if (free >= 0) {
                takenBy[free] = e.name();
                continue;
            }
            StringJoiner taken = new StringJoiner(", ");
            for (int c = 0; c < takenBy.length; c++) {
                if (e.canUseCounter(c)) {
                    taken.add("counter " + c + " is taken by " + takenBy[c]);
                }
            }
            return "no free counter for " + e.name() + ": it can use counter(s) " + usableCounters(e) + " and " + taken
                    + " (" + usable + "); choose events that can run on different counters";
        }
        return "the events do not fit the counters (" + usable + ")";
    }

    @Override
    public PhysicalPmu createPmu(int cpu, Map<String, String> options) {
        if (cpu < 0) {
            throw new IllegalArgumentException("physical CPU number " + cpu + " is negative; CPUs are numbered from 0");
        }
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
