package org.hyperprof.pmu.p4;

import org.hyperprof.pmu.x86.X86Pmu;

/**
 * Register numbers and bit fields of the Pentium 4 performance-monitoring registers (Intel SDM,
 * K-P4PERF, as restated in pmu-facts section 3) and of the local APIC LVT performance counter.
 */
final class P4Registers {
    /** The 18 counters: MSR 0x300 + n. */
    static final int COUNTER0 = 0x300;
    /** The 18 CCCRs: MSR 0x360 + n. */
    static final int CCCR0 = 0x360;
    static final int HARDWARE_COUNTERS = 18;
    /** First and last ESCR address (the 45 ESCRs are not contiguous). */
    static final int FIRST_ESCR = 0x3A0;
    static final int LAST_ESCR = 0x3E1;
    /** IA32_MISC_ENABLE; bit 7 = performance monitoring available (read-only). */
    static final int MISC_ENABLE = 0x1A0;
    static final long MISC_ENABLE_PERFMON_AVAILABLE = 1L << 7;
    /** Local APIC LVT performance counter entry, xAPIC offset 0x340. */
    static final int LVTPC = 0x340;

    static final int COUNTER_WIDTH = 40;
    static final long COUNTER_MASK = (1L << COUNTER_WIDTH) - 1;
    /** 2^40: the value at which a counter wraps to zero. */
    static final long COUNTER_WRAP = 1L << COUNTER_WIDTH;
    /** Bit 31: OProfile's "unflagged overflow" test looks at it. */
    static final long BIT_31 = 1L << 31;
    /** The largest sampling period whose -count keeps bit 31 set until the wrap. */
    static final long MAX_COUNT = X86Pmu.MAX_COUNT;

    // Counter groups (pmu-facts 3.1); an ESCR feeds the counters of its group and half only.
    static final int BPU = 0;
    static final int MS = 1;
    static final int FLAME = 2;
    static final int IQ = 3;
    static final String[] GROUP_NAMES = {"BPU", "MS", "FLAME", "IQ"};

    // ESCR fields (pmu-facts 3.2); 32 significant bits, bit 31 reserved.
    /** Count thread 1 at CPL greater than 0. */
    static final long ESCR_T1_USR = 1L << 0;
    /** Count thread 1 at CPL 0. */
    static final long ESCR_T1_OS = 1L << 1;
    /** Count thread 0 (the only thread without Hyper-Threading) at CPL greater than 0. */
    static final long ESCR_T0_USR = 1L << 2;
    /** Count thread 0 at CPL 0. */
    static final long ESCR_T0_OS = 1L << 3;
    /** Tag enable and tag value (bits 8:5): stored; the simulation does not tag uops. */
    static final long ESCR_TAG = 0x1FL << 4;
    static final int ESCR_EVENT_MASK_SHIFT = 9;
    static final long ESCR_EVENT_MASK = 0xFFFFL << ESCR_EVENT_MASK_SHIFT;
    static final int ESCR_EVENT_SELECT_SHIFT = 25;
    static final long ESCR_EVENT_SELECT = 0x3FL << ESCR_EVENT_SELECT_SHIFT;
    /** Bits 30:0; bit 31 and the upper half are reserved and read 0. */
    static final long ESCR_WRITABLE = 0x7FFF_FFFFL;
    /** OProfile's ESCR_CLEAR keeps these (reserved bit 31 and the thread-1 bits). */
    static final long ESCR_PRESERVED = 0x8000_0003L;

    // CCCR fields (pmu-facts 3.3).
    static final long CCCR_ENABLE = 1L << 12;
    static final int CCCR_ESCR_SELECT_SHIFT = 13;
    static final long CCCR_ESCR_SELECT = 0x7L << CCCR_ESCR_SELECT_SHIFT;
    static final int CCCR_ACTIVE_THREAD_SHIFT = 16;
    static final long CCCR_ACTIVE_THREAD = 0x3L << CCCR_ACTIVE_THREAD_SHIFT;
    /** Compare, complement, threshold (23:20) and edge: stored; the simulation counts signals directly. */
    static final long CCCR_COMPARE = 1L << 18;
    static final long CCCR_COMPLEMENT = 1L << 19;
    static final long CCCR_THRESHOLD = 0xFL << 20;
    static final long CCCR_EDGE = 1L << 24;
    /** Force an overflow on every increment. */
    static final long CCCR_FORCE_OVF = 1L << 25;
    /** PMI to logical CPU 0 (the only one without Hyper-Threading) on overflow. */
    static final long CCCR_OVF_PMI_T0 = 1L << 26;
    /** PMI to logical CPU 1 on overflow. */
    static final long CCCR_OVF_PMI_T1 = 1L << 27;
    /** Cascade: stored; OProfile never cascades and the counter pairs are unverified (pmu-facts 8). */
    static final long CCCR_CASCADE = 1L << 30;
    /** Sticky overflow flag: set by hardware, cleared only by software. */
    static final long CCCR_OVF = 1L << 31;
    /** Bits 31:30 and 27:12; reserved bits 29:28 and 11:0 and the upper half read 0. */
    static final long CCCR_WRITABLE = 0xCFFF_F000L;
    /** OProfile's CCCR_CLEAR keeps these (bits 11:0, 17:16, 29:27). */
    static final long CCCR_PRESERVED = 0x3803_0FFFL;
    /** OProfile's CCCR_SET_REQUIRED_BITS: active thread = 11b (any). */
    static final long CCCR_REQUIRED = 0x3L << CCCR_ACTIVE_THREAD_SHIFT;

    private P4Registers() {
    }

    /** The group of hardware counter {@code n}: BPU 0-3, MS 4-7, FLAME 8-11, IQ 12-17. */
    static int group(int n) {
        return n < 4 ? BPU : n < 8 ? MS : n < 12 ? FLAME : IQ;
    }

    /** The half of its group counter {@code n} sits in: 0 takes the even ESCRs (ESCR0), 1 the odd. */
    static int half(int n) {
        if (n >= 12) {
            return n == 14 || n == 15 || n == 17 ? 1 : 0; // IQ: 12,13,16 | 14,15,17
        }
        return (n >> 1) & 1;
    }

    /** The SDM name of hardware counter {@code n}, e.g. {@code IQ_COUNTER4}. */
    static String counterName(int n) {
        int first = n < 4 ? 0 : n < 8 ? 4 : n < 12 ? 8 : 12;
        return GROUP_NAMES[group(n)] + "_COUNTER" + (n - first);
    }
}
