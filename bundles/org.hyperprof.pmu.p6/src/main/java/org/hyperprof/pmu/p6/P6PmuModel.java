package org.hyperprof.pmu.p6;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.UnitMask;
import org.osgi.service.component.annotations.Component;

/**
 * The Intel P6 family PMU (Pentium Pro, Pentium II, Pentium III, Pentium M): two 40-bit counters,
 * OProfile's P6 event table, and one {@link P6Pmu} register file per physical CPU.
 *
 * <p>The service is the generic {@code i386/p6} model and prints as a {@code PIII}. A host may
 * name the exact part per CPU with the {@code variant} option of {@link #createPmu}; the register
 * file then belongs to that part's model (its {@link PhysicalPmu#model()} prints as, for example,
 * {@code Pentium M (P6 core)}), which shares this model's event table.
 *
 * <p>Options of {@link #createPmu}:
 * <ul>
 * <li>{@code lvtpc.automask} = {@code true|false}: the APIC sets LVTPC.mask when it delivers a
 * PMI (Pentium M behaviour); default false, or true for {@code variant=p6_mobile};</li>
 * <li>{@code variant} = {@code ppro|pii|piii|p6_mobile}: the part, as OProfile names it.</li>
 * </ul>
 */
@Component(service = PmuModel.class, property = PmuModel.CPU_TYPE + "=" + P6PmuModel.CPU_TYPE_VALUE)
public final class P6PmuModel implements PmuModel {
    /** The service's cpu.type. */
    static final String CPU_TYPE_VALUE = "i386/p6";
    static final String OPTION_AUTOMASK = "lvtpc.automask";
    static final String OPTION_VARIANT = "variant";
    private static final String DEFAULT_EVENT = "CPU_CLK_UNHALTED:100000:0:1:1";
    private static final String ALLOWED_OPTIONS = OPTION_AUTOMASK + " (true or false), " + OPTION_VARIANT + " ("
            + P6Variant.allowedText() + ")";

    private final P6Variant variant;
    private final EventTable table;
    /** Event code to Signal ordinal (-1: no event with that code); the first table entry of a code wins. */
    private final int[] signalByCode;
    /** This model and its siblings for the other P6 parts, sharing one table. */
    private final Map<P6Variant, P6PmuModel> family;

    /** The generic P6 model ({@code PIII}), with the event table read from the bundle's resources. */
    public P6PmuModel() {
        this.variant = P6Variant.PIII;
        this.table = loadTable();
        this.signalByCode = signalsByCode(table);
        Map<P6Variant, P6PmuModel> members = new EnumMap<>(P6Variant.class);
        this.family = Collections.unmodifiableMap(members);
        for (P6Variant v : P6Variant.values()) {
            members.put(v, v == variant ? this : new P6PmuModel(v, this));
        }
    }

    private P6PmuModel(P6Variant variant, P6PmuModel generic) {
        this.variant = variant;
        this.table = generic.table;
        this.signalByCode = generic.signalByCode;
        this.family = generic.family;
    }

    private static EventTable loadTable() {
        try (Reader events = resource("events"); Reader unitMasks = resource("unit_masks")) {
            return EventTable.parse(CPU_TYPE_VALUE, events, unitMasks);
        } catch (IOException e) {
            throw new IllegalStateException("the P6 event table shipped in bundle org.hyperprof.pmu.p6 is unreadable: "
                    + e.getMessage(), e);
        }
    }

