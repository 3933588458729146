package org.hyperprof.pmu.amd;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.EventSpec;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.pmu.IbsConfig;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.pmu.kit.AbstractPmuModel;
import org.hyperprof.pmu.kit.CounterAllocator;
import org.hyperprof.pmu.kit.ModelResources;

/**
 * What the AMD models share: the event table read from the family's resources, event checking
 * and counter allocation (a {@link CounterAllocator} over the family's counters), and one
 * {@link AmdPmu} register file per physical CPU. Each cpu.type is its own DS component subclass, which
 * states its cpu_type and nothing else: this base finds the family's row ({@link AmdFamily}) by it.
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
abstract class AmdPmuModel extends AbstractPmuModel {
    static final String OPTION_AUTOMASK = "lvtpc.automask";
    static final String OPTION_IBS_CAPS = "ibs.caps";
    private static final String DEFAULT_EVENT = "CPU_CLK_UNHALTED:100000:0:1:1";

    private final AmdFamily family;
    /** Event code (0-0xFFF) to Signal ordinal (-1: no event with that code); the first table entry of a code wins. */
    private final int[] signalByCode;
    /** Checks events against the table and places them on the family's counters. */
    private final CounterAllocator allocator;

    /** The model of the family row of the cpu_type its component states. */
    AmdPmuModel() {
        super(AmdPmuModel::definition);
        this.family = details(AmdFamily.class);
        this.signalByCode = signalsByCode(events(), family.maxEventCode());
        this.allocator = new CounterAllocator(events(), cpuType(), family.displayName(), DEFAULT_EVENT,
                family.counters(), AmdRegisters.MAX_COUNT, "the AMD driver detects overflow as bit 31 clearing in a"
                        + " counter preloaded with -count");
    }

    /** The model of {@code cpuType}: its family row and its event table, read from the family's resources. */
    private static Definition<AmdFamily> definition(String cpuType) {
        AmdFamily family = member(AmdFamily.BY_CPU_TYPE, cpuType);
        return new Definition<>(family, family.displayName(), family.counters(), AmdRegisters.COUNTER_WIDTH,
                loadTable(cpuType, family), DEFAULT_EVENT);
    }

    private static EventTable loadTable(String cpuType, AmdFamily family) {
        String folder = family.resourceFolder() + "/";
        return ModelResources.eventTable(AmdPmuModel.class, cpuType, folder + "events", folder + "unit_masks");
    }

    private static int[] signalsByCode(EventTable table, int maxCode) {
        int[] byCode = new int[maxCode + 1];
        Arrays.fill(byCode, -1);
        for (EventDescriptor e : table.events()) {
            if (IbsEvents.isIbs(e)) {
                // Sampled by IBS, never written into an event select.
                continue;
            }
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

    /** The IBS capability bits a family 10h part without later IBS features reports; 0 without IBS. */
    @Override
    public final long ibsCapabilities() {
        return family.ibs() ? AmdRegisters.IBS_CAPS_FAMILY10_DEFAULT : 0;
    }

    /**
     * The IBS events ({@code IBS_FETCH_*}, {@code IBS_OP_*}) are checked by opcontrol's IBS rules and
     * get IBS columns ({@link IbsEvents}); the others are placed on the counters.
     */
    @Override
    public final CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        if (specs == null || !family.ibs()) {
            return allocator.allocate(specs);
        }
        EventDescriptor[] ibs = new EventDescriptor[specs.size()];
        List<EventSpec> counted = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            EventSpec s = specs.get(i);
            EventDescriptor e = s == null || s.eventName() == null ? null : events().find(s.eventName()).orElse(null);
            if (e != null && IbsEvents.isIbs(e)) {
                ibs[i] = e;
            } else {
                counted.add(s);
            }
        }
        if (counted.size() == specs.size()) {
            return allocator.allocate(specs);
        }
        CounterConfig[] out = IbsEvents.check(cpuType(), specs, ibs);
        CounterConfig[] onCounters = counted.isEmpty() ? new CounterConfig[0] : allocator.allocate(counted);
        for (int i = 0, k = 0; i < out.length; i++) {
            if (out[i] == null) {
                out[i] = onCounters[k++];
            }
        }
        return out;
    }

    @Override
    public final int ibsSample(CounterConfig config) {
        return family.ibs() ? IbsEvents.sample(config) : 0;
    }

    @Override
    public final IbsConfig ibsConfig(List<CounterConfig> configs) {
        return family.ibs() && configs != null ? IbsEvents.config(configs) : null;
    }

    @Override
    protected final PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        long caps = ibsCapabilities();
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
