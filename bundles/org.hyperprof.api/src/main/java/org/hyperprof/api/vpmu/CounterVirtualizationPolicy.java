package org.hyperprof.api.vpmu;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Decides what the physical counters mean across vCPU switches, hypervisor entries and exits,
 * guest PMU accesses and overflows. Registered with the {@value #NAME} property
 * ({@code systemwide}, {@code saverestore}, {@code lazy}, {@code offset}, ...).
 */
@ConsumerType
public interface CounterVirtualizationPolicy {
    String NAME = "vpmu.policy";

    /** The policy's name, equal to its {@value #NAME} property. */
    String name();

    /** One line on what it does. */
    String description();

    /** Starts the policy on a host. */
    PolicySession open(PolicyHost host);
}
