package org.hyperprof.api.vpmu;

import org.hyperprof.api.pmu.CpuMode;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A policy at work on one host. The hypervisor calls it on the simulation thread at every vCPU
 * switch, hypervisor entry and exit, guest PMU register access and counter overflow. Calls must
 * not allocate.
 */
@ProviderType
public interface PolicySession {
    /** {@code prev} leaves physical CPU {@code pcpu} and {@code next} runs there (domid -1: none/idle). */
    void vcpuSwitch(int pcpu, int prevDomid, int prevVcpu, int nextDomid, int nextVcpu);

    /** The hypervisor starts working on behalf of the vCPU current on {@code pcpu} (a VM exit, a hypercall). */
    void hypervisorEntry(int pcpu, int domid, int vcpu);

    /** The hypervisor returns to the guest. */
    void hypervisorExit(int pcpu, int domid, int vcpu);

    /** A guest reads one of its (virtual) PMU registers; the value it sees. */
    long guestRead(int pcpu, int domid, int vcpu, int register);

    /** A guest writes one of its (virtual) PMU registers. */
    void guestWrite(int pcpu, int domid, int vcpu, int register, long value);

    /** Whether guests see a PMU at all (CPUID leaf 0xA, MSRs that read back). */
    boolean guestsSeePmu();

    /** Counter {@code counter} overflowed on {@code pcpu} while {@code domid}/{@code vcpu} was current in {@code mode}. */
    OverflowRoute overflow(int pcpu, int domid, int vcpu, int counter, CpuMode mode);

    /** The host is done with the policy. */
    void close();
}
