package org.hyperprof.hypervisor.sim;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One array per distinct set of signal rates of a host, so that code running at the same rates
 * carries the same array: the ledger then recognises a row's rates by identity and only sums its
 * cycles (a workload's hypervisor functions and the hypervisor work the engine inserts run at the
 * scenario's {@code cost.rates}, read into separate arrays). Used while the engine is built.
 */
final class RateArrays {
    private final Map<List<Long>, long[]> seen = new HashMap<>();

    /** The host's array with the contents of {@code rates}. */
    long[] canonical(long[] rates) {
        return seen.computeIfAbsent(Arrays.stream(rates).boxed().toList(), k -> rates);
    }
}
