package org.hyperprof.hypervisor.sim;

import java.util.List;

import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.hypervisor.sim.scenario.RegionSpec;
import org.hyperprof.hypervisor.sim.scenario.WeightedSymbol;

/**
 * A domain's workload compiled into primitive tables: a weighted choice of region, then of an entry
 * (a function with its rates and caller chain) within the region.
 */
final class Workload {
    final WeightedChoice regions;
    final WeightedChoice[] entriesOfRegion;
    final int[] firstEntry;
    final int[] symbol;
    final int[] mode;
    final SignalRates[] rates;
    final long[][] rateArrays;
    final int[][] callers;
    /** Whether the entry's code runs with external interrupts enabled (MSR[EE]=1). */
    final boolean[] interruptsEnabled;

    Workload(List<RegionSpec> specs, SymbolCatalog catalog, RateArrays rateArrays) {
        int entries = 0;
        long[] regionWeights = new long[specs.size()];
        for (int r = 0; r < specs.size(); r++) {
            regionWeights[r] = specs.get(r).weight();
            entries += specs.get(r).symbols().size();
        }
        regions = new WeightedChoice(regionWeights);
        entriesOfRegion = new WeightedChoice[specs.size()];
        firstEntry = new int[specs.size()];
        symbol = new int[entries];
        mode = new int[entries];
        rates = new SignalRates[entries];
        this.rateArrays = new long[entries][];
        callers = new int[entries][];
        interruptsEnabled = new boolean[entries];
        int e = 0;
        for (int r = 0; r < specs.size(); r++) {
            RegionSpec region = specs.get(r);
            firstEntry[r] = e;
            long[] weights = new long[region.symbols().size()];
            for (int i = 0; i < weights.length; i++, e++) {
                WeightedSymbol ws = region.symbols().get(i);
                weights[i] = ws.weight();
                symbol[e] = catalog.id(ws.symbol());
                mode[e] = region.mode().code();
                rates[e] = SignalRates.of(ws.rates());
                this.rateArrays[e] = rateArrays.canonical(ws.rates());
                interruptsEnabled[e] = ws.interruptsEnabled();
                callers[e] = new int[ws.callers().size()];
                for (int c = 0; c < callers[e].length; c++) {
                    callers[e][c] = catalog.id(ws.callers().get(c));
                }
            }
            entriesOfRegion[r] = new WeightedChoice(weights);
        }
    }

    /** Picks the entry of the next slice. */
    int pick(Prng rng) {
        int r = regions.pick(rng);
        return firstEntry[r] + entriesOfRegion[r].pick(rng);
    }
}
