package org.hyperprof.api.pmu;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The performance-monitoring registers of one physical CPU, register-exact for its model, and the
 * driver steps Xenoprof's arch code performs on them.
 *
 * <h2>Privilege</h2>
 * Counting depends on the privilege of the code that runs, given as an x86 current privilege
 * level (CPL) 0-3: Xen runs at 0, a 32-bit PV guest kernel at 1, user code at 3, an HVM guest
 * kernel at its own 0. OS/USR filters compare against it. Non-x86 models map it onto their own
 * state (PowerPC: 0 = hypervisor, 1 = supervisor, 3 = problem state).
 *
 * <h2>Counting</h2>
 * The simulation never steps cycle by cycle. It asks {@link #cyclesUntilOverflow} how far it may
 * run code with given {@link SignalRates} before some counting counter overflows, advances by at
 * most that many cycles with {@link #advance}, and then checks {@link #interruptPending()}.
 * Counters keep exact fractional progress between calls (see {@link SignalRates#advance}).
 *
 * <h2>Threading</h2>
 * Not thread-safe: one physical CPU is driven by one simulation thread. No method allocates.
 */
@ConsumerType
public interface PhysicalPmu {
    /** The physical CPU number. */
    int cpu();

    /** The model this register file belongs to. */
    PmuModel model();

    /**
     * Reads a register by its architectural number (x86 MSR index, PowerPC SPR number, or the
     * local APIC LVTPC offset {@code 0x340} on x86).
     *
     * @throws IllegalArgumentException for a register the model does not have
     */
    long read(int register);

    /**
     * Writes a register with the model's write semantics (for example P6 sign-extends bit 31 of
     * a counter write into bits 39:32).
     *
     * @throws IllegalArgumentException for a register the model does not have
     */
    void write(int register, long value);

    /** Register numbers of the counters, in counter order. */
    int[] counterRegisters();

    /** Register numbers of the control registers (event selects, CCCRs/ESCRs, MMCRs, global control). */
    int[] controlRegisters();

    /**
     * Register numbers that route the PMU interrupt (x86: the local APIC LVTPC, {@code 0x340});
     * empty on models whose interrupt routing is no PMU register (PowerPC). Saving and restoring a
     * PMU context covers counters, controls and these.
     */
    default int[] interruptRegisters() {
        return new int[0];
    }

    /** {@code reserve_counters}: save every counter and control register so that release can restore them. */
    void reserve();

    /**
     * {@code setup_events}: program the counters for the configurations by the model's driver
     * sequence, without enabling counting. On x86: clear the controls, write -1 into every counter,
     * then for each enabled configuration preload {@code -count} and build its control word (event,
     * unit mask, OS, USR, interrupt enable); on PowerPC 970: preload {@code 0x80000000 - count}.
     */
    void setup(CounterConfig[] configs);

    /** {@code start}: route the PMU interrupt to NMI (LVTPC = 0x400 on x86) and enable the configured counters. */
    void start();

    /** {@code stop}: disable counting and restore the interrupt routing saved at start. */
    void stop();

    /** {@code release_counters}: write back the registers saved by {@link #reserve()}. */
    void release();

    /**
     * The NMI handler's model step ({@code check_ctrs}): find the counters that overflowed by the
     * model's rule, report each to {@code sink}, re-arm each with {@code -count}, and do the
     * model's end-of-handler duty (P6: unmask LVTPC). Returns how many counters overflowed. An
     * extra interrupt with nothing overflowed is harmless.
     */
    int checkCounters(OverflowSink sink);

    /**
     * Elapsed cycles after which the next counting counter overflows if code with {@code rates}
     * at privilege {@code cpl} runs; {@link Long#MAX_VALUE} if no counter counts.
     */
    long cyclesUntilOverflow(SignalRates rates, int cpl);

    /** Runs {@code cycles} elapsed cycles of code with {@code rates} at privilege {@code cpl}. */
    void advance(long cycles, SignalRates rates, int cpl);

    /**
     * Whether the PMU is asserting an interrupt that the CPU would take now (an overflow of a
     * counter with interrupt enable, routed and not masked).
     */
    boolean interruptPending();

    /**
     * The CPU takes the pending PMU interrupt. Models that auto-mask LVTPC on delivery (Pentium M,
     * Pentium 4, arch perfmon) set the mask here; the handler's {@link #checkCounters} clears it.
     */
    void acknowledgeInterrupt();

    // ------------------------------------------------------------------ optional model features

    /**
     * Whether the PMU's interrupt can be taken only while the CPU enables external exceptions
     * (PowerPC: the perfmon exception becomes an interrupt only with MSR[EE]=1). The simulation
     * then postpones an asserted interrupt through stretches with EE=0. False on x86 (NMI).
     */
    default boolean gatedByExternalInterruptEnable() {
        return false;
    }

    /**
     * The address of the instruction that caused the last overflow, as the PMU latched it
     * (PowerPC SIAR), or -1 when the model latches none.
     */
    default long sampledAddress() {
        return -1;
    }

    /**
     * The privilege of the code that caused the last overflow, as the PMU latched it (PowerPC
     * MMCRA's sampled HV/PR bits, read with the bit assignment the model is configured for), as a
     * CPL (0 hypervisor, 1 supervisor, 3 problem state), or -1 when the model latches none.
     */
    default int sampledCpl() {
        return -1;
    }

    /**
     * Whether an overflow alert is latched and not yet taken (PowerPC MMCR0[PMAO]): what the
     * hypervisor polls at chosen points when it handles postponed samples that way.
     */
    default boolean alertPending() {
        return interruptPending();
    }

    /**
     * The program counter of the code about to run (called by the simulation before it advances
     * the PMU through a stretch of code), so a model that latches addresses (PowerPC SIAR, AMD IBS
     * linear addresses) has them. Models that latch nothing ignore it.
     */
    default void setProgramCounter(long pc) {
    }

    /**
     * The interrupt handler returns to the interrupted code (x86 IRET, PowerPC rfid). Models whose
     * counting state changes for the handler's duration (PowerPC 970: MSR[PMM]=1 freezes the
     * counters with FCM1 while OProfile's handler runs) restore it here. Others ignore it.
     */
    default void returnFromInterrupt() {
    }

    /** Configures AMD IBS ({@code XENOPROF_ibs_counter}); models without IBS refuse it. */
    default void setupIbs(IbsConfig config) {
        throw new IllegalStateException(model().cpuType() + " has no Instruction-Based Sampling (IBS)");
    }

    /**
     * The NMI handler's IBS step: when fetch or op sample data is valid, writes the block Xen logs
     * (marker pseudo-PC 13 for fetch or 14 for op, the linear address or RIP, then each 64-bit IBS
     * register as two 32-bit halves, low first) into {@code entries} from index 0, re-arms, and
     * returns how many entries it wrote (fetch 8, op 14, both 22; 0 when nothing is valid).
     */
    default int checkIbs(long[] entries) {
        return 0;
    }
}
