package org.hyperprof.pmu.amd;

import java.util.Map;
import java.util.stream.Stream;

/** Shared wiring for the AMD tests: the four models (each table read once per JVM) and rates. */
final class AmdFixture {
    /** CPU_CLK_UNHALTED's event code on every AMD family. */
    static final long CLK = 0x76;
    /** RETIRED_INSTRUCTIONS (RETIRED_INSNS on the Athlon). */
    static final long INST = 0xC0;
    static final long TWO_TO_48 = 1L << 48;
    static final long ALL_48 = TWO_TO_48 - 1;

    static final AthlonPmuModel ATHLON = new AthlonPmuModel();
    static final HammerPmuModel HAMMER = new HammerPmuModel();
    static final Family10PmuModel FAMILY10 = new Family10PmuModel();
    static final Family15hPmuModel FAMILY15H = new Family15hPmuModel();

    private AmdFixture() {
    }

    /** Every model, for parameterized tests of the rules they share. */
    static Stream<AmdPmuModel> models() {
        return Stream.of(ATHLON, HAMMER, FAMILY10, FAMILY15H);
    }

    static AmdPmu pmu(AmdPmuModel model) {
        return (AmdPmu) model.createPmu(0, Map.of());
    }

    static AmdPmu pmu(AmdPmuModel model, Map<String, String> options) {
        return (AmdPmu) model.createPmu(0, options);
    }

    /** The select MSR of counter {@code i}, as the model addresses it. */
    static int sel(AmdPmuModel model, int i) {
        return model.family().controlRegister(i);
    }

    /** The counter MSR of counter {@code i}, as the model addresses it. */
    static int ctr(AmdPmuModel model, int i) {
        return model.family().counterRegister(i);
    }

    /** The 48-bit two's complement of {@code count}: what -count leaves in a counter. */
    static long minus(long count) {
        return -count & ALL_48;
    }
}
