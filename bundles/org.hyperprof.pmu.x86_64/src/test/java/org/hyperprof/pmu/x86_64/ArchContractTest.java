package org.hyperprof.pmu.x86_64;

import java.util.List;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.testing.pmu.PmuModelContract;

/** The SPI's contract, held by every model this bundle registers. */
class ArchContractTest extends PmuModelContract {
    @Override
    protected List<PmuModel> models() {
        return List.of(new ArchPerfmonPmuModel(), new Core2PmuModel());
    }
}
