package org.hyperprof.pmu.x86;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.OverflowSink;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.pmu.SignalRates;
import org.hyperprof.pmu.kit.SetupCheck;

/**
 * The driver steps Xenoprof runs on one x86 CPU's counters, the same on every x86 model (OProfile's
 * {@code nmi_int.c}); the model fills in its registers and rules through the hooks (OProfile's
 * {@code op_x86_model_spec}).
 *
 * <ul>
 * <li>reserve saves every counter, every control and the LVTPC;
 * <li>setup checks the configurations before any register changes, clears the controls, writes -1
 * into every counter, then preloads {@code -count} and programs each configured counter;
 * <li>start routes LVTPC to NMI and enables the configured counters; stop disables them and restores
 * LVTPC;
 * <li>release writes back what reserve saved, controls first;
 * <li>the NMI handler ({@code check_ctrs}) re-arms every configured counter that overflowed by the
 * model's rule.
 * </ul>
 *
 * <p>The model owns its register file and its counting. Every step here goes through
 * {@link #read} and {@link #write}, so each register keeps the model's write semantics.
 */
public abstract class X86Pmu implements PhysicalPmu {
    /** The largest sampling period: its {@code -count}, written through 32 bits, keeps bit 31 set until the wrap. */
    public static final long MAX_COUNT = 0x7FFF_FFFFL;

    protected final int cpu;
    protected final LocalApicLvtpc lvtpc;
    private final PmuModel model;
    private final int[] counterRegisters;
    private final int[] controlRegisters;
    private final System.Logger log;
    /** A counter with its interrupt enabled wrapped and the PMI has not been taken yet. */
    private boolean pmiPending;

    // Driver state (what nmi_int.c and the model's driver keep per CPU).
    /** Sampling period per counter from setup; 0 for a counter the session does not use. */
    private final long[] resetValue;
    private final long[] savedCounter;
    private final long[] savedControl;
    private long savedLvtpc;
    private boolean reserved;
    private boolean started;
    private final List<String> unprogrammed = new ArrayList<>();

    /**
     * @param counterRegisters the counters the driver uses, in counter order; this PMU's own array
     * @param controlRegisters the controls reserve saves and release restores, in restore order,
     *                         the control of counter {@code i} at index {@code i}; this PMU's own array
     * @param lvtpcAutoMask    whether this CPU's APIC masks LVTPC when it delivers a PMI
     */
    protected X86Pmu(int cpu, PmuModel model, int[] counterRegisters, int[] controlRegisters, boolean lvtpcAutoMask) {
        this.cpu = cpu;
        this.model = model;
        this.counterRegisters = counterRegisters;
        this.controlRegisters = controlRegisters;
        this.lvtpc = new LocalApicLvtpc(lvtpcAutoMask);
        this.log = System.getLogger(getClass().getName());
        this.resetValue = new long[counterRegisters.length];
        this.savedCounter = new long[counterRegisters.length];
        this.savedControl = new long[controlRegisters.length];
    }

    // ------------------------------------------------------------------ hooks: messages and checks

    /** How messages name this CPU's counters, e.g. {@code "the P6 counters"}. */
    protected abstract String countersName();

    /** Counters setup accepts: this CPU's, unless the driver takes a fixed number whatever the CPU has. */
    protected int configurableCounters() {
        return counters();
    }

    /** Which counters exist, for the message that rejects another, e.g. {@code "the P6 has counters 0 and 1"}. */
    protected abstract String counterRange();

    /** Why a count above {@link #MAX_COUNT} is refused, in the model's words. */
    protected abstract String preloadRule();

    /** Width of the field that takes the unit mask. */
    protected abstract int unitMaskBits();

    /** The field that takes the unit mask, e.g. {@code "UMASK field"}. */
    protected abstract String unitMaskField();

    /** What is wrong with {@code event} for this model (the message goes on from "counter i "), or null if it fits. */
    protected abstract String eventMisfit(EventDescriptor event);

    // ------------------------------------------------------------------ hooks: the model's registers

    /** Setup's first step: clear every control but the bits the driver keeps, so nothing counts or interrupts. */
    protected abstract void clearControls();

    /**
     * Setup has written -1 into counter {@code i}: a model that carries fractions of an event between
     * advances drops counter {@code i}'s here.
     */
    protected void startAfresh(int i) {
    }

    /** Setup meets a configuration for a counter this CPU lacks but {@link #configurableCounters()} allows. */
    protected void beyondThisCpu(CounterConfig c) {
    }

    /** Preloads counter {@code i} with {@code -count} and writes its controls for {@code c}, without enabling it. */
    protected abstract void program(int i, CounterConfig c);

