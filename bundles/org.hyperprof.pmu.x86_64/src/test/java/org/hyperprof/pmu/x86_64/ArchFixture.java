package org.hyperprof.pmu.x86_64;

import java.util.Map;

/** Shared wiring for the architectural perfmon tests: the two models (read once per JVM) and rates. */
final class ArchFixture {
    static final ArchPerfmonPmuModel ARCH = new ArchPerfmonPmuModel();
    static final Core2PmuModel CORE2 = new Core2PmuModel();

    /** Architectural event codes. */
    static final long CLK = 0x3C;
    static final long INST = 0xC0;
    static final long LLC = 0x2E;

    private ArchFixture() {
    }

    static ArchPerfmonPmu arch() {
        return (ArchPerfmonPmu) ARCH.createPmu(0, Map.of());
    }

    static ArchPerfmonPmu arch(Map<String, String> options) {
        return (ArchPerfmonPmu) ARCH.createPmu(0, options);
    }

    static ArchPerfmonPmu core2() {
        return (ArchPerfmonPmu) CORE2.createPmu(0, Map.of());
    }

    static ArchPerfmonPmu core2(Map<String, String> options) {
        return (ArchPerfmonPmu) CORE2.createPmu(0, options);
    }

}
