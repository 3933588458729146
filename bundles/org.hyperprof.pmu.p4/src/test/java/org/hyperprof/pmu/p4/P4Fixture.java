package org.hyperprof.pmu.p4;

import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;

/** Shared wiring for the Pentium 4 tests: the two models (read once per JVM), register numbers, rates. */
final class P4Fixture {
    static final Pentium4PmuModel P4 = new Pentium4PmuModel();
    static final Pentium4HtPmuModel P4_HT = new Pentium4HtPmuModel();

    // Registers used throughout.
    static final int FSB_ESCR0 = 0x3A2;
    static final int FSB_ESCR1 = 0x3A3;
    static final int CRU_ESCR0 = 0x3B8;
    static final int CRU_ESCR1 = 0x3B9;
    static final int BSU_ESCR0 = 0x3A0;
    static final int BSU_ESCR1 = 0x3A1;
    static final int IQ_ESCR0 = 0x3BA;

    /** GLOBAL_POWER_EVENTS on the FSB ESCRs: event select 0x13, mask 0x01 (running). */
    static final long GPE_T0_ALL = (0x13L << 25) | (0x1L << 9) | 0b1100;
    /** CCCR: Enable, ESCR-select 6 (FSB), active thread 11b. */
    static final long CCCR_FSB_ENABLED = (1L << 12) | (6L << 13) | (3L << 16);

    private P4Fixture() {
    }

    static P4Pmu p4() {
        return (P4Pmu) P4.createPmu(0, Map.of());
    }

    static P4Pmu ht(int cpu) {
        return (P4Pmu) P4_HT.createPmu(cpu, Map.of());
    }

    /** A configuration naming OProfile P4 event number {@code number}, as Xen would get it from a guest. */
    static CounterConfig raw(CounterConfig like, int number) {
        var e = like.event();
        var d = new org.hyperprof.api.pmu.EventDescriptor("event " + number, number, e.counterMask(), 0,
                e.unitMask(), null, "raw event number");
        return new CounterConfig(like.counter(), d, like.count(), like.unitMask(), like.kernel(), like.user());
    }

}
