package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD family 10h PMU, OProfile's {@code x86-64/family10}: four 48-bit counters with 12-bit
 * event selects and Host/Guest-only bits, plus Instruction-Based Sampling (fetch and op sampling,
 * Xenoprof operations 16 and 17, the pseudo-PC blocks 13 and 14).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("x86-64/family10")
public final class Family10PmuModel extends AmdPmuModel {
}
