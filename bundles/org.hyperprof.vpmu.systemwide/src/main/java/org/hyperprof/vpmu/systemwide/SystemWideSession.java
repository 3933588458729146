package org.hyperprof.vpmu.systemwide;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.vpmu.kit.SessionOnHost;

/**
 * The system-wide policy on one host. It never touches the counters and never charges the host:
 * the counters belong to the hypervisor and run on whoever is current, so switches, hypervisor
 * entries and exits are no events for them (hypervisor work counts on the same counters and is
 * sampled in Xen mode). No method allocates.
 */
final class SystemWideSession extends SessionOnHost {

    /** Guest PMU writes dropped; read from other threads as a statistic. */
    private volatile long refused;

    SystemWideSession(PolicyHost host, String policy) {
        super(host, policy);
    }

    @Override
    public void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu) {
        check(pcpu);
        // The counters keep running for the next vCPU: its samples are told apart by the
        // current domain at overflow time, not by saving and restoring counter state.
    }

    /**
     * With no vPMU offered, Xen answers PMU MSR reads with 0. That includes IA32_MISC_ENABLE as far
     * as the PMU is concerned: its bit 7, "performance monitoring available", reads clear.
     */
    @Override
    public long guestRead(int pcpu, int domid, int vcpu, int register) {
        check(pcpu);
        return 0;
    }

    /** With no vPMU offered, Xen drops PMU MSR writes: the hypervisor's counters stay as they are. */
    @Override
    public boolean guestWrite(int pcpu, int domid, int vcpu, int register, long value) {
        check(pcpu);
        refused++;
        return false;
    }

    @Override
    public String refusal(int domid, int vcpu, int register) {
        return "the systemwide policy (Xenoprof) keeps the counters for the hypervisor and offers guests no PMU:"
                + " Xen drops the write; load the host with a policy that virtualizes counters (vpmu.policy="
                + "saverestore, lazy, offset or partitioned) for a guest to profile itself";
    }

    @Override
    public java.util.Map<String, Long> statistics() {
        return java.util.Map.of(STAT_GUEST_REFUSED, refused);
    }

    @Override
    public boolean guestsSeePmu() {
        checkOpen();
        return false;
    }

    /**
     * Every overflow is Xenoprof's: the NMI handler logs it for the current vCPU's domain, and
     * itself drops what it must (idle, domains not profiled) and counts it.
     */
    @Override
    public OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode) {
        check(pcpu);
        return OverflowRoute.XENOPROF;
    }
}