    private static Reader resource(String name) {
        InputStream in = P6PmuModel.class.getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException("resource org/hyperprof/pmu/p6/" + name
                    + " is missing from bundle org.hyperprof.pmu.p6; rebuild the bundle");
        }
        return new InputStreamReader(in, StandardCharsets.UTF_8);
    }

    private static int[] signalsByCode(EventTable table) {
        int[] byCode = new int[256];
        Arrays.fill(byCode, -1);
        for (EventDescriptor e : table.events()) {
            int code = e.code();
            if (code >= 0 && code < byCode.length && byCode[code] < 0 && e.signal() != null) {
                byCode[code] = e.signal().ordinal();
            }
        }
        return byCode;
    }

    @Override
    public String cpuType() {
        return CPU_TYPE_VALUE;
    }

    @Override
    public String displayName() {
        return variant.displayName();
    }

    @Override
    public int counterCount() {
        return P6Registers.COUNTERS;
    }

    @Override
    public int counterWidth() {
        return P6Registers.COUNTER_WIDTH;
    }

    @Override
    public EventTable events() {
        return table;
    }

    @Override
    public String defaultEvent() {
        return DEFAULT_EVENT;
    }

    @Override
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs == null || specs.isEmpty()) {
            throw new EventSpecException("no event given; give at least one, e.g. the default " + DEFAULT_EVENT);
        }
        int n = specs.size();
        if (n > P6Registers.COUNTERS) {
            throw new EventSpecException(n + " events given, but the " + displayName() + " has only "
                    + P6Registers.COUNTERS + " counters (PerfCtr0, PerfCtr1); give at most " + P6Registers.COUNTERS
                    + " events");
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
        int[] counters = new int[n];
        if (!assign(events, 0, 0L, counters)) {
            throw new EventSpecException(noCounterMessage(events));
        }
        CounterConfig[] configs = new CounterConfig[n];
        for (int i = 0; i < n; i++) {
            EventSpec spec = specs.get(i);
            configs[i] = new CounterConfig(counters[i], events[i], spec.count(), unitMasks[i], spec.kernel(),
                    spec.user());
        }
        return configs;
    }

    private EventDescriptor checkedEvent(EventSpec spec) throws EventSpecException {
        String name = spec.eventName();
        EventDescriptor event = name == null ? null : table.find(name).orElse(null);
        if (event == null) {
            String hint = "";
            if (name != null) {
                EventDescriptor caseless = table.find(name.toUpperCase(Locale.ROOT)).orElse(null);
                if (caseless != null) {
                    hint = " (did you mean " + caseless.name() + "? names are upper case)";
                }
            }
            throw new EventSpecException("unknown event '" + name + "' for CPU type " + CPU_TYPE_VALUE + " ("
                    + displayName() + ")" + hint + "; allowed events: " + table.namesText());
        }
        if (spec.count() < event.minimumCount()) {
            throw new EventSpecException("count " + spec.count() + " for " + event.name()
                    + " is below its minimum of " + event.minimumCount() + "; give a count of at least "
                    + event.minimumCount());
        }
        if (spec.count() > P6Registers.MAX_COUNT) {
            throw new EventSpecException("count " + spec.count() + " for " + event.name() + " is above "
                    + P6Registers.MAX_COUNT + ": P6 counters are preloaded with -count through their low 32 bits"
                    + " and overflow is seen as bit 31 clearing; give a count of at most " + P6Registers.MAX_COUNT);
        }
        if (!spec.kernel() && !spec.user()) {
            throw new EventSpecException(event.name() + " counts in neither kernel nor user mode;"
                    + " set kernel or user to 1");
        }
        return event;
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
     * when a later event needs a counter an earlier one took (as OProfile's counter allocator does:
     * {@code CPU_CLK_UNHALTED,FLOPS} puts CPU_CLK_UNHALTED on counter 1 because FLOPS needs 0).
     */
    private static boolean assign(EventDescriptor[] events, int index, long used, int[] counters) {
        if (index == events.length) {
            return true;
        }
        for (int c = 0; c < P6Registers.COUNTERS; c++) {
            if ((used & (1L << c)) == 0 && events[index].canUseCounter(c)) {
                counters[index] = c;
                if (assign(events, index + 1, used | (1L << c), counters)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Explains a failed assignment with the first event that finds its counters taken. */
    private static String noCounterMessage(EventDescriptor[] events) {
        StringBuilder usable = new StringBuilder();
        for (EventDescriptor e : events) {
            usable.append(usable.length() == 0 ? "" : ", ").append(e.name()).append(" can use counter(s) ")
                    .append(e.countersText());
        }
        String[] takenBy = new String[P6Registers.COUNTERS];
        for (EventDescriptor e : events) {
            int free = -1;
            for (int c = 0; c < P6Registers.COUNTERS && free < 0; c++) {
                if (takenBy[c] == null && e.canUseCounter(c)) {
                    free = c;
                }
            }
            if (free >= 0) {
                takenBy[free] = e.name();
                continue;
            }
            StringBuilder taken = new StringBuilder();
            for (int c = 0; c < P6Registers.COUNTERS; c++) {
                if (e.canUseCounter(c)) {
                    taken.append(taken.length() == 0 ? "" : ", ").append("counter ").append(c).append(" is taken by ")
                            .append(takenBy[c]);
                }
            }
            return "no free counter for " + e.name() + ": it can use counter(s) " + e.countersText() + " and "
                    + taken + " (" + usable + "); choose events that can run on different counters";
        }
        return "the events do not fit the counters (" + usable + ")";
    }

    @Override
    public PhysicalPmu createPmu(int cpu, Map<String, String> options) {
        if (cpu < 0) {
            throw new IllegalArgumentException("physical CPU number " + cpu + " is negative; CPUs are numbered from 0");
        }
        P6Variant part = variant;
        boolean variantGiven = false;
        Boolean autoMask = null;
        if (options != null) {
            for (Map.Entry<String, String> option : options.entrySet()) {
                String key = option.getKey();
                String value = option.getValue() == null ? "" : option.getValue().trim();
                if (OPTION_AUTOMASK.equals(key)) {
                    autoMask = parseBoolean(value);
                } else if (OPTION_VARIANT.equals(key)) {
                    part = P6Variant.ofOption(value);
                    variantGiven = true;
                } else {
                    throw new IllegalArgumentException("unknown P6 PMU option '" + key + "'; allowed options: "
                            + ALLOWED_OPTIONS);
                }
            }
        }
        if (autoMask != null && variantGiven && autoMask != part.autoMasksLvtpc()) {
            throw new IllegalArgumentException("option " + OPTION_AUTOMASK + "=" + autoMask + " contradicts "
                    + OPTION_VARIANT + "=" + part.optionValue() + ": " + part.displayName()
                    + (part.autoMasksLvtpc() ? " always auto-masks LVTPC" : " never auto-masks LVTPC")
                    + "; drop one of the two options");
        }
        boolean mask = autoMask != null ? autoMask : part.autoMasksLvtpc();
        return new P6Pmu(cpu, family.get(part), signalByCode, mask);
    }

    private static boolean parseBoolean(String value) {
        if ("true".equalsIgnoreCase(value)) {
            return true;
        }
        if ("false".equalsIgnoreCase(value)) {
            return false;
        }
        throw new IllegalArgumentException("P6 option " + OPTION_AUTOMASK + "=" + value
                + " is not a boolean; allowed values: true, false");
    }

    @Override
    public String toString() {
        return "P6 PMU model " + CPU_TYPE_VALUE + " (" + displayName() + ")";
    }
}
