package org.hyperprof.pmu.p4;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * OProfile's {@code i386/p4}: a Pentium 4 / Xeon package with one logical CPU, whose driver uses
 * all eight OProfile counters (hardware counters 0, 4, 8, 16, 2, 6, 10, 17).
 *
 * <p>Options of {@link #createPmu}: {@code cpu.model}, {@code lvtpc.automask} (see {@link P4PmuModel}).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("i386/p4")
public final class Pentium4PmuModel extends P4PmuModel {
}
