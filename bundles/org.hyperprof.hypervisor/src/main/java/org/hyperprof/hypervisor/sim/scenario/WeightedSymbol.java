package org.hyperprof.hypervisor.sim.scenario;

import java.util.List;

/**
 * One function of a workload region or a hypervisor cost, with its weight.
 *
 * @param symbol      the function whose code runs
 * @param weight      relative weight in millionths (a weight of 2.5 is 2500000)
 * @param callers     the return addresses' functions, innermost caller first (may be empty)
 * @param rates       per-signal rates in events per 1000 cycles, indexed by signal ordinal
 * @param line        the scenario line
 * @param interruptsEnabled whether the code runs with external interrupts enabled (PowerPC
 *                    MSR[EE]=1); a PMU interrupt gated by EE is postponed through code without
 */
public record WeightedSymbol(SymbolRef symbol, long weight, List<SymbolRef> callers, long[] rates, int line,
        boolean interruptsEnabled) {

    /** Code that runs with external interrupts enabled. */
    public WeightedSymbol(SymbolRef symbol, long weight, List<SymbolRef> callers, long[] rates, int line) {
        this(symbol, weight, callers, rates, line, true);
    }

    public WeightedSymbol {
        callers = List.copyOf(callers);
        rates = rates.clone();
    }

    @Override
    public long[] rates() {
        return rates.clone();
    }
}
