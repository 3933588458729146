package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD K8 (family 0Fh, Opteron/Athlon 64) PMU, OProfile's {@code x86-64/hammer}: four 48-bit
 * counters at MSR 0xC0010004-7 with their selects at 0xC0010000-3, the hammer event table (BKDG 32559).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType(HammerPmuModel.CPU_TYPE_VALUE)
public final class HammerPmuModel extends AmdPmuModel {
    static final String CPU_TYPE_VALUE = "x86-64/hammer";

    /** The model with its event table read from the bundle's resources. */
    public HammerPmuModel() {
        super(CPU_TYPE_VALUE, AmdFamily.HAMMER);
    }
}
