package org.hyperprof.pmu.p4;

import java.util.List;

import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.testing.pmu.PmuModelContract;

/** The SPI's contract, held by every model this bundle registers. */
class P4ContractTest extends PmuModelContract {
    @Override
    protected List<PmuModel> models() {
        return List.of(new Pentium4PmuModel(), new Pentium4HtPmuModel());
    }
}
