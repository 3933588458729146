package org.hyperprof.api.pmu;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * A CPU model's performance-monitoring unit, registered as a service by a model bundle with the
 * {@value #CPU_TYPE} property in OProfile's naming ({@code i386/p6}, {@code i386/p4},
 * {@code x86-64/hammer}, {@code i386/arch_perfmon}, {@code ppc64/970}). That property is the
 * model's identity, stated once by its component with {@link CpuType}; hosts and tools read it
 * through {@link #IDENTITY}.
 *
 * <p>The model describes its counters and events and creates one register-level
 * {@link PhysicalPmu} per physical CPU of a simulated host. The core never names a concrete
 * model: it finds one by {@code cpu.type}. A model may depart at any time; hosts using it stop
 * their sessions and say which bundle left.
 */
@ConsumerType
public interface PmuModel {
    /** Service property: OProfile's cpu_type string. */
    String CPU_TYPE = "cpu.type";

    /** A model is known by its {@value #CPU_TYPE} property. */
    PluginIdentity IDENTITY = new PluginIdentity(CPU_TYPE, "CPU model", "i386/p6");

    /**
     * The {@value #CPU_TYPE} property, as a model's component states it once:
     * {@code @Component(service = PmuModel.class) @PmuModel.CpuType("i386/p6")}. It is kept at run
     * time so that a model made in plain Java answers {@link #cpuType()} from the same statement.
     */
    @ComponentPropertyType
    @Retention(RUNTIME)
    @Target(TYPE)
    @interface CpuType {
        /** OProfile's cpu_type. */
        String value();
    }

    /**
     * OProfile's cpu_type, as {@code XENOPROF_init} returns it (at most 63 characters): the value of
     * the model's {@value #CPU_TYPE} property (its {@link CpuType}), never another name.
     */
    String cpuType();

    /** The processor name as opreport's header line prints it, e.g. {@code PIII}. */
    String displayName();

    /** Number of counters Xenoprof may configure ({@code num_events} of {@code XENOPROF_init}). */
    int counterCount();

    /** Width of a counter in bits. */
    int counterWidth();

    /** The model's event table, read from its resources. */
    EventTable events();

    /** The event OProfile uses when none is given, in {@link EventSpec} syntax. */
    String defaultEvent();

    /**
     * Checks a user's events against the table and assigns each to a counter it may use, in order.
     *
     * @return one configuration per spec, in the same order
     * @throws EventSpecException naming the problem and listing what is allowed: unknown event,
     *                            count below the minimum, a unit mask the event does not have, no
     *                            free counter the event can use, more events than counters
     */
    CounterConfig[] allocate(List<EventSpec> specs) throws EventSpecException;

    /**
     * Creates the register file of one physical CPU, in its power-on state.
     *
     * @param cpu     the physical CPU number
     * @param options model options from the host description (for example
     *                {@code lvtpc.automask=true} for a Pentium M); unknown keys are an error
     * @throws IllegalArgumentException for an unknown option or value, naming the allowed ones
     */
    PhysicalPmu createPmu(int cpu, Map<String, String> options);

    /**
     * AMD IBS capability bits (CPUID 0x8000001B EAX, bit 0 = valid) as Xenoprof's
     * {@code get_ibs_caps} returns them; 0 for a model without IBS.
     */
    default long ibsCapabilities() {
        return 0;
    }

    /**
     * Which AMD IBS sample feeds a configured event's column: Xen's pseudo-PC that begins the
     * block in the buffer ({@link #IBS_FETCH_SAMPLE}, {@link #IBS_OP_SAMPLE}), or 0 for an event
     * a counter counts. An IBS event's {@link CounterConfig#counter()} is a number no counter has,
     * which its samples carry; every sample of that kind is one event of the column, weighted by
     * its count.
     *
     * @since 2.1
     */
    default int ibsSample(CounterConfig config) {
        return 0;
    }

    /**
     * The {@code ibs_counter} settings the IBS events among {@code configs} ask for, or null when
     * none is an IBS event.
     *
     * @since 2.1
     */
    default IbsConfig ibsConfig(java.util.List<CounterConfig> configs) {
        return null;
    }

    /** OProfile's {@code IBS_FETCH_SAMPLE}: the pseudo-PC that begins an IBS fetch block. */
    int IBS_FETCH_SAMPLE = 13;
    /** OProfile's {@code IBS_OP_SAMPLE}: the pseudo-PC that begins an IBS op block. */
    int IBS_OP_SAMPLE = 14;
}
