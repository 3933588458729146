package org.hyperprof.hypervisor.sim;

import org.hyperprof.hypervisor.sim.scenario.ScenarioLimits;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * What a user may tune in the host service, through Configuration Admin (PID
 * {@value ScenarioLimits#PID}): how much of a scenario and of its System.map files a load reads.
 * A change applies from the next load; the current host runs on.
 */
@ObjectClassDefinition(name = "Hyperprof simulated host",
        description = "How much a scenario load reads of the scenario file and of each System.map it names.")
public @interface HostConfiguration {

    @AttributeDefinition(name = "Scenario ceiling (MiB)", min = "1",
            description = "The most a scenario file may hold. A larger file is refused before it is read:"
                    + " a wrong file given as a scenario ends in a clear error instead of filling the memory.")
    long scenario_max_mb() default ScenarioLimits.DEFAULT_SCENARIO_MB;

    @AttributeDefinition(name = "System.map ceiling (MiB)", min = "1",
            description = "The most a System.map, nm or /proc/kallsyms file a scenario names may hold (files"
                    + " of other formats are read by their resolvers, within their own ceilings).")
    long symbols_max_mb() default ScenarioLimits.DEFAULT_SYMBOL_FILE_MB;
}
