package org.hyperprof.pmu.p6;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A P6-family part as OProfile tells them apart ({@code i386/ppro}, {@code pii}, {@code piii},
 * {@code p6_mobile}). They share the register file; only the Pentium M auto-masks LVTPC when it
 * delivers a PMI.
 *
 * @param optionValue    the value of the {@code variant} option (OProfile's cpu_type suffix)
 * @param displayName    OProfile's CPU name, as opreport prints it
 * @param autoMasksLvtpc whether the part sets LVTPC.mask when it delivers a PMI (Pentium M only)
 */
record P6Variant(String optionValue, String displayName, boolean autoMasksLvtpc) {
    static final P6Variant PPRO = new P6Variant("ppro", "Pentium Pro", false);
    static final P6Variant PII = new P6Variant("pii", "PII", false);
    static final P6Variant PIII = new P6Variant("piii", "PIII", false);
    static final P6Variant P6_MOBILE = new P6Variant("p6_mobile", "Pentium M (P6 core)", true);
    /** Every part, in OProfile's order. */
    static final List<P6Variant> ALL = List.of(PPRO, PII, PIII, P6_MOBILE);

    /** The allowed option values, for messages. */
    static String allowedText() {
        return ALL.stream().map(P6Variant::optionValue).collect(Collectors.joining(", "));
    }

    /** The variant named by an option value. */
    static P6Variant ofOption(String value) {
        return ALL.stream().filter(v -> v.optionValue.equals(value)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("P6 option variant=" + value
                        + " is not a P6 part; allowed values: " + allowedText()));
    }
}
