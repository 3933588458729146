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
@PmuModel.CpuType(Pentium4PmuModel.CPU_TYPE_VALUE)
public final class Pentium4PmuModel extends P4PmuModel {
    static final String CPU_TYPE_VALUE = "i386/p4";

    /** The model with its wiring and event table read from the bundle's resources. */
    public Pentium4PmuModel() {
        super(CPU_TYPE_VALUE, "Pentium 4 / Xeon", false);
    }
}
