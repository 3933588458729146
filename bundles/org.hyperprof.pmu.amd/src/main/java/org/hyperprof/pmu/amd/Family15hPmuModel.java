package org.hyperprof.pmu.amd;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * The AMD family 15h PMU, OProfile's {@code x86-64/family15h}: six 48-bit core counters at
 * PERF_CTL i = MSR 0xC0010200 + 2i and PERF_CTR i = 0xC0010201 + 2i (the legacy MSRs alias counters
 * 0-3), with the per-event counter constraints of its event table.
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType(Family15hPmuModel.CPU_TYPE_VALUE)
public final class Family15hPmuModel extends AmdPmuModel {
    static final String CPU_TYPE_VALUE = "x86-64/family15h";

    /** The model with its event table read from the bundle's resources. */
    public Family15hPmuModel() {
        super(CPU_TYPE_VALUE, AmdFamily.FAMILY15H);
    }
}
