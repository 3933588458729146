package org.hyperprof.pmu.p6;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The P6-family parts OProfile tells apart ({@code i386/ppro}, {@code pii}, {@code piii},
 * {@code p6_mobile}). They share the register file; only the Pentium M auto-masks LVTPC when it
 * delivers a PMI.
 */
enum P6Variant {
    PPRO("ppro", "Pentium Pro", false),
    PII("pii", "PII", false),
    PIII("piii", "PIII", false),
    P6_MOBILE("p6_mobile", "Pentium M (P6 core)", true);

    private final String optionValue;
    private final String displayName;
    private final boolean autoMasksLvtpc;

    P6Variant(String optionValue, String displayName, boolean autoMasksLvtpc) {
        this.optionValue = optionValue;
        this.displayName = displayName;
        this.autoMasksLvtpc = autoMasksLvtpc;
    }

    /** The value of the {@code variant} option (OProfile's cpu_type suffix). */
    String optionValue() {
        return optionValue;
    }

    /** OProfile's CPU name, as opreport prints it. */
    String displayName() {
        return displayName;
    }

    /** Whether the part sets LVTPC.mask when it delivers a PMI (Pentium M only). */
    boolean autoMasksLvtpc() {
        return autoMasksLvtpc;
    }

    /** The allowed option values, for messages. */
    static String allowedText() {
        return Arrays.stream(values()).map(P6Variant::optionValue).collect(Collectors.joining(", "));
    }

    /** The variant named by an option value. */
    static P6Variant ofOption(String value) {
        for (P6Variant v : values()) {
            if (v.optionValue.equals(value)) {
                return v;
            }
        }
        throw new IllegalArgumentException("P6 option variant=" + value + " is not a P6 part; allowed values: "
                + allowedText());
    }
}
