package org.hyperprof.study;

import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.sample.GroundTruth;

/**
 * The two definitions of what a guest's profile should show, from the simulator's ground truth.
 *
 * <ul>
 * <li><b>A, guest only</b>: the guest's own code, every row of its domain except hypervisor rows.
 * Other domains and the idle domain never count.</li>
 * <li><b>B, guest plus the hypervisor's work on its behalf</b>: A plus the guest's
 * {@link GroundTruth#onBehalf()} rows (its hypercalls, the switch away from it, its traps, the NMI
 * handler, the policy's charges), each attributed to the guest function that asked for it: a
 * hypercall's work to the functions the scenario's {@code callsite} lines say make it, all other
 * work to the guest function that entered the hypervisor.</li>
 * </ul>
 *
 * Amounts are in thousandths of an event of the profile's signal, summed over vCPUs.
 */
final class Truth {
    private Truth() {
    }

    /** Truth A of domain {@code domid} for {@code signal}, per symbol. */
    static Map<SymbolKey, Long> guestOnly(GroundTruth truth, int domid, Signal signal) {
        Map<SymbolKey, Long> out = new TreeMap<>();
        add(out, truth.rows(), domid, signal, true);
        return out;
    }

    /** Truth B of domain {@code domid} for {@code signal}, per symbol. */
    static Map<SymbolKey, Long> withHypervisorOnBehalf(GroundTruth truth, int domid, Signal signal) {
        Map<SymbolKey, Long> out = new TreeMap<>();
        add(out, truth.rows(), domid, signal, true);
        add(out, truth.onBehalf(), domid, signal, false);
        return out;
    }

    private static void add(Map<SymbolKey, Long> out, Iterable<GroundTruth.Row> rows, int domid, Signal signal,
            boolean guestModesOnly) {
        for (GroundTruth.Row r : rows) {
            if (r.domid() != domid || (guestModesOnly && r.mode() == CpuMode.HYPERVISOR)) {
                continue;
            }
            long milli = r.milli(signal);
            if (milli != 0) {
                out.merge(new SymbolKey(r.image(), r.symbol()), milli, Long::sum);
            }
        }
    }
}
