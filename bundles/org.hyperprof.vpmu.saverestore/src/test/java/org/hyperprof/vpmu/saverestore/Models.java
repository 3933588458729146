package org.hyperprof.vpmu.saverestore;

import java.util.stream.Stream;

import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.pmu.p6.P6PmuModel;
import org.hyperprof.testing.vpmu.TestedModel;

/** The real models the tests run on: P6's shared enable, and AMD's select per counter. */
final class Models {
    static final TestedModel P6 = new TestedModel("P6", new P6PmuModel(), 0xC0, 0x79, "INST_RETIRED");
    static final TestedModel HAMMER = new TestedModel("AMD hammer", new HammerPmuModel(), 0xC0, 0x76,
            "RETIRED_INSTRUCTIONS");

    private Models() {
    }

    static Stream<TestedModel> both() {
        return Stream.of(P6, HAMMER);
    }
}
