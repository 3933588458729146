package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD family 15h PMU, OProfile's {@code x86-64/family15h}: six 48-bit core counters at
 * PERF_CTL i = MSR 0xC0010200 + 2i and PERF_CTR i = 0xC0010201 + 2i (the legacy MSRs alias counters
 * 0-3), with the per-event counter constraints of its event table.
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("x86-64/family15h")
public final class Family15hPmuModel extends AmdPmuModel {
}
