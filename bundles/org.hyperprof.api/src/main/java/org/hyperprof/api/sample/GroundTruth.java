package org.hyperprof.api.sample;

import java.util.List;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.Signal;

/**
 * The simulator's exact signal totals, per domain, vCPU, mode, image and symbol: what a perfect
 * profile would show. Totals are in thousandths of an event (rates are per 1000 cycles).
 *
 * <p>{@code onBehalf} answers the other side of the argument over what a guest's own profile
 * should show: the hypervisor work each guest vCPU caused (its hypercalls, the switch away from it,
 * the traps of its PMU accesses, the NMI handler, the policy's charges), attributed to a guest
 * function: a hypercall's work to the functions that make it, where the host knows them (a
 * simulated scenario's {@code callsite} lines), all other work to the guest function that ran when
 * the hypervisor was entered (the instruction that caused the exit, or the code it interrupted).
 * Its rows carry that guest function's mode, image and symbol. A guest's truth
 * "including the hypervisor's work on its behalf" is its guest rows plus its on-behalf rows; the
 * same work also appears in {@code rows}, as hypervisor rows of the domain.
 */
public record GroundTruth(List<Row> rows, List<Row> onBehalf) {

    /** The idle domain's id ({@code DOMID_IDLE}). */
    public static final int IDLE_DOMAIN = 0x7FFF;

    public GroundTruth {
        rows = List.copyOf(rows);
        onBehalf = List.copyOf(onBehalf);
    }

    /** A ground truth without on-behalf attribution (a host that keeps none). */
    public GroundTruth(List<Row> rows) {
        this(rows, List.of());
    }

    /**
     * @param domid       the domain whose vCPU was current (hypervisor work is charged to the domain it serves)
     * @param vcpu        the vCPU
     * @param mode        the Xenoprof mode
     * @param image       the image name
     * @param kind        the image kind
     * @param symbol      the symbol name
     * @param signalMilli per-signal totals in thousandths of an event, indexed by {@link Signal#ordinal()}
     */
    public record Row(int domid, int vcpu, CpuMode mode, String image, ImageKind kind, String symbol,
            long[] signalMilli) {

        public long milli(Signal s) {
            return signalMilli[s.ordinal()];
        }
    }

    /** Total of one signal over all rows, in thousandths. */
    public long total(Signal s) {
        long t = 0;
        for (Row r : rows) {
            t += r.milli(s);
        }
        return t;
    }
}
