package org.hyperprof.api.host;

import java.util.List;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.sample.GroundTruth;
import org.hyperprof.api.xenoprof.Xenoprof;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A simulated Xen host: physical CPUs with a PMU of the selected model, domains with vCPUs, a
 * deterministic scheduler, workloads, and the Xenoprof interface on top.
 */
@ProviderType
public interface Host {
    /**
     * The longest run one call takes: one simulated hour, about ten minutes of real time for the
     * default scenario; longer runs are a typo more often than a wish, and a long profile is
     * several runs.
     */
    long MAX_RUN_MICROS = 3_600_000_000L;

    /** The scenario's name. */
    String name();

    /** One line on what the scenario models. */
    String description();

    PmuModel model();

    /** Clock speed in MHz. */
    long mhz();

    int pcpuCount();

    /** The counter-virtualization policy in force ({@code vpmu.policy}). */
    String policy();

    List<DomainInfo> domains();

    /** @throws IllegalArgumentException naming the domains that exist */
    DomainInfo domain(int domid);

    Xenoprof xenoprof();

    /** Simulated cycles elapsed on each physical CPU since the host was loaded. */
    long cycles();

    /**
     * Runs the machine for {@code micros} simulated microseconds (all physical CPUs). Samples are
     * taken only while Xenoprof is PROFILING; VIRQs reach the bound handlers on this thread. When
     * {@link ProgressListener#stopRequested()} turns true the run ends at its next step, earlier
     * than asked: {@link #cycles()} tells how far it came.
     *
     * @param micros 0 to {@link #MAX_RUN_MICROS}
     * @return samples taken during this run
     * @throws IllegalArgumentException for {@code micros} outside 0 to {@link #MAX_RUN_MICROS}
     * @throws HostStoppedException when the host stopped (its model departed), before or during the run
     */
    long run(long micros, ProgressListener progress) throws HostStoppedException;

    /**
     * Why a run of {@code micros} simulated microseconds from now can be expected to take no sample
     * at all, given the scenario's values, the domains' states and the counters Xenoprof has
     * programmed: one line each, naming the values (and the scenario lines they come from) and what
     * to change; empty when samples can be expected. Commands print these before a run: a run that
     * cannot sample is worth saying so before it is waited for.
     */
    default List<String> noSamplesExpected(long micros) {
        return List.of();
    }

    /** Ground truth since the last {@link #resetGroundTruth()} (or since load). */
    GroundTruth groundTruth();

    /** Starts a new ground-truth interval (the profiler calls this when sampling starts). */
    void resetGroundTruth();

    /** The state of a domain. @throws IllegalArgumentException naming the domains that exist */
    DomainState domainState(int domid);

    /**
     * Pauses a domain ({@code xl pause}): its vCPUs stop being scheduled until
     * {@link #unpauseDomain(int)}. Samples already in its buffers stay there.
     *
     * @throws IllegalStateException when the domain is destroyed
     */
    void pauseDomain(int domid);

    /** Lets a paused domain run again. @throws IllegalStateException when the domain is destroyed */
    void unpauseDomain(int domid);

    /**
     * Destroys a domain in the middle of whatever runs ({@code xl destroy}): it never runs again,
     * Xenoprof frees its buffers and drops it from the active and passive lists. What its daemon
     * already drained is kept; what was still in its buffers is counted as undrained.
     */
    void destroyDomain(int domid);

    /**
     * Named event counts of the machine itself, for reports: interrupts taken, postponed
     * (PowerPC MSR[EE]=0), misattributed and lost; vCPU switches; and so on. Keys are stable
     * dotted names such as {@code interrupts.postponed}. Counts only grow, so a session reports
     * end minus start; gauges are the exception and say so in their name: a name ending in
     * {@code .max} is a maximum, a name holding {@code .mode.} is a setting (1 for the one in force),
     * and both are reported as they read.
     */
    java.util.Map<String, Long> counters();

    /** Null while the host can run; otherwise why it stopped. */
    String stopReason();

    void addListener(HostListener listener);

    void removeListener(HostListener listener);

    /**
     * The sample buffers of a guest's own profiler (one per vCPU, the guest kernel's own CPU
     * buffers, in Xenoprof's ring layout: its daemon drains them as Xenoprof's), or an empty list
     * when the domain runs no profiler of its own or the policy offers it no PMU. Samples of a
     * guest's own profiler carry the PC the guest could see and its own counter numbers.
     */
    default List<org.hyperprof.api.xenoprof.SharedBuffer> guestProfilerBuffers(int domid) {
        return List.of();
    }

    /** The counters a guest's own profiler programmed into its virtual PMU; empty when none. */
    default List<org.hyperprof.api.pmu.CounterConfig> guestProfilerCounters(int domid) {
        return List.of();
    }

    /**
     * Discards what the guests' own profilers logged so far (their daemons start reading from
     * now), counting it; called when a profiling session starts.
     */
    default void restartGuestProfilerBuffers() {
    }

    /** Why guests' own profilers stopped or never started (a refused write, no PMU offered), one line each. */
    default List<String> guestProfilerNotes() {
        return List.of();
    }
}
