package org.hyperprof.pmu.p6;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
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
@Component(service = PmuModel.class)
@PmuModel.CpuType(P6PmuModel.CPU_TYPE_VALUE)
public final class P6PmuModel extends AbstractPmuModel {
    /** The service's cpu.type. */
    static final String CPU_TYPE_VALUE = "i386/p6";
    static final String OPTION_AUTOMASK = "lvtpc.automask";
    static final String OPTION_VARIANT = "variant";
    private static final String DEFAULT_EVENT = "CPU_CLK_UNHALTED:100000:0:1:1";
    private static final String ALLOWED_OPTIONS = OPTION_AUTOMASK + " (true or false), " + OPTION_VARIANT + " ("
            + P6Variant.allowedText() + ")";

    private final P6Variant variant;
    /** Event code to Signal ordinal (-1: no event with that code); the first table entry of a code wins. */
    private final int[] signalByCode;
    /** This model and its siblings for the other P6 parts, sharing one table. */
    private final Map<P6Variant, P6PmuModel> family;
    /** Checks events against the table and places them on PerfCtr0/1, in this part's name. */
    private final CounterAllocator allocator;

    /** The generic P6 model ({@code PIII}), with the event table read from the bundle's resources. */
    public P6PmuModel() {
        this(P6Variant.PIII, loadTable());
    }

    private P6PmuModel(P6Variant variant, EventTable table) {
        super(CPU_TYPE_VALUE, variant.displayName(), P6Registers.COUNTERS, P6Registers.COUNTER_WIDTH, table,
                DEFAULT_EVENT);
        this.variant = variant;
        this.signalByCode = signalsByCode(table);
        this.allocator = allocator(table, variant);
        Map<P6Variant, P6PmuModel> members = new HashMap<>();
        this.family = Collections.unmodifiableMap(members);
        for (P6Variant v : P6Variant.ALL) {
            members.put(v, v.equals(variant) ? this : new P6PmuModel(v, this));
        }
    }

    private P6PmuModel(P6Variant variant, P6PmuModel generic) {
        super(CPU_TYPE_VALUE, variant.displayName(), P6Registers.COUNTERS, P6Registers.COUNTER_WIDTH, generic.events(),
                DEFAULT_EVENT);
        this.variant = variant;
        this.signalByCode = generic.signalByCode;
        this.family = generic.family;
        this.allocator = allocator(events(), variant);
    }

    private static CounterAllocator allocator(EventTable table, P6Variant part) {
        return new CounterAllocator(table, CPU_TYPE_VALUE, part.displayName(), DEFAULT_EVENT, P6Registers.COUNTERS,
                P6Registers.MAX_COUNT, "P6 counters are preloaded with -count through their low 32 bits and overflow"
                        + " is seen as bit 31 clearing")
                .withCounterNoun("counters (PerfCtr0, PerfCtr1)");
    }

    private static EventTable loadTable() {
        return ModelResources.eventTable(P6PmuModel.class, CPU_TYPE_VALUE, "events", "unit_masks");
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
    public CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException {
        return allocator.allocate(specs);
    }

    @Override
    protected PhysicalPmu newPmu(int cpu, Map<String, String> options) {
        P6Variant part = variant;
        boolean variantGiven = false;
        Boolean autoMask = null;
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
