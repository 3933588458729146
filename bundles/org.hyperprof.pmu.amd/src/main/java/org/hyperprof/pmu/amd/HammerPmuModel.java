package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD K8 (family 0Fh, Opteron/Athlon 64) PMU, OProfile's {@code x86-64/hammer}: four 48-bit
 * counters at MSR 0xC0010004-7 with their selects at 0xC0010000-3, the hammer event table (BKDG 32559).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("x86-64/hammer")
public final class HammerPmuModel extends AmdPmuModel {
}
