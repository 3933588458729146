package org.hyperprof.pmu.p6;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.BIT_31;
import static org.hyperprof.pmu.x86.PerfEvtSelFields.LOW_32;

import org.hyperprof.pmu.x86.X86Pmu;

/**
 * Register numbers and bit fields of the P6 performance-monitoring registers (Intel SDM, as
 * restated in pmu-facts section 2) and of the local APIC LVT performance counter entry. The event
 * select fields are the P6 layout the x86 kit keeps once ({@code PerfEvtSelFields}, with LOW_32 and
 * BIT_31: WRMSR to a counter takes only EAX, and OProfile's P6 overflow test looks at bit 31).
 */
final class P6Registers {
    /** PerfCtr0, MSR 0xC1. */
    static final int PERFCTR0 = 0xC1;
    /** PerfCtr1, MSR 0xC2. */
    static final int PERFCTR1 = 0xC2;
    /** PerfEvtSel0, MSR 0x186. */
    static final int PERFEVTSEL0 = 0x186;
    /** PerfEvtSel1, MSR 0x187. */
    static final int PERFEVTSEL1 = 0x187;
    /** Local APIC LVT performance counter entry, xAPIC offset 0x340. */
    static final int LVTPC = 0x340;

    /** Number of counters. */
    static final int COUNTERS = 2;
    /** Counter width in bits. */
    static final int COUNTER_WIDTH = 40;
    /** A counter's 40 bits. */
    static final long COUNTER_MASK = (1L << COUNTER_WIDTH) - 1;
    /** The value at which a 40-bit counter wraps to zero: 2^40. */
    static final long COUNTER_WRAP = 1L << COUNTER_WIDTH;
    /** Bits 39:32 of a counter, the copies of bit 31 after a write. */
    static final long HIGH_8 = 0xFFL << 32;
    /** The largest sampling period whose -count keeps bit 31 set until the counter wraps. */
    static final long MAX_COUNT = X86Pmu.MAX_COUNT;

    // PerfEvtSel0/1 fields: the P6 layout (PerfEvtSelFields) and these; bits 63:32 are reserved and not stored.
    /** Reserved bit 21: OProfile keeps it when it clears a select. */
    static final long EVTSEL_RESERVED_21 = 1L << 21;
    /** The 32 architected bits of an event select. */
    static final long EVTSEL_WRITABLE = LOW_32;

    private P6Registers() {
    }

    /** What a WRMSR to PerfCtr0/1 leaves in the counter: bits 31:0 of the value, bit 31 copied into 39:32. */
    static long counterWriteValue(long value) {
        long low = value & LOW_32;
        return (low & BIT_31) != 0 ? low | HIGH_8 : low;
    }

    /** Error for a register the P6 does not have. */
    static IllegalArgumentException unknownRegister(int register) {
        return new IllegalArgumentException(String.format("0x%X is not a P6 performance-monitoring register; the P6"
                + " has PerfCtr0/1 (MSR 0xC1/0xC2), PerfEvtSel0/1 (MSR 0x186/0x187) and the local APIC LVTPC (0x340)",
                register));
    }
}
