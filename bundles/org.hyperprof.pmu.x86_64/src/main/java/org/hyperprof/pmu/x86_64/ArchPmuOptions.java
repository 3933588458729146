package org.hyperprof.pmu.x86_64;

import java.util.Map;

/**
 * The options of {@link IntelArchPmuModel#createPmu}: overrides of single CPUID leaf 0x0A fields,
 * so that version 1, 2 and 3 behaviour (and other counter counts and widths) can be tried on one
 * model, and two behaviours outside CPUID.
 *
 * <ul>
 * <li>{@code cpuid.version} = 1..3 (on {@code i386/core_2} also 0: a BIOS that reports an empty leaf);</li>
 * <li>{@code cpuid.gp} = 1..8 general-purpose counters; {@code cpuid.width} = 32..48 bits;</li>
 * <li>{@code cpuid.fixed} = 0..3 fixed counters; {@code cpuid.fixed.width} = 32..48 bits;</li>
 * <li>{@code cpuid.ebx} = the event availability vector (bit i set: architectural event i missing);</li>
 * <li>{@code handler.clearstatus} = true|false: the NMI handler also writes the overflowed counters'
 * bits to GLOBAL_OVF_CTRL (the complete version 2 handler of pmu-facts 5.6); default false, as
 * Xen's and OProfile's arch-perfmon handler never touches GLOBAL_STATUS;</li>
 * <li>{@code msr.fullwidth} = true|false: IA32_PERF_CAPABILITIES reports FW_WRITE and the
 * full-width aliases IA32_A_PMCx exist; default false (not on Core 2 or Nehalem);</li>
 * <li>{@code lvtpc.automask} = true|false: the APIC sets LVTPC.mask when it delivers a PMI; default
 * true, as on every arch-perfmon core (pmu-facts 1.1). False is a what-if override (a host
 * description written for a P6 passes it to every model); the handler unmasks either way.</li>
 * </ul>
 *
 * @param cpuid                the CPU's leaf 0x0A after the overrides
 * @param cpuidChanged         whether any cpuid.* option changed the model's leaf
 * @param clearStatusInHandler whether the handler also clears the overflowed counters' status bits
 * @param fullWidthWrites      whether the full-width counter aliases exist
 * @param autoMask             whether the APIC masks LVTPC when it delivers a PMI
 */