    /** The bit in counter {@code i}'s control ({@code controlRegisters()[i]}) that lets it count. */
    protected abstract long enableBit();

    /** Start: each configured counter's control has its own enable bit, set here. */
    protected void enableCounters() {
        for (int i = 0; i < counters(); i++) {
            if (configured(i)) {
                write(controlRegisters[i], read(controlRegisters[i]) | enableBit());
            }
        }
    }

    /** Stop: clears what {@link #enableCounters()} set. */
    protected void disableCounters() {
        for (int i = 0; i < counters(); i++) {
            if (configured(i)) {
                write(controlRegisters[i], read(controlRegisters[i]) & ~enableBit());
            }
        }
    }

    /** Start and stop route LVTPC through the APIC entry, not {@link #write}; a model watching writes hears of it here. */
    protected void lvtpcRouted() {
    }

    /** The NMI handler's test: whether configured counter {@code i} overflowed. */
    protected abstract boolean overflowed(int i);

    /** The NMI handler re-arms counter {@code i} that overflowed: {@code -count} into it again. */
    protected void rearm(int i) {
        write(counterRegisters[i], -resetValue[i]);
    }

    /**
     * The NMI handler's last step, after it re-armed the counters whose bits are set in
     * {@code overflowed}: the part masked LVTPC when it delivered the PMI (or, where it does not
     * auto-mask, the unmask is harmless), so the handler unmasks it.
     */
    protected void endOfHandler(long overflowed) {
        lvtpc.unmask();
    }

    /** {@link #cyclesUntilOverflow} for a checked CPL. */
    protected abstract long cyclesUntilNextOverflow(SignalRates rates, int cpl);

    /** {@link #advance} for a checked CPL and a positive number of cycles. */
    protected abstract void advanceCounters(long cycles, SignalRates rates, int cpl);

    /** The CPU takes the PMI: LVTPC delivers it (a part that auto-masks sets the mask). */
    protected void takeInterrupt() {
        pmiPending = false;
        lvtpc.deliver();
    }

    // ------------------------------------------------------------------ for the model

    /** The register numbers {@code number} gives counters 0..count-1, in counter order. */
    protected static int[] registers(int count, IntUnaryOperator number) {
        int[] r = new int[count];
        for (int i = 0; i < count; i++) {
            r[i] = number.applyAsInt(i);
        }
        return r;
    }

    /** Number of counters the driver uses. */
    protected final int counters() {
        return counterRegisters.length;
    }

    /** Whether the session's setup configured counter {@code i}. */
    protected final boolean configured(int i) {
        return resetValue[i] != 0;
    }

    /** A counter with its interrupt enabled wrapped: the PMI is asserted until the CPU takes it. */
    protected final void raisePmi() {
        pmiPending = true;
    }

    /** Whether a PMI is asserted and the CPU has not taken it yet. */
    protected final boolean pmiPending() {
        return pmiPending;
    }

    /** Setup leaves a counter unprogrammed as Xen does, and says so on the console (the log) at {@code level}. */
    protected final void leaveUnprogrammed(System.Logger.Level level, String message) {
        unprogrammed.add(message);
        log.log(level, message);
    }

    /** What the last setup left unprogrammed, as Xen prints it to its console. */
    protected final List<String> unprogrammed() {
        return List.copyOf(unprogrammed);
    }

    // ------------------------------------------------------------------ PhysicalPmu

    @Override
    public final int cpu() {
        return cpu;
    }

    @Override
    public final PmuModel model() {
        return model;
    }

    /** The counters the driver uses, in counter order; the array is this PMU's own and must not be changed. */
    @Override
    public final int[] counterRegisters() {
        return counterRegisters;
    }

    /** The controls reserve saves and release restores; the array is this PMU's own and must not be changed. */
    @Override
    public final int[] controlRegisters() {
        return controlRegisters;
    }

    /** The local APIC's LVTPC routes this PMU's interrupt; a vPMU context saves and restores it too. */
    @Override
    public final int[] interruptRegisters() {
        return new int[] {LocalApicLvtpc.OFFSET};
    }

    @Override
    public final void reserve() {
        if (reserved) {
            throw new IllegalStateException("CPU " + cpu + ": " + countersName()
                    + " are already reserved; release them first");
        }
        for (int i = 0; i < counterRegisters.length; i++) {
            savedCounter[i] = read(counterRegisters[i]);
        }
        for (int i = 0; i < controlRegisters.length; i++) {
            savedControl[i] = read(controlRegisters[i]);
        }
        savedLvtpc = lvtpc.read();
        reserved = true;
    }

