package org.hyperprof.pmu.amd;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

/**
 * What the AMD models share: the event table read from the family's resources, event checking
 * and counter allocation, and one {@link AmdPmu} register file per physical CPU. Each cpu.type is
 * its own small DS component subclass.
 *
 * <p>Options of {@link #createPmu}:
 * <ul>
 * <li>{@code lvtpc.automask} = {@code false}: accepted for hosts that pass it to every x86 model;
 * {@code true} is refused, because an AMD APIC never masks LVTPC when it delivers a PMI;</li>
 * <li>{@code ibs.caps} (family 10h only) = the CPU's CPUID 0x8000001B EAX, decimal or 0x hex, for
 * a later family 10h revision: bits 0-2 (valid, fetch and op sampling) must be set; bit 3
 * (RdWrOpCnt) and bit 4 (OpCnt) may be; the default is the model's {@link #ibsCapabilities()}.</li>
 * </ul>
 */
abstract class AmdPmuModel implements PmuModel {
    static final String OPTION_AUTOMASK = "lvtpc.automask";
    static final String OPTION_IBS_CAPS = "ibs.caps";
    private static final String DEFAULT_EVENT = "CPU_CLK_UNHALTED:100000:0:1:1";

    private final AmdFamily family;
    private final EventTable table;
    /** Event code (0-0xFFF) to Signal ordinal (-1: no event with that code); the first table entry of a code wins. */
    private final int[] signalByCode;

    AmdPmuModel(AmdFamily family) {
        this.family = family;
        this.table = loadTable(family);
        this.signalByCode = signalsByCode(table, family.maxEventCode());
    }

    private static EventTable loadTable(AmdFamily family) {
        try (Reader events = resource(family, "events"); Reader unitMasks = resource(family, "unit_masks")) {
            return EventTable.parse(family.cpuType(), events, unitMasks);
        } catch (IOException e) {
            throw new IllegalStateException("the " + family.cpuType() + " event table shipped in bundle"
                    + " org.hyperprof.pmu.amd is unreadable: " + e.getMessage(), e);
        }
    }

    private static Reader resource(AmdFamily family, String name) {
        String path = family.resourceFolder() + "/" + name;
        InputStream in = AmdPmuModel.class.getResourceAsStream(path);
        if (in == null) {
            throw new IllegalStateException("resource org/hyperprof/pmu/amd/" + path
                    + " is missing from bundle org.hyperprof.pmu.amd; rebuild the bundle");
        }
        return new InputStreamReader(in, StandardCharsets.UTF_8);
    }

    private static int[] signalsByCode(EventTable table, int maxCode) {
        int[] byCode = new int[maxCode + 1];
        Arrays.fill(byCode, -1);
        for (EventDescriptor e : table.events()) {
            int code = e.code();
            if (code < 0 || code > maxCode) {
                throw new IllegalStateException(String.format("event %s has code 0x%X, beyond the 0x%X the event"
                        + " select holds; fix the events resource", e.name(), code, maxCode));
            }
            if (byCode[code] < 0 && e.signal() != null) {
                byCode[code] = e.signal().ordinal();
            }
        }
        return byCode;
    }

    /** The family this model describes. */
    final AmdFamily family() {
        return family;
    }

    @Override
    public final String cpuType() {
        return family.cpuType();
    }

    @Override
    public final String displayName() {
        return family.displayName();
    }

    @Override
    public final int counterCount() {
        return family.counters();
    }

    @Override
    public final int counterWidth() {
        return AmdRegisters.COUNTER_WIDTH;
    }

    @Override
    public final EventTable events() {
        return table;
    }

    @Override
    public final String defaultEvent() {
        return DEFAULT_EVENT;
    }

    /** The IBS capability bits a family 10h part without later IBS features reports; 0 without IBS. */
    @Override
    public final long ibsCapabilities() {
        return family.ibs() ? AmdRegisters.IBS_CAPS_FAMILY10_DEFAULT : 0;
    }

