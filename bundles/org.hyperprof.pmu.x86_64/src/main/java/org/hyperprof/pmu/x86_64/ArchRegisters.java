package org.hyperprof.pmu.x86_64;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.LOW_32;

import org.hyperprof.pmu.x86.X86Pmu;

/**
 * Register numbers and bit fields of Intel architectural performance monitoring (Intel SDM, as
 * restated in pmu-facts section 5) and of the local APIC LVT performance counter entry.
 */
final class ArchRegisters {
    /** IA32_PMC0; IA32_PMCi is {@code PMC0 + i}. */
    static final int PMC0 = 0xC1;
    /** IA32_PERFEVTSEL0; IA32_PERFEVTSELi is {@code PERFEVTSEL0 + i}. */
    static final int PERFEVTSEL0 = 0x186;
    /** IA32_A_PMC0, the full-width write alias of IA32_PMC0 (present when PERF_CAPABILITIES.FW_WRITE). */
    static final int A_PMC0 = 0x4C1;
    /** IA32_PERF_CAPABILITIES (read-only). */
    static final int PERF_CAPABILITIES = 0x345;
    /** IA32_FIXED_CTR0 (INST_RETIRED.ANY); FIXED_CTRj is {@code FIXED_CTR0 + j}. Version 2 and later. */
    static final int FIXED_CTR0 = 0x309;
    /** IA32_FIXED_CTR_CTRL, version 2 and later. */
    static final int FIXED_CTR_CTRL = 0x38D;
    /** IA32_PERF_GLOBAL_STATUS (read-only), version 2 and later. */
    static final int GLOBAL_STATUS = 0x38E;
    /** IA32_PERF_GLOBAL_CTRL, version 2 and later. */
    static final int GLOBAL_CTRL = 0x38F;
    /** IA32_PERF_GLOBAL_OVF_CTRL (write 1 to clear a GLOBAL_STATUS bit), version 2 and later. */
    static final int GLOBAL_OVF_CTRL = 0x390;
    /** IA32_DEBUGCTL; only bit 12 (FREEZE_PERFMON_ON_PMI, version 2 and later) is modelled. */
    static final int DEBUGCTL = 0x1D9;
    /** Local APIC LVT performance counter entry, xAPIC offset 0x340. */
    static final int LVTPC = 0x340;

    /** Xen caps the general-purpose counters it uses at eight (OP_MAX_COUNTER). */
    static final int MAX_GP_COUNTERS = 8;
    /** The architecture defines at most three fixed counters in versions 2 and 3. */
    static final int MAX_FIXED_COUNTERS = 3;

    /** The largest sampling period whose -count, written through 32 bits, keeps bit 31 set until the wrap. */
    static final long MAX_COUNT = X86Pmu.MAX_COUNT;

    // IA32_PERFEVTSELx fields: the P6 layout (PerfEvtSelFields) with a per-select EN; bits 63:32 reserved.
    /** AnyThread (version 3): count for all threads of the core; reserved before version 3. */
    static final long EVTSEL_ANY_THREAD = 1L << 21;
    /** The bits a select stores before version 3 (bit 21 is reserved and reads 0). */
    static final long EVTSEL_WRITABLE_V1 = LOW_32 & ~EVTSEL_ANY_THREAD;
    /** The bits a select stores from version 3 on. */
    static final long EVTSEL_WRITABLE_V3 = LOW_32;

    // IA32_FIXED_CTR_CTRL: a 4-bit field per fixed counter j at bits 4j+3:4j.
    /** Count at CPL 0. */
    static final long FIXED_OS = 0x1;
    /** Count at CPL greater than 0. */
    static final long FIXED_USR = 0x2;
    /** AnyThread (version 3), reserved in version 2. */
    static final long FIXED_ANY_THREAD = 0x4;
    /** PMI on overflow. */
    static final long FIXED_PMI = 0x8;
    static final int FIXED_FIELD_BITS = 4;

    // IA32_PERF_GLOBAL_* layout.
    /** Bit 32+j of GLOBAL_CTRL/STATUS/OVF_CTRL stands for FIXED_CTRj. */
    static final int GLOBAL_FIXED_SHIFT = 32;
    /** GLOBAL_STATUS bit 62: DS/PEBS buffer overflow (no DS area is modelled, so never set by hardware). */
    static final long STATUS_OVF_BUFFER = 1L << 62;
    /** GLOBAL_STATUS bit 63: CondChgd. */
    static final long STATUS_COND_CHGD = 1L << 63;

    /** IA32_DEBUGCTL bit 12: on a PMI, hardware clears every GLOBAL_CTRL enable bit. */
    static final long DEBUGCTL_FREEZE_PERFMON_ON_PMI = 1L << 12;
    /** IA32_PERF_CAPABILITIES bit 13: full-width writes through IA32_A_PMCx. */
    static final long PERF_CAPABILITIES_FW_WRITE = 1L << 13;

    private ArchRegisters() {
    }

    /** All ones in the low {@code bits} bits. */
    static long mask(int bits) {
        return bits >= 64 ? -1L : (1L << bits) - 1;
    }

    /** What a plain WRMSR to IA32_PMCx leaves: bits 31:0, bit 31 copied up to the counter's width. */
    static long signExtend32(long value, int width) {
        return ((long) (int) value) & mask(width);
    }
}
