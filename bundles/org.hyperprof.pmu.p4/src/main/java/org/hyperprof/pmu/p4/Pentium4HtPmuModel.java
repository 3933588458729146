package org.hyperprof.pmu.p4;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * OProfile's {@code i386/p4-ht}: a Pentium 4 / Xeon package with two Hyper-Threading siblings.
 * Each logical CPU gets four counters: thread 0 the hardware counters 0, 4, 8, 16 with the even
 * ESCRs, the T0 bits and OVF_PMI_T0; thread 1 the counters 2, 6, 10, 17 with the odd ESCRs, the T1
 * bits and OVF_PMI_T1. By default CPU {@code n} is thread {@code n % 2}.
 *
 * <p>Options of {@link #createPmu}: {@code ht.thread}, {@code cpu.model}, {@code lvtpc.automask} (see
 * {@link P4PmuModel}).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType(Pentium4HtPmuModel.CPU_TYPE_VALUE)
public final class Pentium4HtPmuModel extends P4PmuModel {
    static final String CPU_TYPE_VALUE = "i386/p4-ht";

    /** The model with its wiring and event table read from the bundle's resources. */
    public Pentium4HtPmuModel() {
        super(CPU_TYPE_VALUE, "Pentium 4 / Xeon with 2 hyper-threads", true);
    }
}
