package org.hyperprof.pmu.ppc970;

/**
 * SPR numbers and bit fields of the PowerPC 970 performance monitor (pmu-facts section 6).
 *
 * <p>IBM numbers the bits of a 64-bit register from the most significant end: IBM bit 0 is the
 * MSB, IBM bit 63 the LSB. Every mask below is built from its IBM bit number with
 * {@link #ibmBit(int)}, so the source reads like the manual's table and the unit tests check each
 * mask against the low-word values the facts give.
 */
final class Ppc970Registers {
    // SPR numbers (64-bit Book III: MMCRA, PMC1..8, MMCR0, SIAR, SDAR, MMCR1 are 786..798).
    static final int MMCRA = 786;
    static final int PMC1 = 787;
    static final int PMC8 = 794;
    static final int MMCR0 = 795;
    static final int SIAR = 796;
    static final int SDAR = 797;
    static final int MMCR1 = 798;

    /** Eight performance-monitor counters PMC1..PMC8 (counter index 0..7). */
    static final int COUNTERS = 8;
    /** Each PMC is 32 bits wide. */
    static final int COUNTER_WIDTH = 32;
    static final long COUNTER_MASK = 0xFFFF_FFFFL;
    /** The "negative" (CTR_NEG) bit of a PMC: IBM bit 0 of the 32-bit counter, LSB bit 31. */
    static final long NEGATIVE = 0x8000_0000L;
    /** 2^32: a PMC wraps 0xFFFFFFFF to 0 silently. */
    static final long WRAP = 1L << COUNTER_WIDTH;
    /** The largest sampling period: 0x80000000 - count must stay a non-negative 32-bit value. */
    static final long MAX_COUNT = NEGATIVE;
    /** Registers whose significant bits are the low word (MMCR0, MMCRA): the high word reads zero. */
    static final long LOW_WORD = 0xFFFF_FFFFL;

    // MMCR0 (IBM bits 32..63; the high word reads zero).
    static final long FC = ibmBit(32);
    static final long FCS = ibmBit(33);
    static final long FCP = ibmBit(34);
    static final long FCM1 = ibmBit(35);
    static final long FCM0 = ibmBit(36);
    static final long PMXE = ibmBit(37);
    static final long FCECE = ibmBit(38);
    static final long TBSEL = ibmField(39, 40);
    static final long TBEE = ibmBit(41);
    static final long THRESHOLD = ibmField(42, 47);
    static final long PMC1CE = ibmBit(48);
    static final long PMCJCE = ibmBit(49);
    static final long TRIGGER = ibmBit(50);
    static final long PMC1SEL = ibmField(51, 55);
    static final int PMC1SEL_SHIFT = 63 - 55;
    static final long PMAO = ibmBit(56);
    static final long MMCR0_RESERVED_57 = ibmBit(57);
    static final long PMC2SEL = ibmField(58, 62);
    static final int PMC2SEL_SHIFT = 63 - 62;
    static final long FCH = ibmBit(63);
    /** What a write keeps: the low word without reserved bit 57. */
    static final long MMCR0_WRITABLE = LOW_WORD & ~MMCR0_RESERVED_57;

    // MMCR1: PMC3SEL..PMC8SEL (IBM 32-36, 37-41, 42-46, 47-51, 52-56, 57-61) and the event-bus
    // multiplexer selects in the high word (TTMxSEL, TD_CP_DBGxSEL, adder lanes).
    /** LSB shift of PMCnSEL in MMCR1 for n = 3..8 (index n-3). */
    static final int[] MMCR1_SEL_SHIFT = {63 - 36, 63 - 41, 63 - 46, 63 - 51, 63 - 56, 63 - 61};
    static final long PMCSEL_FIELD = 0x1F;
    /** SPCSEL, IBM bits 62-63: speculative-count select (stored; the simulation counts retired work). */
    static final long SPCSEL = ibmField(62, 63);

    // PMCnSEL encodings every PMC understands (K-970PERF).
    /** "Count nothing": the way software disables one PMC. */
    static final int SEL_NOTHING = 0x08;
    /** Instructions completed, on any PMC. */
    static final int SEL_INSTRUCTIONS = 0x09;
    /** Processor cycles, on any PMC. */
    static final int SEL_CYCLES = 0x0F;

