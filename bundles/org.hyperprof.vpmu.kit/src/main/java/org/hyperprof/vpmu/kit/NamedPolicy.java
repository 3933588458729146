package org.hyperprof.vpmu.kit;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;

/**
 * A counter-virtualization policy known by its name, the value of its
 * {@value CounterVirtualizationPolicy#NAME} service property, and a one-line description.
 */
public abstract class NamedPolicy implements CounterVirtualizationPolicy {
    private final String name;
    private final String description;

    protected NamedPolicy(String name, String description) {
        this.name = name;
        this.description = description;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }

    @Override
    public final String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }
}
