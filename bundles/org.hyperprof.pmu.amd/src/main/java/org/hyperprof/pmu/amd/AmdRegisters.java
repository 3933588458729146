package org.hyperprof.pmu.amd;

import static org.hyperprof.pmu.x86.PerfEvtSelFields.LOW_32;

import org.hyperprof.pmu.x86.X86Pmu;

/**
 * Register numbers and bit fields of the AMD K7/K8/family 10h/family 15h performance-monitoring
 * registers (pmu-facts section 4), the local APIC LVT performance counter entry (section 1.1) and
 * the family 10h Instruction-Based Sampling (IBS) registers (section 4.4).
 *
 * <p>MSR numbers above 0x7FFF_FFFF are negative as Java ints; they are compared and offset as
 * ints and printed unsigned.
 */
final class AmdRegisters {
    // ------------------------------------------------------------------ core counters (K7/K8/10h)

    /** PerfEvtSel0; PerfEvtSel1-3 follow at +1. */
    static final int PERFEVTSEL0 = 0xC001_0000;
    /** PerfCtr0; PerfCtr1-3 follow at +1. */
    static final int PERFCTR0 = 0xC001_0004;
    /** The legacy MSRs name four counters (on family 15h they alias counters 0-3). */
    static final int LEGACY_COUNTERS = 4;

    // ------------------------------------------------------------------ family 15h core counters

    /** PERF_CTL i is at {@code F15H_PERF_CTL0 + 2i}. */
    static final int F15H_PERF_CTL0 = 0xC001_0200;
    /** PERF_CTR i is at {@code F15H_PERF_CTR0 + 2i}. */
    static final int F15H_PERF_CTR0 = 0xC001_0201;

    /** Counter width in bits. */
    static final int COUNTER_WIDTH = 48;
    /** A counter's 48 bits; bits 63:48 are reserved and read 0. */
    static final long COUNTER_MASK = (1L << COUNTER_WIDTH) - 1;
    /** The value at which a 48-bit counter wraps to zero: 2^48. */
    static final long COUNTER_WRAP = 1L << COUNTER_WIDTH;
    /** The largest sampling period whose -count keeps bit 31 set until the counter wraps. */
    static final long MAX_COUNT = X86Pmu.MAX_COUNT;

    // ------------------------------------------------------------------ PerfEvtSel fields
    // The P6 layout (PerfEvtSelFields; EN enables each select's own counter), and these.

    /** Reserved bit 21: OProfile keeps it when it clears a select. */
    static final long EVTSEL_RESERVED_21 = 1L << 21;
    /** Family 10h+: EventSelect[11:8] sits in bits 35:32. */
    static final int EVTSEL_EVENT_HIGH_SHIFT = 32;
    static final long EVTSEL_EVENT_HIGH = 0xFL << EVTSEL_EVENT_HIGH_SHIFT;
    /** Family 10h+ (SVM): count only in guest mode. */
    static final long EVTSEL_GUEST_ONLY = 1L << 40;
    /** Family 10h+ (SVM): count only in host mode. */
    static final long EVTSEL_HOST_ONLY = 1L << 41;
    /** K7/K8: the 32 architected bits; bits 63:32 are reserved. */
    static final long EVTSEL_WRITABLE_K7 = LOW_32;
    /** Family 10h+: bits 31:0, 35:32 and 41:40 (OProfile's reserved mask is 0xFFFFFCF0_00200000). */
    static final long EVTSEL_WRITABLE_F10H = EVTSEL_WRITABLE_K7 | EVTSEL_EVENT_HIGH | EVTSEL_GUEST_ONLY
            | EVTSEL_HOST_ONLY;
    /**
     * What OProfile keeps when it clears a select (K-AMD {@code MSR_AMD_EVENTSEL_RESERVED}); of the
     * bits a select stores, only bit 21 survives.
     */
    static final long EVTSEL_KEPT_ON_CLEAR = 0xFFFF_FCF0_0020_0000L;

    // ------------------------------------------------------------------ local APIC LVT entries

    /** Local APIC LVT performance counter entry, xAPIC offset 0x340. */
    static final int LVTPC = 0x340;
    /**
     * Extended APIC LVT entry 1 (APIC offset 0x500 + 0x10 * 1), where the IBS interrupt is routed;
     * the offset is what the northbridge IBSCTL register (PCI config 0x1CC) names.
     */
    static final int IBS_EILVT = 0x510;

    // ------------------------------------------------------------------ IBS (family 10h)

    static final int IBS_FETCH_CTL = 0xC001_1030;
    static final int IBS_FETCH_LINAD = 0xC001_1031;
    static final int IBS_FETCH_PHYSAD = 0xC001_1032;
    static final int IBS_OP_CTL = 0xC001_1033;
    static final int IBS_OP_RIP = 0xC001_1034;
    static final int IBS_OP_DATA1 = 0xC001_1035;
    static final int IBS_OP_DATA2 = 0xC001_1036;
    static final int IBS_OP_DATA3 = 0xC001_1037;
    static final int IBS_DC_LINAD = 0xC001_1038;
    static final int IBS_DC_PHYSAD = 0xC001_1039;

