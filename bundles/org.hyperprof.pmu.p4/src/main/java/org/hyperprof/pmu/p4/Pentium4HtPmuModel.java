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
@PmuModel.CpuType("i386/p4-ht")
public final class Pentium4HtPmuModel extends P4PmuModel {
}
