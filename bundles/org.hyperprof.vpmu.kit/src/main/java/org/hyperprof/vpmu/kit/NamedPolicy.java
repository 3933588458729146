package org.hyperprof.vpmu.kit;

import java.util.Objects;
import java.util.function.Function;

import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;

/**
 * A counter-virtualization policy known by its name, the value of its
 * {@value CounterVirtualizationPolicy#NAME} service property, and a one-line description, that
 * opens one session of its own kind per host.
 */
public abstract class NamedPolicy implements CounterVirtualizationPolicy {
    private final String name;
    private final String description;
    private final Function<PolicyHost, PolicySession> sessions;

    /**
     * @param name        the policy's name, as its service property gives it
     * @param description one line for {@code hp:policies}
     * @param sessions    opens the policy's session on a host (never given null); it may throw
     *                    {@link IllegalArgumentException} for host options or prices it cannot work with
     */
    protected NamedPolicy(String name, String description, Function<PolicyHost, PolicySession> sessions) {
        this.name = name;
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
        return sessions.apply(host);
    }

    @Override
    public final String toString() {
        return getClass().getSimpleName() + "[" + name + "]";
    }
}
