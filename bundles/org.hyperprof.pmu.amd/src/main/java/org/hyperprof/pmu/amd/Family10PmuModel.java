package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD family 10h PMU, OProfile's {@code x86-64/family10}: four 48-bit counters with 12-bit
 * event selects and Host/Guest-only bits, plus Instruction-Based Sampling (fetch and op sampling,
 * Xenoprof operations 16 and 17, the pseudo-PC blocks 13 and 14).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType(Family10PmuModel.CPU_TYPE_VALUE)
public final class Family10PmuModel extends AmdPmuModel {
    static final String CPU_TYPE_VALUE = "x86-64/family10";

    /** The model with its event table read from the bundle's resources. */
    public Family10PmuModel() {
        super(CPU_TYPE_VALUE, AmdFamily.FAMILY10);
    }
}
