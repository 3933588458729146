package org.hyperprof.hypervisor.sim.scenario;

import java.util.List;

/**
 * Hypervisor work the engine inserts by itself (a context switch, the NMI handler, the idle loop):
 * how many cycles, and in which functions of the hypervisor image, by weight.
 *
 * @param cycles    length of the inserted work; 0 = none
 * @param functions where the time goes, by weight
 */
public record HypervisorCost(long cycles, List<WeightedSymbol> functions) {

    public static final HypervisorCost NONE = new HypervisorCost(0, List.of());

    public HypervisorCost {
        functions = List.copyOf(functions);
    }
}