record ArchPmuOptions(CpuidLeaf0A cpuid, boolean cpuidChanged, boolean clearStatusInHandler, boolean fullWidthWrites,
        boolean autoMask) {
    static final String VERSION = "cpuid.version";
    static final String GP = "cpuid.gp";
    static final String WIDTH = "cpuid.width";
    static final String FIXED = "cpuid.fixed";
    static final String FIXED_WIDTH = "cpuid.fixed.width";
    static final String EBX = "cpuid.ebx";
    static final String CLEAR_STATUS = "handler.clearstatus";
    static final String FULL_WIDTH = "msr.fullwidth";
    static final String AUTOMASK = "lvtpc.automask";
    static final String ALLOWED = VERSION + " (1..3), " + GP + " (1..8), " + WIDTH + " (32..48), " + FIXED
            + " (0..3), " + FIXED_WIDTH + " (32..48), " + EBX + " (0x0..0xffffffff), " + CLEAR_STATUS
            + " (true or false), " + FULL_WIDTH + " (true or false), " + AUTOMASK + " (true or false)";

    /**
     * Reads the options against the model's leaf.
     *
     * @param cpuType          the model, for messages
     * @param base             the model's CPUID leaf
     * @param allowVersionZero whether {@code cpuid.version=0} (the Core 2 BIOS quirk) is allowed
     * @throws IllegalArgumentException for an unknown option, a bad value or a combination the
     *                                  leaf cannot express, naming what is allowed
     */
    static ArchPmuOptions parse(String cpuType, CpuidLeaf0A base, boolean allowVersionZero, Map<String, String> options) {
        int version = base.version();
        int gp = base.gpCounters();
        int width = base.gpWidth();
        int fixed = base.fixedCounters();
        int fixedWidth = base.fixedWidth();
        long ebx = base.ebx();
        boolean changed = false;
        boolean versionZero = false;
        boolean fieldGiven = false;
        boolean fixedGiven = false;
        boolean clearStatus = false;
        boolean fullWidth = false;
        boolean autoMask = true;
        if (options != null) {
            for (Map.Entry<String, String> option : options.entrySet()) {
                String key = option.getKey();
                String value = option.getValue() == null ? "" : option.getValue().trim();
                switch (key == null ? "" : key) {
                    case VERSION -> {
                        int v = (int) number(cpuType, key, value, allowVersionZero ? 0 : 1, 3);
                        versionZero = v == 0;
                        version = versionZero ? base.version() : v;
                        changed = true;
                    }
                    case GP -> {
                        gp = (int) number(cpuType, key, value, 1, ArchRegisters.MAX_GP_COUNTERS);
                        changed = fieldGiven = true;
                    }
                    case WIDTH -> {
                        width = (int) number(cpuType, key, value, 32, 48);
                        changed = fieldGiven = true;
                    }
                    case FIXED -> {
                        fixed = (int) number(cpuType, key, value, 0, ArchRegisters.MAX_FIXED_COUNTERS);
                        changed = fieldGiven = fixedGiven = true;
                    }
                    case FIXED_WIDTH -> {
                        fixedWidth = (int) number(cpuType, key, value, 32, 48);
                        changed = fieldGiven = true;
                    }
                    case EBX -> {
                        ebx = number(cpuType, key, value, 0, 0xFFFF_FFFFL);
                        changed = fieldGiven = true;
                    }
                    case CLEAR_STATUS -> clearStatus = bool(cpuType, key, value);
                    case FULL_WIDTH -> fullWidth = bool(cpuType, key, value);
                    case AUTOMASK -> autoMask = bool(cpuType, key, value);
                    default -> throw new IllegalArgumentException("unknown " + cpuType + " PMU option '" + key
                            + "'; allowed options: " + ALLOWED);
                }
            }
        }
        if (versionZero) {
            if (fieldGiven) {
                throw new IllegalArgumentException(cpuType + " option " + VERSION + "=0 models a BIOS that reports"
                        + " an empty CPUID leaf 0x0A, for which Xen assumes 2 counters of 40 bits; drop the other"
                        + " cpuid.* options or give a version 1..3");
            }
            return new ArchPmuOptions(CpuidLeaf0A.biosVersionZero(base), true, clearStatus, fullWidth, autoMask);
        }
        if (version == 1) {
            if (fixedGiven && fixed > 0) {
                throw new IllegalArgumentException(cpuType + " options " + VERSION + "=1 and " + FIXED + "=" + fixed
                        + " contradict each other: version 1 has no fixed counters; give version 2 or 3, or "
                        + FIXED + "=0");
            }
            fixed = 0;
        } else if (fixed > 0 && fixedWidth == 0) {
            fixedWidth = width; // a leaf that had no fixed counters gains some as wide as the GP ones
        }
        CpuidLeaf0A cpuid;
        try {
            cpuid = CpuidLeaf0A.of(version, gp, width, base.eventVectorLength(), ebx, fixed, fixedWidth);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(cpuType + " PMU options give an impossible CPUID leaf 0x0A: "
                    + e.getMessage(), e);
        }
        return new ArchPmuOptions(cpuid, changed, clearStatus, fullWidth, autoMask);
    }

    private static long number(String cpuType, String key, String value, long min, long max) {
        long v;
        try {
            v = value.startsWith("0x") || value.startsWith("0X") ? Long.parseLong(value.substring(2), 16)
                    : Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(cpuType + " option " + key + "=" + value
                    + " is not a number (decimal or 0x hex); allowed values: " + min + ".." + max);
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(cpuType + " option " + key + "=" + value + " is out of range;"
                    + " allowed values: " + min + ".." + max);
        }
        return v;
    }

    private static boolean bool(String cpuType, String key, String value) {
        if ("true".equalsIgnoreCase(value)) {
            return true;
        }
        if ("false".equalsIgnoreCase(value)) {
            return false;
        }
        throw new IllegalArgumentException(cpuType + " option " + key + "=" + value
                + " is not a boolean; allowed values: true, false");
    }
}
