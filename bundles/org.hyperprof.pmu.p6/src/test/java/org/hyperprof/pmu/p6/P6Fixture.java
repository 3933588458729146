package org.hyperprof.pmu.p6;

import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventSpecException;
import org.hyperprof.testing.pmu.PmuFixtures;

/** Shared wiring for the P6 tests: one model (the table is read once per test class) and rates. */
final class P6Fixture {
    /** CPU_CLK_UNHALTED's event code. */
    static final long CLK = 0x79;
    /** INST_RETIRED's event code. */
    static final long INST = 0xC0;
    static final long TWO_TO_40 = 1L << 40;

    final P6PmuModel model = new P6PmuModel();

    P6Pmu pmu() {
        return (P6Pmu) model.createPmu(0, Map.of());
    }

    P6Pmu pmu(Map<String, String> options) {
        return (P6Pmu) model.createPmu(0, options);
    }

    CounterConfig[] configs(String... specs) throws EventSpecException {
        return PmuFixtures.configs(model, specs);
    }

    private P6Fixture() {
    }

    static P6Fixture create() {
        return new P6Fixture();
    }
}
