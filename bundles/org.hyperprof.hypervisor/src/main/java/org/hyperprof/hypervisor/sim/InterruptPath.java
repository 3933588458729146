package org.hyperprof.hypervisor.sim;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.hypervisor.sim.scenario.PostponedHandling;
import org.hyperprof.hypervisor.xenoprof.OverflowRouter;
import org.hyperprof.hypervisor.xenoprof.XenoprofCore;

/**
 * The PMU interrupt's way into Xenoprof, and its books: when the alert latches the engine notes who
 * ran (the ground truth a sample is judged against); the interrupt (an NMI on x86, the perfmon
 * exception on PowerPC) goes to the policy first, then to Xenoprof's NMI callback at the PC of the
 * slice on top, under the NMI handler's hypervisor work; a postponed PowerPC interrupt is dropped,
 * given to the vCPU that ran at the alert, or caught by a poll at a poll point, as the host option
 * {@code ppc.postponed} says ({@link PostponedHandling}). A sample logged for another domain or mode
 * than ran at the alert is counted as misattributed. No allocation.
 */
final class InterruptPath {
    /**
     * What {@code PhysicalPmu.sampledAddress()} answers when the PMU latched no address. Addresses
     * are unsigned 64-bit values: a 64-bit PowerPC kernel runs at 0xc000..., negative as a Java
     * long, so only this exact value means "none", never the sign.
     */
    private static final long NO_SAMPLED_ADDRESS = -1;

    private final SliceMaker slices;
    private final CostTable nmiHandler;
    private final PostponedHandling handling;
    private XenoprofCore xenoprof;
    private PolicySession session;
    private OverflowRouter router;

    long interrupts;
    long samples;
    /** Alerts latched in EE=0 code on a gated PMU, once handled (taken, polled) or withdrawn. */
    long postponed;
    /** Postponed interrupts whose samples the handler dropped (ignore, and poll when no poll caught them). */
    long postponedDropped;
    /** Postponed interrupts given to the vCPU that ran at the alert (owner). */
    long postponedReattributed;
    /** Postponed alerts software cleared before they were taken or polled (no handler saw them). */
    long postponedWithdrawn;
    /** Handlers run at poll points (poll). */
    long polled;
    /** Overflows the dropping handlers re-armed without logging. */
    long samplesDropped;
    /** Interrupts (or polls) that logged a sample for another domain or mode than ran at the alert. */
    long misattributed;
    /** Cycles from alert to handler, summed and at most, over postponed interrupts taken or polled. */
    long postponedDelay, postponedDelayMax;
    /** PMU interrupts the policy took for guests without Xenoprof's callback. */
    long policyInterrupts;

    InterruptPath(SliceMaker slices, CostTable nmiHandler, PostponedHandling handling) {
        this.slices = slices;
        this.nmiHandler = nmiHandler;
        this.handling = handling;
    }

    /** Connects Xenoprof and the policy; done once, before the first run. */
    void attach(XenoprofCore xenoprof, PolicySession session, OverflowRouter router) {
        this.xenoprof = xenoprof;
        this.session = session;
        this.router = router;
    }

    /** The PMU's alert turned on while {@code s} ran on {@code v}: note who ran, for the handler's books. */
    void latch(PhysicalCpu p, Slice s, VirtualCpu v) {
        p.latched = true;
        p.latchAt = p.now;
        p.latchVcpu = v;
        p.latchMode = xenoprofMode(s, v);
        p.latchPostponed = p.gated && !s.ee;
    }

    /** Software cleared an alert before any handler ran for it (a stop or start of the counters). */
    void alertWithdrawn(PhysicalCpu p) {
        if (p.latchPostponed) {
            postponed++;
            postponedWithdrawn++;
        }
        p.latched = false;
    }

    /** A postponed alert reaches a handler (taken or polled): count it and its delay. */
    private void postponedHandled(PhysicalCpu p) {
        postponed++;
        long delay = p.now - p.latchAt;
        postponedDelay += delay;
        postponedDelayMax = Math.max(postponedDelayMax, delay);
    }

    /** Xenoprof's mode of code in slice {@code s} of {@code v}. */
    private static int xenoprofMode(Slice s, VirtualCpu v) {
        int mode = s.mode;
        if (v.hvm && mode != XenoprofCore.MODE_XEN) {
            // xenoprofile_get_mode for an HVM vCPU: kernel unless the guest was at CPL 3 (protected mode).
            mode = s.cpl != 3 ? XenoprofCore.MODE_KERNEL : XenoprofCore.MODE_USER;
        }
        return mode;
    }

    /**
     * The mode the PMU's latched privilege gives ({@code sampledCpl()}: 0 hypervisor, 3 problem
     * state, else supervisor), or {@code otherwise} when the PMU latched none.
     */
    private static int latchedMode(int cpl, int otherwise) {
        if (cpl < 0) {
            return otherwise;
        }
        return cpl == 0 ? XenoprofCore.MODE_XEN : cpl == 3 ? XenoprofCore.MODE_USER : XenoprofCore.MODE_KERNEL;
    }