    // MMCRA (IBM bits 32..63).
    static final long SDSYNC = ibmBit(32);
    static final long FREEZE_PMC1_4 = ibmBit(33);
    static final long FREEZE_PMC5_8 = ibmBit(34);
    /** IBM bit 35: SAMPHV in Xen-PPC and Linux (MMCRA_SIHV); "problem state" in XNU. */
    static final long MMCRA_BIT35 = ibmBit(35);
    /** IBM bit 36: SAMPPR in Xen-PPC and Linux (MMCRA_SIPR); "hypervisor state" in XNU. */
    static final long MMCRA_BIT36 = ibmBit(36);
    /** Mark only one internal op per PowerPC instruction (IBM bit 50; OProfile's groups set it). */
    static final long MARK_ONE_IOP = ibmBit(50);
    static final long FREEZE_IN_WAIT = ibmBit(62);
    static final long SAMPLE_ENABLE = ibmBit(63);
    static final long MMCRA_WRITABLE = LOW_WORD;

    private Ppc970Registers() {
    }

    /** The mask of IBM bit {@code bit} (0 = MSB) of a 64-bit register. */
    static long ibmBit(int bit) {
        if (bit < 0 || bit > 63) {
            throw new IllegalArgumentException("IBM bit " + bit + " is outside 0..63");
        }
        return 1L << (63 - bit);
    }

    /** The mask of IBM bits {@code first..last} inclusive. */
    static long ibmField(int first, int last) {
        long mask = 0;
        for (int b = first; b <= last; b++) {
            mask |= ibmBit(b);
        }
        return mask;
    }

    /** Whether a 32-bit PMC value is negative (bit 31 set). */
    static boolean negative(long pmc) {
        return (pmc & NEGATIVE) != 0;
    }

    /** Events a PMC holding {@code value} must count before it next becomes negative. */
    static long eventsUntilNegative(long value) {
        return value < NEGATIVE ? NEGATIVE - value : WRAP - value + NEGATIVE;
    }

    /** Whether counting {@code gained} events from {@code value} makes the PMC become negative at least once. */
    static boolean becomesNegative(long value, long gained) {
        return gained >= eventsUntilNegative(value);
    }

    /** The PMC1SEL or PMC2SEL field of MMCR0, or PMCnSEL (n = 3..8) of MMCR1, for counter index 0..7. */
    static int selector(int counter, long mmcr0, long mmcr1) {
        return switch (counter) {
            case 0 -> (int) ((mmcr0 & PMC1SEL) >>> PMC1SEL_SHIFT);
            case 1 -> (int) ((mmcr0 & PMC2SEL) >>> PMC2SEL_SHIFT);
            default -> (int) ((mmcr1 >>> MMCR1_SEL_SHIFT[counter - 2]) & PMCSEL_FIELD);
        };
    }

    /** The SPR number of PMC{@code counter+1}. */
    static int pmcRegister(int counter) {
        return PMC1 + counter;
    }

    /** The register's name, for messages. */
    static String name(int spr) {
        if (spr >= PMC1 && spr <= PMC8) {
            return "PMC" + (spr - PMC1 + 1) + " (SPR " + spr + ")";
        }
        return switch (spr) {
            case MMCRA -> "MMCRA (SPR 786)";
            case MMCR0 -> "MMCR0 (SPR 795)";
            case SIAR -> "SIAR (SPR 796)";
            case SDAR -> "SDAR (SPR 797)";
            case MMCR1 -> "MMCR1 (SPR 798)";
            default -> "SPR " + spr;
        };
    }

    /** Error for an SPR the 970 performance monitor does not have. */
    static IllegalArgumentException unknownRegister(int spr) {
        return new IllegalArgumentException("SPR " + spr + " (0x" + Integer.toHexString(spr) + ") is not a PowerPC 970"
                + " performance-monitor register; the 970 has MMCRA (786), PMC1-PMC8 (787-794), MMCR0 (795),"
                + " SIAR (796), SDAR (797) and MMCR1 (798)");
    }
}
