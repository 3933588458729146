package org.hyperprof.hypervisor.sim;

import org.hyperprof.api.sample.GroundTruth;

/**
 * A vCPU: its scheduling state (credit, priority, busy burst, when it wakes) and its own random
 * stream, so its workload does not depend on how other vCPUs are interleaved with it.
 */
final class VirtualCpu {
    static final int BLOCKED = 0;
    static final int RUNNABLE = 1;
    static final int RUNNING = 2;

    /** Credit-scheduler priorities: a woken vCPU with credit left is boosted; lower is better. */
    static final int BOOST = 0;
    static final int UNDER = 1;
    static final int OVER = 2;

    /** A burst that never ends: the vCPU is always busy (load 1). */
    static final long FOREVER = Long.MAX_VALUE / 4;

    final int slot;
    final int domid;
    final int vcpu;
    final boolean idle;
    final int home;
    final Workload workload;
    final int kernelCpl;
    /** An HVM guest's vCPU: Xenoprof takes its mode from the guest's CPL. */
    final boolean hvm;
    final long burstMean;
    /** Mean blocked time, {@link #FOREVER} for a vCPU that never wakes, 0 for one that never blocks. */
    final long blockMean;
    final Prng rng;

    int state;
    int priority = UNDER;
    long credit;
    long wakeAt;
    long runnableSince;
    long burstLeft;
    long virtualInterrupts;
    /** The guest's own profiler, or null when its domain runs none. */
    GuestPmu guestPmu;
    /** Where the vCPU's guest code last ran: the PC it resumes at, its mode (0 user, 1 kernel), its function id. */
    long lastGuestPc;
    int lastGuestMode = 1;
    int lastGuestFn = -1;

    /** Paused ({@code xl pause}) or destroyed: never picked to run. */
    boolean paused;
    /** Destroyed: paused for good, never wakes. */
    boolean destroyed;

    VirtualCpu(int slot, int domid, int vcpu, boolean idle, int home, Workload workload, int kernelCpl, boolean hvm,
            long burstMean, long blockMean, Prng rng) {
        this.slot = slot;
        this.domid = domid;
        this.vcpu = vcpu;
        this.idle = idle;
        this.home = home;
        this.workload = workload;
        this.kernelCpl = kernelCpl;
        this.hvm = hvm;
        this.burstMean = burstMean;
        this.blockMean = blockMean;
        this.rng = rng;
    }

    /** The domain id a policy hears: -1 for the idle vCPU. */
    int policyDomid() {
        return idle ? -1 : domid;
    }

    int policyVcpu() {
        return idle ? -1 : vcpu;
    }

    /** Xenoprof's notion of the current domain: the idle domain for an idle vCPU. */
    int xenoprofDomid() {
        return idle ? GroundTruth.IDLE_DOMAIN : domid;
    }

    long drawBurst() {
        if (blockMean == 0) {
            return FOREVER;
        }
        return burstMean / 2 + rng.below(Math.max(1, burstMean));
    }

    long drawBlocked() {
        if (blockMean == FOREVER) {
            return FOREVER;
        }
        return Math.max(1, blockMean / 2 + rng.below(Math.max(1, blockMean)));
    }
}