    /** The PMU interrupt (an NMI on x86, the perfmon exception on PowerPC) is taken at the PC of the slice on top. */
    void take(PhysicalCpu p) {
        Slice at = p.top();
        VirtualCpu v = p.current;
        boolean wasPostponed = p.latched && p.latchPostponed;
        p.pmu.acknowledgeInterrupt();
        p.interruptJustTaken = true;
        interrupts++;
        if (!v.idle && !p.inHypervisor) {
            p.inHypervisor = true;
            session.hypervisorEntry(p.index, v.domid, v.vcpu);
        }
        VirtualCpu owner = v;
        int mode = xenoprofMode(at, v);
        long pc = at.pc;
        boolean xenoprofToo = session.pmuInterrupt(p.index, v.policyDomid(), v.policyVcpu(), CpuMode.ofCode(mode));
        int depth = at.depth;
        long[] stack = at.callers();
        if (nmiHandler.cycles > 0) {
            // Pushed before the handler body runs so that work charged from inside it is under NMI block
            // too (on a gated PMU: runs with EE=0, as exception entry leaves it).
            Slice h = slices.pushHypervisor(p, Slice.NMI, nmiHandler.pick(p.rng), nmiHandler.cycles, v);
            h.ee = false;
            h.poll = false;
            if (!p.gated) {
                p.nmiHandlerAt = p.depth - 1;
                p.blockedNoted = false;
            }
        }
        if (!xenoprofToo) {
            // The policy took the interrupt for a guest's counters (vpmu_do_interrupt): no Xenoprof sample.
            policyInterrupts++;
            p.latched = false;
            if (nmiHandler.cycles == 0) {
                p.pmu.returnFromInterrupt();
            }
            return;
        }
        if (wasPostponed) {
            postponedHandled(p);
            if (handling == PostponedHandling.OWNER) {
                // Xen-PPC's "pass it to the domain it belongs to": the vCPU that ran at the alert, the mode
                // MMCRA's sampled bits give, the address SIAR holds; the interrupted stack is not the
                // sampled code's, so no call trace.
                postponedReattributed++;
                owner = p.latchVcpu;
                mode = latchedMode(p.pmu.sampledCpl(), mode);
                long siar = p.pmu.sampledAddress();
                if (siar != NO_SAMPLED_ADDRESS) {
                    pc = siar;
                }
                depth = 0;
            } else {
                // ignore (and poll, for what no poll caught): re-arm and re-enable the alert, drop the sample.
                postponedDropped++;
                samplesDropped += xenoprof.discardNmi(p.index);
                p.latched = false;
                if (nmiHandler.cycles == 0) {
                    p.pmu.returnFromInterrupt();
                }
                return;
            }
        }
        int taken = xenoprof.nmi(p.index, owner.xenoprofDomid(), owner.vcpu, mode, pc, stack, depth, router);
        samples += taken;
        judge(p, owner, mode, taken);
        if (nmiHandler.cycles == 0) {
            p.pmu.returnFromInterrupt();
        }
        xenoprof.nmiContinuation(p.index);
    }

    /**
     * The end of a poll-point function's slice at {@code pollPc}: under {@code ppc.postponed=poll}
     * the hypervisor polls a gated PMU's alert there while the callback is installed.
     */
    void pollPointReached(PhysicalCpu p, long pollPc) {
        if (p.gated && handling == PostponedHandling.POLL && p.pmu.alertPending() && xenoprof.nmiCallbackInstalled()) {
            poll(p, pollPc);
        }
    }

    /**
     * The hypervisor polls the PMU's alert at the end of a poll-point function and finds it set: it
     * runs the handler there, without an interrupt (no acknowledge, no return from interrupt), for
     * the vCPU current at the poll point, in the mode the PMU's latched privilege gives (Xen's own
     * when none), at the latched address (else the poll point's).
     */
    private void poll(PhysicalCpu p, long pollPc) {
        VirtualCpu v = p.current;
        polled++;
        if (p.latched && p.latchPostponed) {
            postponedHandled(p);
        }
        int mode = latchedMode(p.pmu.sampledCpl(), XenoprofCore.MODE_XEN);
        long siar = p.pmu.sampledAddress();
        long pc = siar != NO_SAMPLED_ADDRESS ? siar : pollPc;
        if (nmiHandler.cycles > 0) {
            Slice h = slices.pushHypervisor(p, Slice.POLL, nmiHandler.pick(p.rng), nmiHandler.cycles, v);
            h.ee = false;
            h.poll = false;
        }
        int taken = xenoprof.nmi(p.index, v.xenoprofDomid(), v.vcpu, mode, pc, null, 0, router);
        samples += taken;
        judge(p, v, mode, taken);
        xenoprof.nmiContinuation(p.index);
    }

    /** Counts a logged sample that went to another domain or mode than ran when the alert latched. */
    private void judge(PhysicalCpu p, VirtualCpu owner, int mode, int taken) {
        if (taken > 0 && p.latched
                && (owner.xenoprofDomid() != p.latchVcpu.xenoprofDomid() || mode != p.latchMode)) {
            misattributed++;
        }
        p.latched = false;
    }
}
