package org.hyperprof.pmu.x86_64;

/**
 * What CPUID leaf 0x0A reports about a CPU's architectural performance monitoring (pmu-facts 5.1),
 * and how the hardware behind it behaves.
 *
 * <p>{@link #reportedVersion()} is what EAX[7:0] says; {@link #version()} is the version of the
 * PMU hardware. They differ only for a Core 2 whose BIOS reports an empty leaf (version 0): the
 * hardware is still a version 2 PMU, and Xen then assumes version 2, two counters of 40 bits and
 * keeps its overflow test at bit 31 ({@link #overflowTestWidth()}).
 *
 * @param reportedVersion   EAX[7:0] as the CPU reports it (0 for the empty Core 2 BIOS leaf)
 * @param version           the architectural performance monitoring version of the hardware (1, 2 or 3)
 * @param gpCounters        the general-purpose counters (EAX[15:8])
 * @param gpWidth           their width in bits (EAX[23:16])
 * @param eventVectorLength the length of the EBX availability vector (EAX[31:24])
 * @param ebx               EBX: bit i set means architectural event i is not available
 * @param fixedCounters     the fixed counters (EDX[4:0]; none in version 1)
 * @param fixedWidth        their width in bits (EDX[12:5]; 0 without fixed counters)
 */
record CpuidLeaf0A(int reportedVersion, int version, int gpCounters, int gpWidth, int eventVectorLength, long ebx,
        int fixedCounters, int fixedWidth) {
    /** Architectural event numbers, as the EBX availability bits count them. */
    static final String[] ARCHITECTURAL_EVENTS = {"core cycles", "instructions retired", "reference cycles",
        "LLC references", "LLC misses", "branches retired", "branch mispredicts retired"};

    /**
     * @throws IllegalArgumentException when a field is outside what this model supports, naming the
     *                                  field and the allowed range
     */
    CpuidLeaf0A {
        if (version < 1 || version > 3) {
            throw new IllegalArgumentException("CPUID.0AH version " + version
                    + " is not an architectural performance monitoring version this model has; allowed: 1, 2, 3");
        }
        checkRange("number of general-purpose counters (EAX[15:8])", gpCounters, 1, ArchRegisters.MAX_GP_COUNTERS);
        checkRange("general-purpose counter width (EAX[23:16])", gpWidth, 32, 48);
        checkRange("EBX vector length (EAX[31:24])", eventVectorLength, 0, 32);
        if (version == 1 && fixedCounters != 0) {
            throw new IllegalArgumentException("version 1 has no fixed counters; give version 2 or 3 for "
                    + fixedCounters + " fixed counter(s)");
        }
        checkRange("number of fixed counters (EDX[4:0])", fixedCounters, 0, ArchRegisters.MAX_FIXED_COUNTERS);
        if (fixedCounters > 0) {
            checkRange("fixed counter width (EDX[12:5])", fixedWidth, 32, 48);
        } else {
            fixedWidth = 0;
        }
    }

    /**
     * Decodes raw EAX, EBX and EDX of leaf 0x0A.
     *
     * @throws IllegalArgumentException when a field is outside what this model supports, naming the
     *                                  field and the allowed range
     */
    static CpuidLeaf0A decode(long eax, long ebx, long edx) {
        int version = (int) (eax & 0xFF);
        int gp = (int) ((eax >>> 8) & 0xFF);
        int width = (int) ((eax >>> 16) & 0xFF);
        int length = (int) ((eax >>> 24) & 0xFF);
        // EDX is reserved in version 1: a version 1 PMU has no fixed counters.
        int fixed = version >= 2 ? (int) (edx & 0x1F) : 0;
        int fixedWidth = version >= 2 ? (int) ((edx >>> 5) & 0xFF) : 0;
        return of(version, gp, width, length, ebx & 0xFFFF_FFFFL, fixed, fixedWidth);
    }

    /** A leaf from decoded fields, checked, as the CPU reports it. */
    static CpuidLeaf0A of(int version, int gp, int width, int length, long ebx, int fixed, int fixedWidth) {
        return new CpuidLeaf0A(version, version, gp, width, length, ebx, fixed, fixedWidth);
    }

    /**
     * The leaf a Core 2 BIOS leaves empty (version 0) in front of {@code hardware}, a version 2 PMU:
     * Xen assumes version 2, two counters and 40 bits (xenoprof-facts 6.1).
     */
    static CpuidLeaf0A biosVersionZero(CpuidLeaf0A hardware) {
        return new CpuidLeaf0A(0, 2, 2, 40, hardware.eventVectorLength, hardware.ebx, hardware.fixedCounters,
                hardware.fixedWidth);
    }

    private static void checkRange(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " " + value + " is out of range; allowed: " + min + ".." + max);
        }
    }

    /** Whether the global control, status and overflow-control registers exist (version 2 and later). */
    boolean hasGlobalRegisters() {
        return version >= 2;
    }

    /** Whether the AnyThread bits exist (version 3). */
    boolean hasAnyThread() {
        return version >= 3;
    }

    /**
     * The counter bit whose clearing Xen's handler takes as an overflow: bit (width-1) with the
     * CPUID width, except for the empty Core 2 BIOS leaf, where Xen keeps the P6 width of 32.
     */
    int overflowTestWidth() {
        return reportedVersion == 0 ? 32 : gpWidth;
    }

    /**
     * Whether architectural event {@code bit} is available: its EBX bit is clear and the bit lies
     * within the vector length EAX[31:24].
     */
    boolean eventAvailable(int bit) {
        return bit >= 0 && bit < eventVectorLength && (ebx & (1L << bit)) == 0;
    }

    /** Raw EAX as the CPU reports it. */
    long eax() {
        return reportedVersion == 0 ? 0 : ((long) eventVectorLength << 24) | ((long) gpWidth << 16)
                | ((long) gpCounters << 8) | version;
    }

    /** Raw EDX as the CPU reports it. */
    long edx() {
        return reportedVersion == 0 ? 0 : ((long) fixedWidth << 5) | fixedCounters;
    }

    @Override
    public String toString() {
        return String.format("CPUID.0AH EAX=0x%08x EBX=0x%08x EDX=0x%08x (version %d, %d x %d-bit general-purpose,"
                + " %d x %d-bit fixed)", eax(), reportedVersion == 0 ? 0 : ebx, edx(), version, gpCounters, gpWidth,
                fixedCounters, fixedWidth);
    }
}
