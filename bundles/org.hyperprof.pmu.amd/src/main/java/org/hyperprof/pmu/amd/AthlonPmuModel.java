package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD K7 (Athlon) PMU, OProfile's {@code i386/athlon}: four 48-bit counters at MSR
 * 0xC0010004-7 with their selects at 0xC0010000-3, 8-bit event codes, the Athlon event table.
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType(AthlonPmuModel.CPU_TYPE_VALUE)
public final class AthlonPmuModel extends AmdPmuModel {
    static final String CPU_TYPE_VALUE = "i386/athlon";

    /** The model with its event table read from the bundle's resources. */
    public AthlonPmuModel() {
        super(CPU_TYPE_VALUE, AmdFamily.ATHLON);
    }
}
