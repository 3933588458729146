package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD K7 (Athlon) PMU, OProfile's {@code i386/athlon}: four 48-bit counters at MSR
 * 0xC0010004-7 with their selects at 0xC0010000-3, 8-bit event codes, the Athlon event table.
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("i386/athlon")
public final class AthlonPmuModel extends AmdPmuModel {
}
