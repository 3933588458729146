package org.hyperprof.pmu.amd;

import java.util.Map;

/**
 * What tells the AMD models apart (pmu-facts sections 4.1-4.5): OProfile's CPU name, the number of
 * counters and where their MSRs are, whether the event select has the family 10h extensions
 * (EventSelect[11:8] in bits 35:32, GuestOnly/HostOnly), and whether the part has IBS. One row per
 * model component, found by the cpu_type the component states ({@link org.hyperprof.api.pmu.PmuModel.CpuType}).
 * The event tables are resources in the folder each family names.
 *
 * @param displayName         OProfile's CPU name, as opreport prints it
 * @param resourceFolder      the resource folder (next to the classes) holding {@code events} and
 *                            {@code unit_masks}
 * @param counters            number of core counters Xenoprof may configure
 * @param f15hMsrs            whether the counters are addressed at the family 15h MSRs (the legacy
 *                            MSRs then alias counters 0-3)
 * @param extendedEventSelect whether event selects carry EventSelect[11:8] in bits 35:32 and the
 *                            Host/Guest-only bits
 * @param ibs                 whether the part has Instruction-Based Sampling
 */
record AmdFamily(String displayName, String resourceFolder, int counters, boolean f15hMsrs,
        boolean extendedEventSelect, boolean ibs) {
    /** The families, by the cpu_type of their model component. */
    static final Map<String, AmdFamily> BY_CPU_TYPE = Map.of(
            // K7: four counters at the legacy MSRs, 8-bit event select.
            "i386/athlon", new AmdFamily("Athlon", "athlon", 4, false, false, false),
            // K8 (family 0Fh).
            "x86-64/hammer", new AmdFamily("AMD64 processors", "hammer", 4, false, false, false),
            // Family 10h: 12-bit event select, Host/Guest-only bits, IBS.
            "x86-64/family10", new AmdFamily("AMD64 family10", "family10", 4, false, true, true),
            // Family 15h: six counters at 0xC0010200 + 2i (controls) and 0xC0010201 + 2i (counters).
            "x86-64/family15h", new AmdFamily("AMD64 family15h", "family15h", 6, true, true, false));

    /** The largest event code the select can hold. */
    int maxEventCode() {
        return extendedEventSelect ? 0xFFF : 0xFF;
    }

    /** The bits of an event select the part stores. */
    long selectWritable() {
        return extendedEventSelect ? AmdRegisters.EVTSEL_WRITABLE_F10H : AmdRegisters.EVTSEL_WRITABLE_K7;
    }

    /** The MSR of counter {@code i}'s event select. */
    int controlRegister(int i) {
        return f15hMsrs ? AmdRegisters.F15H_PERF_CTL0 + 2 * i : AmdRegisters.PERFEVTSEL0 + i;
    }

    /** The MSR of counter {@code i}. */
    int counterRegister(int i) {
        return f15hMsrs ? AmdRegisters.F15H_PERF_CTR0 + 2 * i : AmdRegisters.PERFCTR0 + i;
    }

    /** The registers of the family, for "the part has ..." messages. */
    String registersText() {
        String core = f15hMsrs
                ? "PERF_CTL0-5 (MSR 0xC0010200 + 2i), PERF_CTR0-5 (MSR 0xC0010201 + 2i), the legacy aliases"
                        + " PerfEvtSel0-3 (MSR 0xC0010000-3) and PerfCtr0-3 (MSR 0xC0010004-7)"
                : "PerfEvtSel0-3 (MSR 0xC0010000-3), PerfCtr0-3 (MSR 0xC0010004-7)";
        String extra = ibs ? ", the IBS MSRs 0xC0011030-0xC0011039, the IBS extended LVT entry (APIC 0x510)" : "";
        return core + extra + " and the local APIC LVTPC (0x340)";
    }
}
