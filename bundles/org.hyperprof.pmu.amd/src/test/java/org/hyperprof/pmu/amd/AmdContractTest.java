package org.hyperprof.pmu.amd;

import java.util.List;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.testing.pmu.PmuModelContract;

/** The SPI's contract, held by every model this bundle registers. */
class AmdContractTest extends PmuModelContract {
    @Override
    protected List<PmuModel> models() {
        return List.of(new AthlonPmuModel(), new HammerPmuModel(), new Family10PmuModel(), new Family15hPmuModel());
    }
}