    /** IbsFetchCtl 15:0: IbsFetchMaxCnt, the period in units of 16 fetches. */
    static final long IBS_FETCH_MAX_CNT = 0xFFFFL;
    static final int IBS_FETCH_CNT_SHIFT = 16;
    /** IbsFetchCtl 31:16: IbsFetchCnt, bits 19:4 of the running fetch count. */
    static final long IBS_FETCH_CNT = 0xFFFFL << IBS_FETCH_CNT_SHIFT;
    static final long IBS_FETCH_EN = 1L << 48;
    static final long IBS_FETCH_VAL = 1L << 49;
    static final long IBS_FETCH_PHY_ADDR_VALID = 1L << 52;
    static final long IBS_FETCH_RAND_EN = 1L << 57;
    /** The IbsFetchCtl bits the model stores (the others are not modelled and read 0). */
    static final long IBS_FETCH_CTL_STORED = IBS_FETCH_MAX_CNT | IBS_FETCH_CNT | IBS_FETCH_EN | IBS_FETCH_VAL
            | IBS_FETCH_PHY_ADDR_VALID | IBS_FETCH_RAND_EN;

    /** IbsOpCtl 15:0: IbsOpMaxCnt, the period in units of 16. */
    static final long IBS_OP_MAX_CNT = 0xFFFFL;
    static final long IBS_OP_EN = 1L << 17;
    static final long IBS_OP_VAL = 1L << 18;
    /** IbsOpCntCtl: count dispatched ops instead of clock cycles (needs capability OpCnt). */
    static final long IBS_OP_CNT_CTL = 1L << 19;
    static final int IBS_OP_CUR_CNT_SHIFT = 32;
    /** IbsOpCurCnt 51:32, the running op count (readable and writable with capability RdWrOpCnt). */
    static final long IBS_OP_CUR_CNT = 0xF_FFFFL << IBS_OP_CUR_CNT_SHIFT;
    static final long IBS_OP_CTL_BASE_STORED = IBS_OP_MAX_CNT | IBS_OP_EN | IBS_OP_VAL;
    /** A 20-bit IBS count (fetch count bits 19:0, op current count). */
    static final long IBS_COUNT_MASK = 0xF_FFFFL;

    // IBS capability bits, CPUID 0x8000001B EAX (AMD CPUID specification; bit 0 is in the facts).
    /** IBSFFV: the capability bits are valid. */
    static final long IBS_CAPS_AVAIL = 1L << 0;
    /** FetchSam: fetch sampling. */
    static final long IBS_CAPS_FETCHSAM = 1L << 1;
    /** OpSam: op sampling. */
    static final long IBS_CAPS_OPSAM = 1L << 2;
    /** RdWrOpCnt: IbsOpCurCnt can be read and written. */
    static final long IBS_CAPS_RDWROPCNT = 1L << 3;
    /** OpCnt: op sampling can count dispatched ops. */
    static final long IBS_CAPS_OPCNT = 1L << 4;
    /** What a family 10h part without further IBS features reports (valid, fetch and op sampling). */
    static final long IBS_CAPS_FAMILY10_DEFAULT = IBS_CAPS_AVAIL | IBS_CAPS_FETCHSAM | IBS_CAPS_OPSAM;
    /** Every capability bit this model understands. */
    static final long IBS_CAPS_KNOWN = IBS_CAPS_FAMILY10_DEFAULT | IBS_CAPS_RDWROPCNT | IBS_CAPS_OPCNT;

    /** Xenoprof's pseudo-PC that starts a fetch block (OProfile's IBS_FETCH_SAMPLE escape code). */
    static final long IBS_FETCH_MARKER = 13;
    /** Xenoprof's pseudo-PC that starts an op block (OProfile's IBS_OP_SAMPLE escape code). */
    static final long IBS_OP_MARKER = 14;
    /** Entries of a fetch block: marker, linear address, then FetchLinAd, FetchCtl, FetchPhysAd as halves. */
    static final int IBS_FETCH_BLOCK = 8;
    /** Entries of an op block: marker, RIP, then OpRip, OpData1-3, DcLinAd, DcPhysAd as halves. */
    static final int IBS_OP_BLOCK = 14;

    /** Seed of the driver's 16-bit op-count LFSR (facts: xenoprof section 6.7). */
    static final int DRIVER_LFSR_SEED = 0xF00D;
    /** Without RdWrOpCnt the op max count is clamped so that the +-128 randomisation stays in 16 bits. */
    static final long IBS_OP_MAX_CNT_CLAMP_LOW = 0x0081;
    static final long IBS_OP_MAX_CNT_CLAMP_HIGH = 0xFF80;
    /** With RdWrOpCnt the current count starts at 12 random bits ... */
    static final long IBS_RANDOM_MASK = (1L << 12) - 1;
    /** ... so the max count is raised by half that range (in units of 16) to keep the mean period. */
    static final long IBS_RANDOM_MAXCNT_OFFSET = 1L << (12 - 5);

    private AmdRegisters() {
    }

    /** A register number as its unsigned hex text. */
    static String hex(int register) {
        return "0x" + Integer.toHexString(register).toUpperCase(java.util.Locale.ROOT);
    }
}