    @Override
    public final CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs == null || specs.isEmpty()) {
            throw new EventSpecException("no event given; give at least one, e.g. the default " + DEFAULT_EVENT);
        }
        int n = specs.size();
        int counters = family.counters();
        if (n > counters) {
            throw new EventSpecException(n + " events given, but the " + displayName() + " (" + cpuType()
                    + ") has only " + counters + " counters; give at most " + counters + " events");
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
        if (!assign(events, 0, 0L, assigned, counters)) {
            throw new EventSpecException(noCounterMessage(events, counters));
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
        EventDescriptor event = name == null ? null : table.find(name).orElse(null);
        if (event == null) {
            String hint = "";
            if (name != null) {
                EventDescriptor caseless = table.find(name.toUpperCase(Locale.ROOT)).orElse(null);
                if (caseless != null) {
                    hint = " (did you mean " + caseless.name() + "? names are upper case)";
                }
            }
            throw new EventSpecException("unknown event '" + name + "' for CPU type " + cpuType() + " ("
                    + displayName() + ")" + hint + "; allowed events: " + table.namesText());
        }
        if (spec.count() < event.minimumCount()) {
            throw new EventSpecException("count " + spec.count() + " for " + event.name()
                    + " is below its minimum of " + event.minimumCount() + " on " + cpuType()
                    + "; give a count of at least " + event.minimumCount());
        }
        if (spec.count() > AmdRegisters.MAX_COUNT) {
            throw new EventSpecException("count " + spec.count() + " for " + event.name() + " is above "
                    + AmdRegisters.MAX_COUNT + ": the AMD driver detects overflow as bit 31 clearing in a counter"
                    + " preloaded with -count; give a count of at most " + AmdRegisters.MAX_COUNT);
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
     * when a later event needs a counter an earlier one took (family 15h: DISPATCHED_FPU_OPS needs
     * counter 3, so an earlier RETIRED_INSTRUCTIONS moves off it).
     */
    private static boolean assign(EventDescriptor[] events, int index, long used, int[] assigned, int counters) {
        if (index == events.length) {
            return true;
        }
        for (int c = 0; c < counters; c++) {
            if ((used & (1L << c)) == 0 && events[index].canUseCounter(c)) {
                assigned[index] = c;
                if (assign(events, index + 1, used | (1L << c), assigned, counters)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Explains a failed assignment with the first event that finds its counters taken. */
    private static String noCounterMessage(EventDescriptor[] events, int counters) {
        StringBuilder usable = new StringBuilder();
        for (EventDescriptor e : events) {
            usable.append(usable.length() == 0 ? "" : ", ").append(e.name()).append(" can use counter(s) ")
                    .append(e.countersText());
        }
        String[] takenBy = new String[counters];
        for (EventDescriptor e : events) {
            int free = -1;
            for (int c = 0; c < counters && free < 0; c++) {
                if (takenBy[c] == null && e.canUseCounter(c)) {
                    free = c;
                }
            }
            if (free >= 0) {
                takenBy[free] = e.name();
                continue;
            }
            StringBuilder taken = new StringBuilder();
            for (int c = 0; c < counters; c++) {
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
    public final PhysicalPmu createPmu(int cpu, Map<String, String> options) {
        if (cpu < 0) {
            throw new IllegalArgumentException("physical CPU number " + cpu + " is negative; CPUs are numbered from 0");
        }
        long caps = ibsCapabilities();
        if (options != null) {
            for (Map.Entry<String, String> option : options.entrySet()) {
                String key = option.getKey();
                String value = option.getValue() == null ? "" : option.getValue().trim();
                if (OPTION_AUTOMASK.equals(key)) {
                    checkNoAutomask(value);
                } else if (OPTION_IBS_CAPS.equals(key) && family.ibs()) {
                    caps = parseIbsCaps(value);
                } else {
                    throw new IllegalArgumentException("unknown " + cpuType() + " PMU option '" + key
                            + "'; allowed options: " + allowedOptions());
                }
            }
        }
        return new AmdPmu(cpu, this, family, signalByCode, caps);
    }

    private String allowedOptions() {
        return OPTION_AUTOMASK + " (false only)"
                + (family.ibs() ? ", " + OPTION_IBS_CAPS + " (CPUID 0x8000001B EAX with bits 0-2 set, bits 3-4 optional)"
                        : "");
    }

    private void checkNoAutomask(String value) {
        if ("false".equalsIgnoreCase(value)) {
            return;
        }
        if ("true".equalsIgnoreCase(value)) {
            throw new IllegalArgumentException("option " + OPTION_AUTOMASK + "=true does not apply to " + cpuType()
                    + ": an AMD local APIC never masks LVTPC when it delivers a PMI; drop the option or set it to false");
        }
        throw new IllegalArgumentException(cpuType() + " option " + OPTION_AUTOMASK + "=" + value
                + " is not a boolean; the only allowed value is false");
    }

    private long parseIbsCaps(String value) {
        long caps;
        try {
            caps = value.startsWith("0x") || value.startsWith("0X") ? Long.parseLong(value.substring(2), 16)
                    : Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(cpuType() + " option " + OPTION_IBS_CAPS + "=" + value
                    + " is not a number; give CPUID 0x8000001B EAX in decimal or 0x hex, e.g. 0x1f");
        }
        long required = AmdRegisters.IBS_CAPS_FAMILY10_DEFAULT;
        if ((caps & required) != required || (caps & ~AmdRegisters.IBS_CAPS_KNOWN) != 0) {
            throw new IllegalArgumentException(String.format("%s option %s=0x%x is not a family 10h IBS capability"
                    + " word: bits 0 (valid), 1 (fetch sampling) and 2 (op sampling) must be set, and only bits 3"
                    + " (RdWrOpCnt) and 4 (OpCnt) may be added (0x07..0x1f)", cpuType(), OPTION_IBS_CAPS, caps));
        }
        return caps;
    }

    @Override
    public String toString() {
        return "AMD PMU model " + cpuType() + " (" + displayName() + ")";
    }
}
