package org.hyperprof.api.host;

import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/** Loads scenarios into simulated hosts. One host is current at a time. */
@ProviderType
public interface HostService {
    /** Name of the embedded default scenario. */
    String DEFAULT_SCENARIO = "xen-summit-2006-network";

    /** Names of the embedded scenarios. */
    List<String> scenarios();

    /**
     * Loads an embedded scenario by name, or a scenario file by path, and makes it the current
     * host (the previous one stops).
     *
     * @param cpuTypeOverride a cpu.type to use instead of the scenario's, or null
     * @throws ScenarioException for a malformed file, or a CPU model or policy that is not installed (listing those that are)
     */
    Host load(String scenario, String cpuTypeOverride) throws ScenarioException;

    /**
     * Loads as {@link #load(String, String)} does, with load-time options that override the
     * scenario's: host options (e.g. {@code ppc.postponed=owner}, how a PowerPC host handles
     * perfmon interrupts postponed by MSR[EE]=0) and PMU model options (e.g.
     * {@code mmcra.hvpr=xnu}); null or empty maps change nothing.
     *
     * @throws ScenarioException for an unknown option or value, saying what is allowed
     */
    default Host load(String scenario, String cpuTypeOverride, java.util.Map<String, String> hostOptions,
            java.util.Map<String, String> pmuOptions) throws ScenarioException {
        if ((hostOptions != null && !hostOptions.isEmpty()) || (pmuOptions != null && !pmuOptions.isEmpty())) {
            throw new ScenarioException("this host service takes no load-time options; put them in the scenario");
        }
        return load(scenario, cpuTypeOverride);
    }

    Optional<Host> current();

    /**
     * A host service of its own, with the CPU models, policies and symbol resolvers installed here,
     * whose current host is its own: loading into it neither stops nor replaces this service's
     * current host, so its hosts can run beside this one's on another thread (a study's runs on the
     * second core). A model or policy that departs later stops only this service's current host.
     *
     * @return empty when this service cannot make one (the caller then runs its hosts here, one after another)
     * @since 1.2
     */
    default Optional<HostService> independent() {
        return Optional.empty();
    }
}
