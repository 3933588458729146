package org.hyperprof.pmu.x86;

/**
 * The local APIC LVT Performance Counter entry (LVTPC, xAPIC offset 0x340) of one physical CPU, as
 * restated in pmu-facts section 1.1. Every x86 model's register file holds one of these: the entry is
 * APIC hardware, not part of any model's counters.
 *
 * <p>Fields: bits 7:0 vector, 10:8 delivery mode (000 fixed, 100 NMI), bit 16 mask; other bits read
 * as zero. The entry comes out of reset masked. A PMI is deliverable when the entry is unmasked and
 * routed as NMI, or as a fixed interrupt with a legal vector (16 or above). Parts that auto-mask
 * (Pentium M, Pentium 4, arch-perfmon cores) set the mask bit when they deliver a PMI and the
 * handler must clear it; PPro/PII/PIII and AMD parts must not auto-mask.
 *
 * <p>The driver's start writes {@code 0x400} (NMI, unmasked, vector 0) after saving the entry, and its
 * stop restores the saved value ({@link #routeToNmi()}, {@link #restore()}).
 *
 * <p>Mutable and not thread-safe: one instance per physical CPU, used by that CPU's PMU only.
 */
public final class LocalApicLvtpc {

    /** xAPIC register offset of the entry. */
    public static final int OFFSET = 0x340;
    /** Bits 7:0: the interrupt vector for fixed delivery. */
    public static final long VECTOR = 0xFFL;
    /** Bits 10:8: the delivery mode. */
    public static final long DELIVERY_MODE = 0x7L << 8;
    /** Delivery mode 000: fixed interrupt through {@link #VECTOR}. */
    public static final long MODE_FIXED = 0x0L << 8;
    /** Delivery mode 100: NMI. */
    public static final long MODE_NMI = 0x4L << 8;
    /** Bit 16: the entry is masked and delivers nothing. */
    public static final long MASK = 1L << 16;
    /** Vector, delivery mode and mask; delivery status (bit 12) is read-only and reads idle, the rest zero. */
    public static final long WRITABLE = VECTOR | DELIVERY_MODE | MASK;
    /** The value OProfile/Xenoprof write at start: NMI delivery, unmasked, vector 0. */
    public static final long NMI = MODE_NMI;
    /** LVT entries come out of reset masked. */
    public static final long POWER_ON = MASK;
    /** Vectors 0-15 are illegal for fixed delivery; the APIC refuses them. */
    public static final int FIRST_LEGAL_VECTOR = 16;

    private final boolean autoMask;
    private long value = POWER_ON;
    private long beforeStart;

    /**
     * @param autoMask whether this CPU's APIC sets the mask bit when it delivers a PMI
     *                 (Pentium M, Pentium 4, arch-perfmon: true; PPro/PII/PIII, AMD: false)
     */
    public LocalApicLvtpc(boolean autoMask) {
        this.autoMask = autoMask;
    }

    /** Whether this CPU's APIC masks the entry when it delivers a PMI. */
    public boolean autoMasks() {
        return autoMask;
    }

    /** The entry as software reads it. */
    public long read() {
        return value;
    }

    /** Writes the entry; bits outside {@link #WRITABLE} are dropped. */
    public void write(long newValue) {
        value = newValue & WRITABLE;
    }

    /** Whether a pending PMI would be delivered now (see {@link #deliverable(long)}). */
    public boolean deliverable() {
        return deliverable(value);
    }

    /**
     * Whether an LVT entry in this layout delivers: unmasked and routed as NMI, or as a fixed
     * interrupt with a vector of at least {@link #FIRST_LEGAL_VECTOR}. Also fits AMD's extended LVT
     * entries, which share the layout.
     */
    public static boolean deliverable(long lvt) {
        if ((lvt & MASK) != 0) {
            return false;
        }
        long mode = lvt & DELIVERY_MODE;
        return mode == MODE_NMI || (mode == MODE_FIXED && (lvt & VECTOR) >= FIRST_LEGAL_VECTOR);
    }

    /** The APIC delivers a PMI through the entry: a part that auto-masks sets the mask bit. */
    public void deliver() {
        if (autoMask) {
            value |= MASK;
        }
    }

    /** The handler clears the mask bit (harmless when the part never set it). */
    public void unmask() {
        value &= ~MASK;
    }

    /** The driver's start: saves the entry, then writes {@link #NMI} ({@code 0x400}). */
    public void routeToNmi() {
        beforeStart = value;
        write(NMI);
    }

    /** The driver's stop: writes back the value {@link #routeToNmi()} saved. */
    public void restore() {
        write(beforeStart);
    }

    /**
     * Checks that {@code cpl} is an x86 current privilege level (0 to 3).
     *
     * @throws IllegalArgumentException naming the CPU and the legal levels otherwise
     */
    public static void checkCpl(int cpu, int cpl) {
        if (cpl < 0 || cpl > 3) {
            throw new IllegalArgumentException("CPU " + cpu + ": privilege level " + cpl
                    + " is not an x86 CPL; expected 0 (Xen, HVM kernel), 1 (PV kernel) .. 3 (user)");
        }
    }
}