    @Override
    public final void setup(CounterConfig[] configs) {
        check(configs);
        unprogrammed.clear();
        // 1. Clear the controls (this also drops every enable and interrupt bit).
        clearControls();
        // 2. -1 into every counter so an early NMI sees the overflow test bit set and no false overflow.
        for (int i = 0; i < counterRegisters.length; i++) {
            write(counterRegisters[i], -1L);
            resetValue[i] = 0;
            startAfresh(i);
        }
        // 3. Preload -count and program each configured counter; its enable waits for start.
        for (CounterConfig c : configs) {
            if (c == null) {
                continue;
            }
            int i = c.counter();
            if (i >= counterRegisters.length) {
                beyondThisCpu(c);
                continue;
            }
            resetValue[i] = c.count();
            program(i, c);
        }
    }

    /** Rejects a configuration before any register changes, so a bad one leaves no half-written PMU. */
    private void check(CounterConfig[] configs) {
        SetupCheck.check(cpu, configs, configurableCounters(), counterRange(), MAX_COUNT, preloadRule(), (i, c) -> {
            if (c.unitMask() < 0 || c.unitMask() > (1L << unitMaskBits()) - 1) {
                throw new IllegalArgumentException(String.format("CPU %d: unit mask 0x%x for counter %d does not fit"
                        + " the %d-bit %s", cpu, c.unitMask(), i, unitMaskBits(), unitMaskField()));
            }
            String misfit = eventMisfit(c.event());
            if (misfit != null) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i + " " + misfit);
            }
            if (!c.kernel() && !c.user()) {
                throw new IllegalArgumentException("CPU " + cpu + ": counter " + i
                        + " counts in neither kernel nor user mode; set kernel or user");
            }
        });
    }

    @Override
    public final void start() {
        if (started) {
            throw new IllegalStateException("CPU " + cpu + ": " + countersName()
                    + " are already started; stop them first");
        }
        started = true;
        lvtpc.routeToNmi();
        lvtpcRouted();
        enableCounters();
    }

    @Override
    public final void stop() {
        if (!started) {
            throw new IllegalStateException("CPU " + cpu + ": stop without start; " + countersName()
                    + " are not running");
        }
        disableCounters();
        lvtpc.restore();
        lvtpcRouted();
        started = false;
    }

    @Override
    public final void release() {
        if (!reserved) {
            throw new IllegalStateException("CPU " + cpu + ": release without reserve; nothing was saved to restore");
        }
        // Controls first, so the restored counters are not counting while they are written.
        for (int i = 0; i < controlRegisters.length; i++) {
            write(controlRegisters[i], savedControl[i]);
        }
        for (int i = 0; i < counterRegisters.length; i++) {
            // A WRMSR like any other: where the model's counter write takes 32 bits and copies bit 31
            // above them (P6, arch perfmon), a saved value above 32 bits is not restored whole, as on hardware.
            write(counterRegisters[i], savedCounter[i]);
            resetValue[i] = 0;
        }
        write(LocalApicLvtpc.OFFSET, savedLvtpc);
        reserved = false;
        started = false;
    }

    @Override
    public final int checkCounters(OverflowSink sink) {
        int overflowed = 0;
        long which = 0;
        for (int i = 0; i < counterRegisters.length; i++) {
            if (!configured(i)) {
                continue; // Xen's check_ctrs skips counters the session did not set up
            }
            if (overflowed(i)) {
                rearm(i);
                overflowed++;
                which |= 1L << i;
                sink.overflow(i);
            }
        }
        endOfHandler(which);
        return overflowed;
    }

    @Override
    public final long cyclesUntilOverflow(SignalRates rates, int cpl) {
        LocalApicLvtpc.checkCpl(cpu, cpl);
        return cyclesUntilNextOverflow(rates, cpl);
    }

    @Override
    public final void advance(long cycles, SignalRates rates, int cpl) {
        LocalApicLvtpc.checkCpl(cpu, cpl);
        if (cycles < 0) {
            throw new IllegalArgumentException("CPU " + cpu + ": cannot advance by " + cycles
                    + " cycles; the cycle count must be zero or positive");
        }
        if (cycles > 0) {
            advanceCounters(cycles, rates, cpl);
        }
    }

    @Override
    public boolean interruptPending() {
        return pmiPending && lvtpc.deliverable();
    }

    @Override
    public final void acknowledgeInterrupt() {
        if (!interruptPending()) {
            throw new IllegalStateException("CPU " + cpu + ": no PMU interrupt is pending"
                    + " (check interruptPending() before the CPU takes the PMI)");
        }
        takeInterrupt();
    }
}
