package org.hyperprof.api.vpmu;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * Decides what the physical counters mean across vCPU switches, hypervisor entries and exits,
 * guest PMU accesses and overflows. Registered with the {@value #NAME} property
 * ({@code systemwide}, {@code saverestore}, {@code lazy}, {@code offset}, ...). That property is
 * the policy's identity, stated once by its component with {@link Policy}; hosts and tools read it
 * through {@link #IDENTITY}.
 */
@ConsumerType
public interface CounterVirtualizationPolicy {
    /** Service property: the policy's name. */
    String NAME = "vpmu.policy";

    /** A policy is known by its {@value #NAME} property. */
    PluginIdentity IDENTITY = new PluginIdentity(NAME, "counter-virtualization policy", "systemwide");

    /**
     * The {@value #NAME} property, as a policy's component states it once:
     * {@code @Component(service = CounterVirtualizationPolicy.class) @CounterVirtualizationPolicy.Policy("lazy")}.
     * It is kept at run time so that a policy made in plain Java answers {@link #name()} from the
     * same statement.
     */
    @ComponentPropertyType
    @Retention(RUNTIME)
    @Target(TYPE)
    @interface Policy {
        /** The property is {@code vpmu.policy}. */
        String PREFIX_ = "vpmu.";

        /** The policy's name. */
        String value();
    }

    /** The policy's name: the value of its {@value #NAME} property (its {@link Policy}), never another. */
    String name();

    /** One line on what it does. */
    String description();

    /** Starts the policy on a host. */
    PolicySession open(PolicyHost host);
}
