package org.hyperprof.vpmu.kit;

import java.util.Objects;
import java.util.function.BiFunction;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;

/**
 * A counter-virtualization policy known by its name, the value of its
 * {@value CounterVirtualizationPolicy#NAME} service property, and a one-line description, that
 * opens one session of its own kind per host. The name is stated once, by the component's
 * {@link CounterVirtualizationPolicy.Policy} annotation: DS registers it as the property, and this
 * base reads the same annotation, so {@link #name()} is that property also in plain Java.
 */
public abstract class NamedPolicy implements CounterVirtualizationPolicy {
    private final String name;
    private final String description;
    private final BiFunction<PolicyHost, String, PolicySession> sessions;

    /**
     * @param description one line for {@code hp:policies}
     * @param sessions    opens the policy's session on a host (never given null), given the policy's name
     *                    for its messages; it may throw
     *                    {@link IllegalArgumentException} for host options or prices it cannot work with
     * @throws IllegalStateException when the policy's class states no name with {@code @Policy}
     */
    protected NamedPolicy(String description, BiFunction<PolicyHost, String, PolicySession> sessions) {
        Policy stated = getClass().getAnnotation(Policy.class);
        if (stated == null || stated.value().isBlank()) {
            throw new IllegalStateException(getClass().getName() + " states no name: a policy's component is"
                    + " annotated @CounterVirtualizationPolicy.Policy(\"<name>\"), which DS registers as its "
                    + NAME + " property");
        }
        this.name = stated.value();
        this.description = description;
        this.sessions = Objects.requireNonNull(sessions, "sessions");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }

    /**
     * @throws NullPointerException     when {@code host} is null
     * @throws IllegalArgumentException as the policy's session refuses the host's options or prices
     * (the message says which line to add or change)
     */
    @Override
    public final PolicySession open(PolicyHost host) {
        Objects.requireNonNull(host, "host: the " + name + " policy needs the host whose counters it governs");
        return sessions.apply(host, name);
    }

    @Override
    public final String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }
}
