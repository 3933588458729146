package org.hyperprof.study;

/**
 * Every name the study reads from the platform, in one place: host counter keys
 * ({@code Host.counters()}, {@code SessionSummary.hostCounters()}) and session sources. A key the
 * host does not report yet is shown as {@code n/a}, never as zero.
 */
final class StudyKeys {
    /** Cycles the physical CPUs spent halted; not in the ground truth, excluded from "all cycles". */
    static final String HALTED_CYCLES = "halted.cycles";
    /**
     * Every cycle the counter-virtualization policy caused: what it charged, the guests' PMU-access
     * traps and the virtual-interrupt handling.
     */
    static final String POLICY_CYCLES = "vpmu.cycles";
    /** Cycles the policy charged from its hooks ({@code chargeHypervisor}): part of {@link #POLICY_CYCLES}. */
    static final String POLICY_CHARGED_CYCLES = "vpmu.cycles.charged";
    /** Cycles of trapped guest PMU accesses: part of {@link #POLICY_CYCLES}. */
    static final String GUEST_TRAP_CYCLES = "guest.trap.cycles";
    /** The policy's statistics are exported with this prefix ({@code vpmu.} + {@code PolicySession.STAT_*}). */
    static final String POLICY_PREFIX = "vpmu.";
    /** vCPU switches the policy saw ({@code PolicySession.STAT_SWITCHES}). */
    static final String POLICY_SWITCHES = POLICY_PREFIX + "switches";
    /** Physical PMU accesses the policy made at switches ({@code PolicySession.STAT_SWITCH_ACCESSES}). */
    static final String POLICY_SWITCH_ACCESSES = POLICY_PREFIX + "switch.accesses";
    /**
     * The scenario's seed, as a host gauge. The API has no {@code Host.seed()}; until the host
     * reports this key the title and the CSV say {@code n/a}.
     */
    static final String SEED = "scenario.seed";

    /** {@code SessionInfo.source()} of the Xenoprof (system-wide) session. */
    static final String SOURCE_XENOPROF = "simulator";
    /** {@code SessionInfo.source()} of the session holding every guest's own profiler's samples. */
    static final String SOURCE_GUEST_PROFILER = "guest profiler";

    /** The host option that overrides the scenario's policy. */
    static final String HOST_OPTION_POLICY = "vpmu.policy";
    /** The policy option: keep counting while the hypervisor works for the guest, or freeze at every exit. */
    static final String HOST_OPTION_FREEZE = "vpmu.freeze";
    /** The host option added to the scenario's seed (the hypervisor's HostOptions.SEED_OFFSET). */
    static final String HOST_OPTION_SEED_OFFSET = "seed.offset";

    /** The study's sample consumer's {@code consumer.name}. */
    static final String CONSUMER_NAME = "study";

    /** The symbol name a sample or truth row without symbol gets, as reports print it. */
    static final String NO_SYMBOLS = "(no symbols)";

    private StudyKeys() {
    }
}
