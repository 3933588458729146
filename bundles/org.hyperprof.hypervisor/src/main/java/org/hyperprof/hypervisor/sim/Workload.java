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
    /**
     * Per entry, what drawing its PC and return addresses reads, side by side: the function's
     * start, size and {@link Divisor#reciprocal}, then per caller the first address past its first
     * byte, its size less that byte (0: nothing to draw, the return address is its start) and the
     * reciprocal of that size.
     */
    final long[][] draws;
    /** Per entry: its callers, and how many of their return addresses take a draw (a caller of one byte takes none). */
    final int[] callerDepth;
    final int[] callerDraws;
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
        draws = new long[entries][];
        callerDepth = new int[entries];
        callerDraws = new int[entries];
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
                draws[e] = draws(symbol[e], callers[e], catalog);
                callerDepth[e] = callers[e].length;
                for (int c = 0; c < callers[e].length; c++) {
                    if (draws[e][4 + 3 * c] > 0) {
                        callerDraws[e]++;
                    }
                }
            }
            entriesOfRegion[r] = new WeightedChoice(weights);
        }
    }

    private static long[] draws(int fn, int[] callers, SymbolCatalog catalog) {
        long[] d = new long[3 + 3 * callers.length];
        d[0] = catalog.start(fn);
        d[1] = Math.max(1, catalog.size(fn));
        d[2] = Divisor.reciprocal(d[1]);
        for (int c = 0; c < callers.length; c++) {
            long past = catalog.size(callers[c]) - 1;
            d[3 + 3 * c] = catalog.start(callers[c]) + 1;
            d[4 + 3 * c] = Math.max(0, past);
            d[5 + 3 * c] = Divisor.reciprocal(Math.max(1, past));
        }
        return d;
    }

    /** Picks the entry of the next slice. */
    int pick(Prng rng) {
        int r = regions.pick(rng);
        return firstEntry[r] + entriesOfRegion[r].pick(rng);
    }
}
