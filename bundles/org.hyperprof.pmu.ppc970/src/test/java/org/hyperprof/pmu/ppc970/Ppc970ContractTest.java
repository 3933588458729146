package org.hyperprof.pmu.ppc970;

import java.util.List;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.testing.pmu.PmuModelContract;

/** The SPI's contract, held by every model this bundle registers. */
class Ppc970ContractTest extends PmuModelContract {
    @Override
    protected List<PmuModel> models() {
        return List.of(new Ppc970PmuModel());
    }
}
