package org.hyperprof.api.vpmu;

import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A policy at work on one host. The hypervisor calls it on the simulation thread at every vCPU
 * switch, hypervisor entry and exit, guest PMU register access and PMU interrupt. Calls must not
 * allocate.
 *
 * <h2>Guests with their own profilers</h2>
 * A guest that runs its own profiler programs its virtual PMU register by register, with the
 * register numbers and write semantics of the host's model ({@link #guestWrite}); each access traps
 * into the hypervisor (an MSR intercept for HVM, a hypercall or emulated privileged instruction for
 * PV) unless {@link #traps} says the policy lets it through to the hardware. When a counter the
 * guest programmed overflows, the physical PMU interrupt reaches {@link #pmuInterrupt}; the policy
 * injects a virtual interrupt ({@link PolicyHost#injectVirtualInterrupt}) and the guest's handler
 * then reads its counters, finds the overflow, re-arms and writes back, all through this session.
 *
 * <h2>Statistics</h2>
 * {@link #statistics()} reports what the policy did under the {@code STAT_*} names (more may follow).
 */
@ConsumerType
public interface PolicySession {
    /** vCPU switches the policy saw (idle included). */
    String STAT_SWITCHES = "switches";
    /** Physical PMU register reads and writes the policy made at vCPU switches. */
    String STAT_SWITCH_ACCESSES = "switch.accesses";
    /** Physical PMU register reads and writes the policy made at hypervisor entries and exits. */
    String STAT_ENTRY_EXIT_ACCESSES = "entry-exit.accesses";
    /** Guest register reads and writes the policy handled. */
    String STAT_GUEST_ACCESSES = "guest.accesses";
    /** Guest register writes the policy refused (no PMU offered, beyond the guest's share, Xenoprof owns the PMU). */
    String STAT_GUEST_REFUSED = "guest.refused";
    /** Virtual interrupts the policy injected. */
    String STAT_INJECTED = "interrupts.injected";
    /** Physical PMU interrupts the policy found nothing of a guest's in (left to Xenoprof, or stray). */
    String STAT_INTERRUPTS_NOT_GUEST = "interrupts.not-guest";
    /** Cross-CPU calls to save a context loaded on another physical CPU. */
    String STAT_IPIS = "ipis";
    /** Switches where reprogramming the event selects was skipped (same events as the previous vCPU). */
    String STAT_REPROGRAM_SKIPPED = "reprogram.skipped";
    /** Cycles the policy subtracted from guests' counts as its own cost. */
    String STAT_CYCLES_SUBTRACTED = "cycles.subtracted";

    /** {@code prev} leaves physical CPU {@code pcpu} and {@code next} runs there (domid -1: none/idle). */
    void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu);

    /** The hypervisor starts working on behalf of the vCPU current on {@code pcpu} (a VM exit, a hypercall). */
    void hypervisorEntry(int pcpu, int domid, int vcpu);

    /** The hypervisor returns to the guest. */
    void hypervisorExit(int pcpu, int domid, int vcpu);

    /** A guest reads one of its (virtual) PMU registers while it runs on {@code pcpu}; the value it sees. */
    long guestRead(int pcpu, int domid, int vcpu, int register);

    /**
     * A guest writes one of its (virtual) PMU registers while it runs on {@code pcpu}.
     *
     * @return true when the write reached the guest's virtual PMU; false when the policy refused
     *         it (dropped as Xen drops PMU writes with no vPMU, or beyond the guest's share of the
     *         counters); {@link #refusal} then says why
     */
    boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value);

    /** Why the policy refuses a guest's writes to {@code register}, in words a user can act on. */
    default String refusal(int domid, int vcpu, int register) {
        return "the counter-virtualization policy offers guests no PMU";
    }

    /** Whether guests see a PMU at all (CPUID leaf 0xA, MSRs that read back). */
    boolean guestsSeePmu();

    /**
     * Whether a guest's access to {@code register} enters the hypervisor (and costs a trap) or
     * goes straight to the hardware (Xen's vPMU passes the counter MSRs through while the guest's
     * counters run). Traps by default.
     */
    default boolean traps(int domid, int vcpu, int register, boolean write) {
        return true;
    }

    /**
     * Whether Xenoprof may hold counters while guests use theirs (a partitioned PMU); when false
     * and guests see a PMU, Xenoprof cannot acquire the PMU while an HVM guest owns it.
     */
    default boolean sharesPmuWithXenoprof() {
        return false;
    }

    /**
     * The PMU interrupt on {@code pcpu} (already acknowledged) while {@code domid}/{@code vcpu}
     * was current in {@code mode}: the policy injects virtual interrupts for counters of guests
     * it has loaded there.
     *
     * @return whether Xenoprof's NMI callback runs for this interrupt too (its counters may have
     *         overflowed)
     */
    default boolean pmuInterrupt(int pcpu, int domid, int vcpu, CpuMode mode) {
        return true;
    }

    /** Counter {@code counter} overflowed on {@code pcpu} while {@code domid}/{@code vcpu} was current in {@code mode}. */
    OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode);

    /** What the policy did so far, by the {@code STAT_*} names. */
    default Map<String, Long> statistics() {
        return Map.of();
    }

    /** The host is done with the policy. */
    void close();
}
