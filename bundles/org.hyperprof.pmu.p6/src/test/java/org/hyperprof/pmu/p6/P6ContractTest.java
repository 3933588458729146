package org.hyperprof.pmu.p6;

import java.util.List;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.testing.pmu.PmuModelContract;

/** The SPI's contract, held by every model this bundle registers. */
class P6ContractTest extends PmuModelContract {
    @Override
    protected List<PmuModel> models() {
        return List.of(new P6PmuModel());
    }
}
