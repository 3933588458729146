package org.hyperprof.pmu.x86;

/**
 * The fields of an event select in the P6 layout, where Intel P6, Intel architectural performance
 * monitoring and AMD K7 onwards agree (pmu-facts sections 2, 4 and 5). Each of those models' register
 * tables adds what is its own: bit 21, the bits a select stores, AMD's event bits 35:32 and its SVM
 * filters.
 */
public final class PerfEvtSelFields {
    /** The event code, bits 7:0. */
    public static final long EVTSEL_EVENT = 0xFFL;
    public static final int EVTSEL_UMASK_SHIFT = 8;
    /** The unit mask, bits 15:8. */
    public static final long EVTSEL_UMASK = 0xFFL << EVTSEL_UMASK_SHIFT;
    /** Count when CPL is greater than 0. */
    public static final long EVTSEL_USR = 1L << 16;
    /** Count when CPL is 0. */
    public static final long EVTSEL_OS = 1L << 17;
    /** Edge detect: stored; the simulation counts signals directly. */
    public static final long EVTSEL_E = 1L << 18;
    /** Pin control: stored; there are no PM pins to toggle. */
    public static final long EVTSEL_PC = 1L << 19;
    /** Raise the PMI through LVTPC when this counter overflows. */
    public static final long EVTSEL_INT = 1L << 20;
    /** Enable (on the P6 only PerfEvtSel0's copy counts, and it enables both counters). */
    public static final long EVTSEL_EN = 1L << 22;
    /** Invert the counter-mask comparison: stored; the simulation counts signals directly. */
    public static final long EVTSEL_INV = 1L << 23;
    public static final int EVTSEL_CMASK_SHIFT = 24;
    /** Counter mask threshold, bits 31:24: stored; the simulation counts signals directly. */
    public static final long EVTSEL_CMASK = 0xFFL << EVTSEL_CMASK_SHIFT;
    /** The 32 architected bits of a select. */
    public static final long LOW_32 = 0xFFFF_FFFFL;
    /** Bit 31 of a counter, the one OProfile's overflow test looks at. */
    public static final long BIT_31 = 1L << 31;

    private PerfEvtSelFields() {
    }
}
