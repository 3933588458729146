package org.hyperprof.hypervisor.sim;

import org.hyperprof.hypervisor.sim.scenario.HypervisorCost;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;

/**
 * The weighted functions of an inserted kind of hypervisor work (a context switch, the NMI handler,
 * the idle loop), compiled.
 */
final class CostTable {
    final long cycles;
    final int[] functionIds;
    final WeightedChoice choice;

    CostTable(HypervisorCost cost, SymbolCatalog catalog) {
        cycles = cost.cycles();
        functionIds = new int[cost.functions().size()];
        long[] weights = new long[functionIds.length];
        for (int i = 0; i < functionIds.length; i++) {
            WeightedSymbol ws = cost.functions().get(i);
            functionIds[i] = catalog.id(ws.symbol());
            weights[i] = ws.weight();
        }
        choice = functionIds.length == 0 ? null : new WeightedChoice(weights);
    }

    int pick(Prng rng) {
        return functionIds[choice.pick(rng)];
    }
}
